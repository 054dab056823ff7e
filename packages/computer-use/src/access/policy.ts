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
  grantTier: z
    .enum(['default', 'ceiling'])
    .default('default')
    .describe("The tier a grant gets: its category's default tier within maxTier (the seed's rule), or maxTier itself"),
  maxTier: z
    .strictObject({ browser: tier.default('read'), terminal: tier.default('click'), trading: tier.default('read'), other: tier.default('full') })
    .default({ browser: 'read', terminal: 'click', trading: 'read', other: 'full' })
    .describe('The highest tier an app of each category can be granted'),
  flags: z
    .strictObject({ clipboardRead: z.boolean().default(true), clipboardWrite: z.boolean().default(true), systemKeyCombos: z.boolean().default(true) })
    .default({ clipboardRead: true, clipboardWrite: true, systemKeyCombos: true })
    .describe('Which grant flags may be given at all'),
  network: z
    .strictObject({ egress: z.boolean().default(false).describe('Whether the desktop may reach the network beyond itself (container desktops; docs/containers.md)') })
    .default({ egress: false }),
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

/**
 * Named starting points for the default policy:
 * - `seed`: the seed's tiers (browsers and file managers read, terminals click, trading read, the rest full) —
 *   the default of every deployment that serves several tenants;
 * - `sandbox`: the local sandbox, whose user owns the disposable desktop: every app up to the
 *   full tier, the desktop's own apps granted on start (so the first call of any agent loop
 *   works), the clipboard flags given; the gates stay on (hit-test, focus, staleness, the
 *   shortcut blocklist without systemKeyCombos).
 */
export const POLICY_PROFILES = ['seed', 'sandbox'] as const;
export type PolicyProfile = (typeof POLICY_PROFILES)[number];

/** The apps of the local sandbox's desktop, granted on start under the sandbox profile. */
export const SANDBOX_APPS = ['chromium', 'mousepad', 'pcmanfm', 'xterm'] as const;

export function profilePolicy(profile: PolicyProfile): TenantPolicy {
  if (profile === 'seed') return tenantPolicySchema.parse({});
  return tenantPolicySchema.parse({
    grantTier: 'ceiling',
    maxTier: { browser: 'full', terminal: 'full', trading: 'full', other: 'full' },
    flags: { clipboardRead: true, clipboardWrite: true, systemKeyCombos: false },
    grantOnStart: { apps: [...SANDBOX_APPS], clipboardRead: true, clipboardWrite: true },
    // The sandbox's user owns its desktop: its browser may browse.
    network: { egress: true },
  });
}

export const policyFileSchema = z.strictObject({
  profile: z.enum(POLICY_PROFILES).default('seed').describe('The starting point of `default` when the file gives none'),
  default: tenantPolicySchema.optional(),
  tenants: z.record(z.string(), tenantPolicySchema).default({}),
}).transform(({ profile, default: base, tenants }) => ({ profile, default: base ?? profilePolicy(profile), tenants }));

export type PolicyFile = z.output<typeof policyFileSchema>;

export const defaultPolicy = (): TenantPolicy => tenantPolicySchema.parse({});

export function policyFor(file: PolicyFile, tenant: string): TenantPolicy {
  return file.tenants[tenant] ?? file.default;
}
