/** The gates' verdicts, pure: given the facts gathered before an action, refuse it or let it run. */
import type { ActionKind } from '../tools/define-tool.ts';
import type { AppInfo } from '../executor.ts';
import { grantFor, namesOf, tierAtLeast, type Grants } from '../access/grants.ts';
import { TIER_ANTI_SUBVERSION, tierFor } from '../apps/tier.ts';
import { blockedCombo } from '../keys/blocklist.ts';
import type { ToolErrorKind } from '../errors.ts';

export interface Refusal {
  kind: ToolErrorKind;
  message: string;
}

const label = (app: AppInfo) => app.wmClass?.[1] ?? namesOf(app)[0] ?? app.title ?? `window ${app.window}`;

export function allowlistGate(grants: Grants): Refusal | undefined {
  if (grants.apps.length > 0) return undefined;
  return { kind: 'allowlist_empty', message: 'No application has been granted to this session yet. Call request_access with the apps you need first.' };
}

/** Input only goes to granted apps: the one in front (keys) and the one under the pointer (clicks). */
export function appGate(app: AppInfo | undefined, grants: Grants, where: string): Refusal | undefined {
  if (!app || app.window === null || grantFor(app, grants)) return undefined;
  return {
    kind: 'app_not_granted',
    message: `The ${where} window belongs to "${label(app)}", which this session has not been granted. Request access to it with request_access, or bring a granted app to the front.`,
  };
}

export function tierGate(app: AppInfo | undefined, kind: ActionKind, grants: Grants, tool: string): Refusal | undefined {
  const needed = tierFor(kind);
  if (!app || app.window === null || needed === null) return undefined;
  const grant = grantFor(app, grants);
  if (!grant || tierAtLeast(grant.tier, needed)) return undefined;
  return {
    kind: 'tier_insufficient',
    message: `${tool} needs the ${needed} tier, but "${grant.app}" is granted at ${grant.tier}. ${TIER_ANTI_SUBVERSION}`,
  };
}

export function stalenessGate(unchanged: boolean): Refusal | undefined {
  if (unchanged) return undefined;
  return { kind: 'stale_screenshot', message: 'The screen changed at the target since the last screenshot, so the click was not sent. Take a new screenshot and read the coordinates off it.' };
}

export function keyComboGate(chord: string | undefined, grants: Grants): Refusal | undefined {
  if (chord === undefined || grants.flags.systemKeyCombos) return undefined;
  const blocked = blockedCombo(chord);
  if (!blocked) return undefined;
  return {
    kind: 'blocked_key_combo',
    message: `${blocked.combo} is a system shortcut (${blocked.why}) and is blocked. It needs the systemKeyCombos grant flag (request_access with systemKeyCombos: true).`,
  };
}
