/**
 * Gateway settings from environment variables, with defaults that make `npm start` work
 * with nothing set. A bad value stops the gateway at start with the setting named.
 */
import { z } from 'zod';
import { LOCK_LEASE_MS, QUOTA_DEFAULTS } from '@deskgate/dispatch';
import { envFlag as flag, envList as list, parseEnv, serviceEnv } from '@deskgate/service-kit';

const schema = z.object({
  ...serviceEnv,
  DESKGATE_HOST: z.string().default('127.0.0.1'),
  DESKGATE_PORT: z.coerce.number().int().min(0).max(65535).default(7420),
  DESKGATE_ALLOWED_HOSTS: list,
  DESKGATE_ALLOWED_ORIGINS: list,
  DESKGATE_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  DESKGATE_ACTION_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(30),
  DESKGATE_ALLOCATE_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(60),
  DESKGATE_DESKTOP_WAIT_SECONDS: z.coerce.number().min(0).max(600).default(20),
  DESKGATE_LOCK_LEASE_MS: z.coerce.number().int().min(LOCK_LEASE_MS.min).max(LOCK_LEASE_MS.max).default(LOCK_LEASE_MS.default),
  DESKGATE_AUDIT_TEXT: flag.default(false),
  DESKGATE_AUDIT_MAX_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  DESKGATE_AUDIT_TTL_SECONDS: z.coerce.number().int().min(1).default(7 * 24 * 3600),
  DESKGATE_TENANT_MAX_SESSIONS: z.coerce.number().int().min(1).max(100_000).default(QUOTA_DEFAULTS.maxSessions),
  DESKGATE_TENANT_CALLS_PER_SECOND: z.coerce.number().int().min(0).max(1_000_000).default(QUOTA_DEFAULTS.callsPerSecond),
  DESKGATE_CONSOLE_SESSION_SECONDS: z.coerce.number().int().min(60).max(24 * 3600).default(900),
  DESKGATE_CONSOLE_SECURE_COOKIE: flag.default(false),
  DESKGATE_CONSOLE_TAKEOVER_LEASE_MS: z.coerce.number().int().min(LOCK_LEASE_MS.min).max(LOCK_LEASE_MS.max).default(15_000),
  DESKGATE_CONSOLE_SHARE_SECONDS: z.coerce.number().int().min(10).max(900).default(300),
  // The fleet demand endpoint's bearer token (autoscalers); unset: the endpoint answers 404.
  DESKGATE_FLEET_TOKEN: z.string().min(24, 'at least 24 characters').optional(),
  DESKGATE_FLEET_WARM_DESKTOPS: z.coerce.number().int().min(0).max(1000).default(1),
  DESKGATE_FLEET_DESKTOPS_PER_WORKER: z.coerce.number().int().min(1).max(256).default(4),
  // Where workers write replies directly (docs/architecture.md, "Direct replies"): host:port, or off.
  DESKGATE_DIRECT_REPLIES: z.string().default('127.0.0.1:0').transform(listenAddress),
  // The host workers dial for them; unset: the listening host, or this machine's first external IPv4 when that is 0.0.0.0.
  DESKGATE_DIRECT_REPLIES_ADVERTISE: z.string().min(1).optional(),
});

/** `host:port` (`[v6]:port`) or `off`. */
function listenAddress(value: string, context: z.RefinementCtx): { host: string; port: number } | null {
  if (value === 'off') return null;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    context.addIssue({ code: 'custom', message: `expected host:port (e.g. 0.0.0.0:7421, [::]:7421, 127.0.0.1:0 for any free port) or off, got "${value}"` });
    return z.NEVER;
  }
  return { host: match[1] ?? match[2]!, port };
}

export type GatewayConfig = ReturnType<typeof loadConfig>;

const LOCALHOST = ['127.0.0.1', 'localhost', '::1'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = parseEnv('gateway', schema, env);
  const local = LOCALHOST.includes(c.DESKGATE_HOST);
  return {
    redisUrl: c.REDIS_URL,
    host: c.DESKGATE_HOST,
    port: c.DESKGATE_PORT,
    // Bound to localhost, only localhost names may reach us (DNS-rebinding defence); bound
    // wider, the operator lists the public names (or none, behind a trusted proxy).
    allowedHosts: c.DESKGATE_ALLOWED_HOSTS ?? (local ? ['localhost', '127.0.0.1', '[::1]'] : undefined),
    allowedOrigins: c.DESKGATE_ALLOWED_ORIGINS ?? ['localhost', '127.0.0.1', '[::1]'],
    maxBodyBytes: c.DESKGATE_MAX_BODY_BYTES,
    actionTimeoutMs: c.DESKGATE_ACTION_TIMEOUT_SECONDS * 1000,
    allocateTimeoutMs: c.DESKGATE_ALLOCATE_TIMEOUT_SECONDS * 1000,
    // When every desktop is in use, a new session's first call waits this long for one (0: fails at once).
    desktopWaitMs: c.DESKGATE_DESKTOP_WAIT_SECONDS * 1000,
    // A controller keeps its desktop this long after its last action ends (then another may take it).
    lockLeaseMs: c.DESKGATE_LOCK_LEASE_MS,
    logLevel: c.DESKGATE_LOG_LEVEL,
    /** SIGTERM lets requests in flight finish for this long. */
    drainMs: c.DESKGATE_DRAIN_SECONDS * 1000,
    /**
     * What autoscalers read (GET /v1/fleet/demand): its token, the spare desktops the fleet keeps
     * beyond those in use, and the desktops per worker assumed while no worker is up.
     */
    /** Where workers write replies directly; null: every reply goes through Redis. */
    directReplies: c.DESKGATE_DIRECT_REPLIES && { ...c.DESKGATE_DIRECT_REPLIES, advertise: c.DESKGATE_DIRECT_REPLIES_ADVERTISE },
    fleet: { token: c.DESKGATE_FLEET_TOKEN, warmDesktops: c.DESKGATE_FLEET_WARM_DESKTOPS, desktopsPerWorker: c.DESKGATE_FLEET_DESKTOPS_PER_WORKER },
    // Per tenant: sessions (desktops) held at once, and tool calls per second (0 = no limit).
    quotas: { maxSessions: c.DESKGATE_TENANT_MAX_SESSIONS, callsPerSecond: c.DESKGATE_TENANT_CALLS_PER_SECOND },
    // Typed text and clipboard contents are redacted from the audit log unless this is set.
    audit: { keepText: c.DESKGATE_AUDIT_TEXT, maxEntries: c.DESKGATE_AUDIT_MAX_ENTRIES, ttlSeconds: c.DESKGATE_AUDIT_TTL_SECONDS },
    // The web console (docs/console.md): how long a sign-in lasts, Secure cookies behind a TLS proxy, how long a takeover outlives its page, how long a view-only link lives.
    console: { sessionSeconds: c.DESKGATE_CONSOLE_SESSION_SECONDS, secureCookie: c.DESKGATE_CONSOLE_SECURE_COOKIE, takeoverLeaseMs: c.DESKGATE_CONSOLE_TAKEOVER_LEASE_MS, shareSeconds: c.DESKGATE_CONSOLE_SHARE_SECONDS },
  };
}
