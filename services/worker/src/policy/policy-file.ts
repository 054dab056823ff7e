/**
 * Tenant policies come from a JSON file (DESKGATE_POLICY_FILE), validated at start: a bad file
 * stops the worker with the path and the field named. Without a file every tenant gets the
 * default policy — `auto` approval within the seed's default tiers — so the sandbox works at
 * once. docs/policy.md documents the schema.
 */
import { readFileSync } from 'node:fs';
import { policyFileSchema, type PolicyFile } from '@deskgate/computer-use';

export function loadPolicyFile(path: string | undefined): PolicyFile {
  if (!path) return policyFileSchema.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the policy file ${path}: ${error instanceof Error ? error.message : error}`);
  }
  const parsed = policyFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new Error(`Invalid policy file ${path} — ${problems.join('; ')}`);
  }
  return parsed.data;
}
