/**
 * A tenant's policy: the remote form of the seed's permission dialog. It says which apps may
 * be granted (patterns), the highest tier per app category, which grant flags may be given,
 * and how requests are decided — `auto` within those ceilings, `human` (a person approves or
 * denies through the API), or `deny`.
 */
import { z } from 'zod';
import { classificationDataSchema } from '../apps/classify.ts';

const tier = z.enum(['read', 'click', 'full']);

export const tenantPolicySchema = z.strictObject({
  approval: z.enum(['auto', 'human', 'deny']).default('auto').describe('How access requests are decided'),
  approvalTimeoutSeconds: z.number().int().min(1).max(300).default(120).describe('How long a human-mode request waits for a decision'),
  apps: z
    .strictObject({
      allow: z.array(z.string().min(1)).default(['*']).describe('Apps that may be granted; "*" matches any run of characters'),
      deny: z.array(z.string().min(1)).default([]).describe('Apps that may never be granted (wins over allow)'),
    })
    .default({ allow: ['*'], deny: [] }),
  maxTier: z
    .strictObject({ browser: tier.default('read'), terminal: tier.default('click'), trading: tier.default('read'), other: tier.default('full') })
    .default({ browser: 'read', terminal: 'click', trading: 'read', other: 'full' })
    .describe('The highest tier an app of each category can be granted'),
  flags: z
    .strictObject({ clipboardRead: z.boolean().default(true), clipboardWrite: z.boolean().default(true), systemKeyCombos: z.boolean().default(true) })
    .default({ clipboardRead: true, clipboardWrite: true, systemKeyCombos: true })
    .describe('Which grant flags may be given at all'),
  classification: classificationDataSchema.optional().describe('Extra app ids and names per category, over the built-in list'),
  grantOnStart: z
    .strictObject({
      apps: z.array(z.string().min(1)).default([]),
      clipboardRead: z.boolean().default(false),
      clipboardWrite: z.boolean().default(false),
      systemKeyCombos: z.boolean().default(false),
    })
    .optional()
    .describe('Grants every new session starts with (within the same ceilings), for agents that never call request_access, such as Anthropic computer-tool loops'),
});

export type TenantPolicy = z.infer<typeof tenantPolicySchema>;

export const policyFileSchema = z.strictObject({
  default: tenantPolicySchema.default(tenantPolicySchema.parse({})),
  tenants: z.record(z.string(), tenantPolicySchema).default({}),
});

export type PolicyFile = z.infer<typeof policyFileSchema>;

export const defaultPolicy = (): TenantPolicy => tenantPolicySchema.parse({});

export function policyFor(file: PolicyFile, tenant: string): TenantPolicy {
  return file.tenants[tenant] ?? file.default;
}
