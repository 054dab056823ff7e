/**
 * Turns an access request into a proposal under the tenant's policy: apps that can never be
 * granted (denied categories, the tenant's deny list, anything outside its allow list) are
 * policyDenied at once; the rest get their category's tier, capped by the policy's ceiling.
 */
import { classifyApp } from '../apps/classify.ts';
import type { Tier } from '../apps/types.ts';
import type { GrantFlags, Grants } from './grants.ts';
import { isInterpreter, matchesAny } from './app-names.ts';
import type { TenantPolicy } from './policy.ts';

export interface AccessRequest {
  apps: string[];
  reason: string;
  flags: Partial<GrantFlags>;
}

export interface Proposal {
  grants: Grants;
  policyDenied: { app: string; reason: string }[];
  /** Flags asked for that the policy never gives. */
  flagsRefused: (keyof GrantFlags)[];
}

const TIERS: Tier[] = ['read', 'click', 'full'];
const lower = (a: Tier, b: Tier): Tier => (TIERS.indexOf(a) <= TIERS.indexOf(b) ? a : b);

export function proposeGrants(request: AccessRequest, policy: TenantPolicy): Proposal {
  const proposal: Proposal = {
    grants: { apps: [], flags: { clipboardRead: false, clipboardWrite: false, systemKeyCombos: false } },
    policyDenied: [],
    flagsRefused: [],
  };
  for (const app of new Set(request.apps.map((name) => name.trim()))) {
    const { category, tier } = classifyApp({ id: app, name: app }, policy.classification);
    if (isInterpreter(app)) {
      proposal.policyDenied.push({ app, reason: 'an interpreter or shell is not an app: a grant on it would cover every script it runs. Ask for the app itself (its WM_CLASS or .desktop id)' });
    } else if (category === 'denied' || tier === null) {
      proposal.policyDenied.push({ app, reason: 'streaming, music and ebook apps can never be granted' });
    } else if (matchesAny(app, policy.apps.deny) || !matchesAny(app, policy.apps.allow)) {
      proposal.policyDenied.push({ app, reason: "the tenant's policy does not allow this app" });
    } else {
      const ceiling = policy.maxTier[category];
      proposal.grants.apps.push({ app, category, tier: policy.grantTier === 'ceiling' ? ceiling : lower(tier, ceiling) });
    }
  }
  for (const flag of ['clipboardRead', 'clipboardWrite', 'systemKeyCombos'] as const) {
    if (!request.flags[flag]) continue;
    if (policy.flags[flag]) proposal.grants.flags[flag] = true;
    else proposal.flagsRefused.push(flag);
  }
  return proposal;
}

/** The grants a new session starts with under its tenant's policy (none unless grantOnStart says so). */
export function startingGrants(policy: TenantPolicy): Grants {
  const start = policy.grantOnStart;
  if (!start || policy.approval !== 'auto') return proposeGrants({ apps: [], reason: '', flags: {} }, policy).grants;
  const { apps, ...flags } = start;
  return proposeGrants({ apps, reason: 'granted on start by the tenant policy', flags }, policy).grants;
}
