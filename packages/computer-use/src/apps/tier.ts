/**
 * Tiers: how much of a granted app an action may drive. read < click < full. A category has a
 * default tier; an action kind needs a tier of the app it lands on.
 */
import type { AppCategory, Tier } from './types.ts';

/** What an input action does: hover < mouse < mouse_full < keyboard decide the tier; `none` is never tier-gated. */
export type ActionKind = 'none' | 'hover' | 'mouse' | 'mouse_full' | 'keyboard';

const RANK: Record<Tier, number> = { read: 0, click: 1, full: 2 };

/** True when a grant at `granted` allows an action that needs `needed`. */
export function tierSatisfies(granted: Tier, needed: Tier): boolean {
  return RANK[granted] >= RANK[needed];
}

/**
 * The tier an action kind needs, or null when it is not tier-gated at all (screenshots, waits…).
 * Hover needs "any tier", which is read: the app must still be granted.
 */
export function tierFor(kind: ActionKind): Tier | null {
  switch (kind) {
    case 'none':
      return null;
    case 'hover':
      return 'read';
    case 'mouse':
      return 'click';
    case 'mouse_full':
    case 'keyboard':
      return 'full';
  }
}

/** The default tier of a category; null for policy-denied apps, which are never grantable. */
export function categoryTier(category: AppCategory): Tier | null {
  switch (category) {
    case 'browser':
    case 'trading':
      return 'read';
    case 'terminal':
      return 'click';
    case 'denied':
      return null;
    case 'other':
      return 'full';
  }
}

/** Ends every tier refusal, so the model does not route around the restriction. */
export const TIER_ANTI_SUBVERSION =
  'Do not try to work around this restriction through scripts, shell commands, other apps or keyboard shortcuts; ' +
  'ask the user to do this step or to grant a higher tier.';
