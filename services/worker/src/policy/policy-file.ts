/**
 * Tenant policies come from a JSON file (DESKGATE_POLICY_FILE), validated at start: a bad file
 * stops the worker with the path and the field named. Without a file every tenant gets the
 * default policy of the profile named by DESKGATE_POLICY_PROFILE: `seed` (the seed's tiers; the
 * default) or `sandbox` (what `npm start` runs: the user's own disposable desktop, every app up
 * to full, the desktop's apps granted on start). docs/policy.md documents both.
 */
import { readFileSync } from 'node:fs';
import { POLICY_PROFILES, policyFileSchema, type PolicyFile, type PolicyProfile } from '@deskgate/computer-use';

export function policyProfileFrom(env: NodeJS.ProcessEnv = process.env): PolicyProfile {
  const value = env.DESKGATE_POLICY_PROFILE ?? 'seed';
  if (!(POLICY_PROFILES as readonly string[]).includes(value)) {
    throw new Error(`Invalid worker configuration — DESKGATE_POLICY_PROFILE: expected one of ${POLICY_PROFILES.join(', ')}, got "${value}"`);
  }
  return value as PolicyProfile;
}

export function loadPolicyFile(path: string | undefined, profile: PolicyProfile = policyProfileFrom()): PolicyFile {
  if (!path) return policyFileSchema.parse({ profile });
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the policy file ${path}: ${error instanceof Error ? error.message : error}`);
  }
  // The file's own `profile` wins over the environment's.
  const parsed = policyFileSchema.safeParse(raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? { profile, ...raw } : raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new Error(`Invalid policy file ${path} — ${problems.join('; ')}`);
  }
  return parsed.data;
}
