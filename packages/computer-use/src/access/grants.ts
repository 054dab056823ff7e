/**
 * What a session may touch: the apps it was granted, each at a tier, and three grant flags.
 * Grants only grow during a session — a later request can add apps or raise nothing silently
 * away — and a window belongs to a grant when its WM_CLASS, .desktop id or executable names
 * the granted app. A window that answers to several grants (WM_CLASS "XTerm" granted at click,
 * its executable granted at full) gets the most restrictive of them. Interpreter executables
 * never name a window (see app-names.ts).
 */
import type { AppCategory, Tier } from '../apps/types.ts';
import type { AppInfo } from '../executor.ts';
import { isInterpreter, normalizeAppName } from './app-names.ts';

export interface AppGrant {
  /** The name the agent asked for, as granted ("xterm", "firefox-esr", "org.gnome.Terminal"). */
  app: string;
  tier: Tier;
  category: AppCategory;
}

export interface GrantFlags {
  clipboardRead: boolean;
  clipboardWrite: boolean;
  systemKeyCombos: boolean;
}

export interface Grants {
  apps: AppGrant[];
  flags: GrantFlags;
}

export const noGrants = (): Grants => ({ apps: [], flags: { clipboardRead: false, clipboardWrite: false, systemKeyCombos: false } });

const TIER_ORDER: Record<Tier, number> = { read: 0, click: 1, full: 2 };

/** Adds new grants to old ones: never drops an app, never lowers a tier, never clears a flag. */
export function mergeGrants(old: Grants, added: Grants): Grants {
  const apps = [...old.apps];
  for (const grant of added.apps) {
    const index = apps.findIndex((existing) => sameApp(existing.app, grant.app));
    if (index < 0) apps.push(grant);
    else if (TIER_ORDER[grant.tier] > TIER_ORDER[apps[index]!.tier]) apps[index] = grant;
  }
  return {
    apps,
    flags: {
      clipboardRead: old.flags.clipboardRead || added.flags.clipboardRead,
      clipboardWrite: old.flags.clipboardWrite || added.flags.clipboardWrite,
      systemKeyCombos: old.flags.systemKeyCombos || added.flags.systemKeyCombos,
    },
  };
}

const sameApp = (a: string, b: string) => normalizeAppName(a) === normalizeAppName(b);

/** The names a window answers to: WM_CLASS instance and class, .desktop id, executable basename — never an interpreter's. */
export function namesOf(app: AppInfo): string[] {
  const names: string[] = [];
  if (app.wmClass) names.push(...app.wmClass);
  if (app.desktopId) names.push(app.desktopId);
  if (app.exe) names.push(app.exe.split('/').pop()!);
  return names.filter((name) => name && !isInterpreter(name));
}

/** The grant that governs a window: of all grants naming it, the one with the lowest tier. */
export function grantFor(app: AppInfo, grants: Grants): AppGrant | undefined {
  const names = new Set(namesOf(app).map(normalizeAppName));
  let governing: AppGrant | undefined;
  for (const grant of grants.apps) {
    if (!names.has(normalizeAppName(grant.app))) continue;
    if (!governing || TIER_ORDER[grant.tier] < TIER_ORDER[governing.tier]) governing = grant;
  }
  return governing;
}

/** The grant for an app asked for by name ("xterm", "XTerm", "xterm.desktop" are one app). */
export function grantNamed(app: string, grants: Grants): AppGrant | undefined {
  return grants.apps.find((grant) => sameApp(grant.app, app));
}

export function tierAtLeast(granted: Tier, needed: Tier): boolean {
  return TIER_ORDER[granted] >= TIER_ORDER[needed];
}
