/**
 * The gates' verdicts: pure functions over the facts gathered before an action, in the seed's
 * order. Each returns a Refusal or undefined; the first refusal wins and nothing runs.
 * They fail closed: input lands only on a window of a granted app, at a tier that allows it,
 * with a granted app holding the keyboard focus for keys. The desktop background, window-manager
 * frames and menus, other apps' popups and windows nobody can name are refusals of their own.
 */
import { matchesAny } from '../access/app-names.ts';
import { grantFor, namesOf, tierAtLeast } from '../access/grants.ts';
import { classifyApp } from '../apps/classify.ts';
import { TIER_ANTI_SUBVERSION, tierFor } from '../apps/tier.ts';
import type { ToolErrorKind } from '../errors.ts';
import type { AppInfo, WindowSurface } from '../executor.ts';
import { blockedCombo } from '../keys/blocklist.ts';
import type { Facts, Target } from './facts.ts';

export interface Refusal {
  kind: ToolErrorKind;
  message: string;
}

export type Verdict = (facts: Facts) => Refusal | undefined;

const label = (app: AppInfo) => app.wmClass?.[1] ?? namesOf(app)[0] ?? (app.title || `window ${app.window}`);

const WHAT: Record<WindowSurface['kind'], string> = {
  root: 'the desktop background',
  decoration: "a window's frame or title bar (the window manager's, not the app's)",
  popup: 'a popup',
  client: 'a window',
  none: 'nothing',
  unknown: 'a window that belongs to no app deskgate can identify',
};

export const allowlistGate = ({ grants }: Pick<Facts, 'grants'>): Refusal | undefined => {
  if (grants.apps.length > 0) return undefined;
  return { kind: 'allowlist_empty', message: 'No application has been granted to this session yet. Call request_access with the apps you need first.' };
};

/** The surfaces an action touches: its targets, and the focus when it types. */
const touched = (facts: Facts): WindowSurface[] => [...facts.targets.map((target) => target.surface), ...(facts.keyboard ? [facts.focus] : [])];

/** The tenant's deny list and the never-grantable categories also judge the window itself, not only the name asked for. */
export const deniedAppGate: Verdict = (facts) => {
  for (const surface of touched(facts)) {
    const app = surface.app;
    if (!app) continue;
    const names = namesOf(app);
    const denied = names.find((name) => matchesAny(name, facts.policy.apps.deny)) ??
      (classifyApp({ id: app.desktopId ?? undefined, wmClass: app.wmClass, exe: app.exe }, facts.policy.classification).category === 'denied' ? label(app) : undefined);
    if (denied) {
      return { kind: 'policy_denied', message: `The window under the action belongs to "${denied}", which this tenant's policy never allows. Nothing was done.` };
    }
  }
  return undefined;
};

function surfaceRefusal(surface: WindowSurface, facts: Facts, where: string): Refusal | undefined {
  if (surface.kind === 'client' || surface.kind === 'popup') {
    if (surface.app && grantFor(surface.app, facts.grants)) return undefined;
    const name = surface.app ? `"${label(surface.app)}"` : 'an unidentified app';
    return {
      kind: 'app_not_granted',
      message: `The ${where} is ${surface.kind === 'popup' ? 'a popup of' : 'a window of'} ${name}, which this session has not been granted. Request access to it with request_access, or act on a granted app.`,
    };
  }
  return { kind: 'no_app_window', message: `The ${where} is ${WHAT[surface.kind]}; input only goes to windows of granted apps. Nothing was done.` };
}

/** Every target point lies on a window (or popup) of a granted app. */
export const targetGate: Verdict = (facts) => {
  for (const [index, target] of facts.targets.entries()) {
    const where = facts.targets.length > 1 ? (index === 0 ? 'start point' : 'end point') : 'target';
    const refusal = surfaceRefusal(target.surface, facts, where);
    if (refusal) return refusal;
  }
  return undefined;
};

const granted = (surface: WindowSurface, facts: Facts) => (surface.kind === 'client' || surface.kind === 'popup') && !!surface.app && !!grantFor(surface.app, facts.grants);

/**
 * The keyboard focus: keys need a granted app holding the real X input focus. A click on a
 * client may take the focus itself (the effects give it to the target first), but a click into
 * a popup leaves the focus where it is, so there the focus must already be granted.
 */
export const focusGate: Verdict = (facts) => {
  const popupTarget = facts.targets.some((target) => target.surface.kind === 'popup');
  if (!facts.keyboard && !popupTarget) return undefined;
  if (granted(facts.focus, facts)) return undefined;
  const holder = facts.focus.app && (facts.focus.kind === 'client' || facts.focus.kind === 'popup') ? `"${label(facts.focus.app)}", which this session has not been granted` : WHAT[facts.focus.kind];
  return {
    kind: 'focus_not_granted',
    message: `The keyboard focus is on ${holder}, so no input was sent. Click into a window of a granted app first (or open_application it).`,
  };
};

function tierRefusal(target: { surface: WindowSurface; needs: Target['needs'] }, facts: Facts): Refusal | undefined {
  const needed = tierFor(target.needs);
  const grant = target.surface.app ? grantFor(target.surface.app, facts.grants) : undefined;
  if (needed === null || !grant || tierAtLeast(grant.tier, needed)) return undefined;
  return { kind: 'tier_insufficient', message: `${facts.tool} needs the ${needed} tier, but "${grant.app}" is granted at ${grant.tier}. ${TIER_ANTI_SUBVERSION}` };
}

/** Each target's app (and, for keys, the focused app) is granted at a tier that allows the action there. */
export const tierGate: Verdict = (facts) => {
  for (const target of facts.targets) {
    const refusal = tierRefusal(target, facts);
    if (refusal) return refusal;
  }
  return facts.keyboard ? tierRefusal({ surface: facts.focus, needs: 'keyboard' }, facts) : undefined;
};

export const stalenessGate: Verdict = ({ unchanged }) => {
  if (unchanged) return undefined;
  return { kind: 'stale_screenshot', message: 'The screen changed at the target since the last screenshot, so the click was not sent. Take a new screenshot and read the coordinates off it.' };
};

export const keyComboGate: Verdict = ({ chords, grants, platform }) => {
  if (!chords || grants.flags.systemKeyCombos) return undefined;
  const blocked = blockedCombo(chords.chords, chords.together, platform);
  if (!blocked) return undefined;
  return {
    kind: 'blocked_key_combo',
    message: `${blocked.combo} is a system shortcut (${blocked.why}) and is blocked. It needs the systemKeyCombos grant flag (request_access with systemKeyCombos: true).`,
  };
};

/** In order; the first refusal wins. */
export const VERDICTS: readonly Verdict[] = [allowlistGate, deniedAppGate, targetGate, focusGate, tierGate, stalenessGate, keyComboGate];

export function judge(facts: Facts): Refusal | undefined {
  for (const verdict of VERDICTS) {
    const refusal = verdict(facts);
    if (refusal) return refusal;
  }
  return undefined;
}
