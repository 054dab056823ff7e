/**
 * The gateway's HTTP surface. createApp only wires; main.ts listens.
 *
 * Every route passes the Host/Origin check (health probes and metrics too: a DNS-rebinding
 * page must not read them either). Every route but the health probes then needs an API key,
 * which resolves the caller once (tenant, key id, role), and a role the route allows
 * (auth/roles.ts): MCP is for agent keys, the control API for approver, operator and admin
 * keys. Errors are thrown as ApiError and rendered by one onError.
 */
import { Hono } from 'hono';
import { metricsResponse } from '@deskgate/service-kit';
import { COORDINATE_MODES, type CoordinateMode, type Surface, SCREENSHOT_AFTER, type ScreenshotAfter } from '@deskgate/computer-use';
import { PLATFORMS, type Platform } from '@deskgate/dispatch';
import { ApprovalStore, DEFAULT_SESSION, DesktopLocks, type AuditLog, type FleetDemand, type KillSwitch, type TenantQuotas } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ApiKeyStore } from './auth/api-keys.ts';
import { CAN } from './auth/roles.ts';
import type { GatewayConfig } from './config.ts';
import { ApiError, renderErrors } from './http/api-error.ts';
import { approvalRoutes } from './http/approval-routes.ts';
import { auditRoute } from './http/audit-route.ts';
import { keyRoutes } from './http/key-routes.ts';
import { killSwitchRoutes } from './http/killswitch-routes.ts';
import { lockRoutes } from './http/lock-routes.ts';
import { fleetDemandRoute } from './http/fleet-route.ts';
import type { GatewayMetrics } from './http/metrics.ts';
import { sessionRoutes } from './http/session-routes.ts';
import { consoleApp } from './console/index.ts';
import { createCallAuditor } from './mcp/call-auditor.ts';
import { createMcpEndpoint } from './mcp/mcp-endpoint.ts';
import { createServerFactory, type CallScope } from './mcp/server-factory.ts';
import { bearerAuth, type AuthEnv } from './middleware/bearer-auth/index.ts';
import { declaredBodyLimit } from './middleware/declared-body-limit/index.ts';
import { hostOriginCheck } from './middleware/host-origin/index.ts';
import { requireRole } from './middleware/require-role/index.ts';
import { controllerOf } from './sessions/controller.ts';
import { sessionFrom } from './sessions/session-param.ts';
import type { SessionRouter } from './sessions/session-router.ts';

/** How long /readyz waits for Redis' PING before answering 503. */
export const READY_PING_MS = 500;

async function redisAnswers(redis: Redis, withinMs: number): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)));
  try {
    return await Promise.race([redis.ping().then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface AppDeps {
  config: GatewayConfig;
  /** What the fleet needs (GET /v1/fleet/demand, with the fleet token). */
  fleetDemand: () => Promise<FleetDemand>;
  redis: Redis;
  apiKeys: ApiKeyStore;
  router: SessionRouter;
  metrics: GatewayMetrics;
  audit: AuditLog;
  killSwitch: KillSwitch;
  quotas: TenantQuotas;
  log: Logger;
}

export function createApp({ config, fleetDemand, redis, apiKeys, router, metrics, audit, killSwitch, quotas, log }: AppDeps) {
  const app = new Hono<AuthEnv>();
  const auditCall = createCallAuditor({ audit, log, metrics, keepText: config.audit.keepText });
  const mcp = createMcpEndpoint(createServerFactory({ router, metrics, log, auditCall, killSwitch, quotas }), {
    maxBodyBytes: config.maxBodyBytes,
    onerror: (error) => log.debug({ err: error.message }, 'mcp request rejected'),
  });

  app.use(hostOriginCheck({ allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins }));
  // Liveness: the process answers. It says nothing of Redis (a restart would not bring Redis back).
  app.get('/healthz', (c) => c.json({ ok: true }));
  // Readiness: Redis answers, within READY_PING_MS; a connection known to be down answers 503 at once.
  app.get('/readyz', async (c) => {
    const redisOk = await redisAnswers(redis, READY_PING_MS);
    return c.json({ ready: redisOk, redis: redisOk }, redisOk ? 200 : 503);
  });

  app.use(
    declaredBodyLimit({
      maxSize: config.maxBodyBytes,
      onError: () => {
        throw new ApiError(413, 'payload_too_large', `Request bodies are limited to ${config.maxBodyBytes} bytes.`);
      },
    }),
  );
  // Autoscalers authenticate with the fleet token, not a tenant's key.
  app.get('/v1/fleet/demand', fleetDemandRoute(config.fleet.token, fleetDemand));
  // The web console authenticates by its own session cookie, so it is mounted before the bearer check.
  app.route('/console', consoleApp({ settings: config.console, redis, apiKeys, router, audit, approvals: new ApprovalStore(redis), killSwitch, auditCall, log }));
  app.use(bearerAuth({ verify: (key) => apiKeys.verify(key) }));

  app.get('/metrics', requireRole(...CAN.readMetrics), () => metricsResponse(metrics.registry));

  const serveMcp = (path: string, surface: Surface) =>
    app.all(path, requireRole(...CAN.driveDesktops), async (c) => {
      const session = sessionFrom(c, DEFAULT_SESSION);
      // ?coordinate_mode= picks a new session's coordinate space; Anthropic's tool is pixels only.
      const mode = c.req.query('coordinate_mode') ?? 'pixels';
      const allowed: readonly string[] = surface === 'computer' ? ['pixels'] : COORDINATE_MODES;
      if (!allowed.includes(mode)) throw new ApiError(400, 'bad_coordinate_mode', `coordinate_mode must be one of: ${allowed.join(', ')}.`);
      // ?screenshot_after=settled: native tools that act reply with a settled screenshot (/computer always does).
      const after = c.req.query('screenshot_after');
      if (after !== undefined && (surface !== 'native' || !(SCREENSHOT_AFTER as readonly string[]).includes(after))) {
        throw new ApiError(400, 'bad_screenshot_after', surface === 'native' ? `screenshot_after must be one of: ${SCREENSHOT_AFTER.join(', ')}.` : 'screenshot_after is for /mcp; the computer tool always replies with a settled screenshot.');
      }
      // ?platform=macos: a new session only on a worker of that platform (docs/macos.md); the
      // caller's own session only, so nothing of another tenant is reachable through it.
      const platform = c.req.query('platform');
      if (platform !== undefined && !(PLATFORMS as readonly string[]).includes(platform)) throw new ApiError(400, 'bad_platform', `platform must be one of: ${PLATFORMS.join(', ')}.`);
      const scope: CallScope = {
        ref: { tenant: c.var.principal.tenant, name: session },
        keyId: c.var.principal.keyId,
        controller: controllerOf(c),
        surface,
        coordinateMode: mode as CoordinateMode,
        ...(after ? { screenshotAfter: after as ScreenshotAfter } : {}),
        ...(platform ? { platform: platform as Platform } : {}),
      };
      return mcp(c.req.raw, { token: 'redacted', clientId: c.var.principal.keyId, scopes: [], extra: { scope } });
    });
  serveMcp('/mcp', 'native');
  serveMcp('/mcp/:session', 'native');
  // Anthropic's `computer` tool, for agent loops written against it; same sessions, same gates.
  serveMcp('/computer', 'computer');
  serveMcp('/computer/:session', 'computer');

  app.route('/', sessionRoutes(router));
  app.get('/v1/sessions/:session/audit', requireRole(...CAN.readAudit), auditRoute(audit));
  app.route('/', lockRoutes(router, new DesktopLocks(redis)));
  app.route('/', approvalRoutes(new ApprovalStore(redis)));
  app.route('/', killSwitchRoutes(killSwitch));
  app.route('/', keyRoutes(apiKeys));

  app.notFound(() => {
    throw new ApiError(404, 'not_found', 'No such route. MCP is served at /mcp and /computer; the control API under /v1.');
  });
  app.onError(renderErrors(log));
  return app;
}
