/**
 * The gateway's HTTP surface. createApp only wires; main.ts listens. Every route but the
 * health probes passes Host/Origin validation, the body limit and API-key authentication.
 */
import { Hono } from 'hono';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/hono';
import { COORDINATE_MODES, type CoordinateMode, type Surface } from '@deskgate/computer-use';
import { ApprovalStore, DEFAULT_SESSION, DesktopLocks, type AuditLog } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ApiKeyStore } from './auth/api-keys.ts';
import type { GatewayConfig } from './config.ts';
import type { GatewayMetrics } from './http/metrics.ts';
import { accessRoutes } from './http/access-routes.ts';
import { auditRoute } from './http/audit-route.ts';
import { lockRoutes } from './http/lock-routes.ts';
import { KillSwitch } from '@deskgate/dispatch';
import { createCallAuditor } from './mcp/call-auditor.ts';
import { createMcpEndpoint } from './mcp/mcp-endpoint.ts';
import { createServerFactory, type CallScope } from './mcp/server-factory.ts';
import { bearerAuth, type AuthEnv } from './middleware/bearer-auth/index.ts';
import { declaredBodyLimit } from './middleware/declared-body-limit/index.ts';
import { controllerOf } from './sessions/controller.ts';
import { sessionFrom } from './sessions/session-param.ts';
import type { SessionRouter } from './sessions/session-router.ts';

export interface AppDeps {
  config: GatewayConfig;
  redis: Redis;
  apiKeys: ApiKeyStore;
  router: SessionRouter;
  metrics: GatewayMetrics;
  audit: AuditLog;
  log: Logger;
}

export function createApp({ config, redis, apiKeys, router, metrics, audit, log }: AppDeps) {
  const app = new Hono<AuthEnv>();
  const auditCall = createCallAuditor(audit, log, { keepText: config.audit.keepText });
  const killSwitch = new KillSwitch(redis);
  const mcp = createMcpEndpoint(createServerFactory({ router, metrics, log, auditCall, killSwitch }), {
    maxBodyBytes: config.maxBodyBytes,
    onerror: (error) => log.debug({ err: error.message }, 'mcp request rejected'),
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', async (c) => {
    const redisOk = await redis.ping().then(() => true, () => false);
    return c.json({ ready: redisOk, redis: redisOk }, redisOk ? 200 : 503);
  });
  app.get('/metrics', async (c) => c.text(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType }));

  const guarded = new Hono<AuthEnv>();
  if (config.allowedHosts) guarded.use(hostHeaderValidation(config.allowedHosts));
  guarded.use(originValidation(config.allowedOrigins));
  guarded.use(
    declaredBodyLimit({
      maxSize: config.maxBodyBytes,
      onError: (c) => c.json({ error: 'payload_too_large', message: `Request bodies are limited to ${config.maxBodyBytes} bytes.` }, 413),
    }),
  );
  guarded.use(bearerAuth({ verify: (key) => apiKeys.verify(key) }));

  const serveMcp = (name: string, surface: Surface) =>
    guarded.all(name, async (c) => {
      const session = sessionFrom(c, DEFAULT_SESSION);
      if (!session.ok) return session.response;
      // ?coordinate_mode= picks a new session's coordinate space; Anthropic's tool is pixels only.
      const mode = c.req.query('coordinate_mode') ?? 'pixels';
      const allowed: readonly string[] = surface === 'computer' ? ['pixels'] : COORDINATE_MODES;
      if (!allowed.includes(mode)) {
        return c.json({ error: 'bad_coordinate_mode', message: `coordinate_mode must be one of: ${allowed.join(', ')}.` }, 400);
      }
      const controller = controllerOf(c);
      if (!controller.ok) return controller.response;
      const scope: CallScope = {
        ref: { tenant: c.var.principal.tenant, name: session.value },
        keyId: c.var.principal.keyId,
        controller: controller.value,
        surface,
        coordinateMode: mode as CoordinateMode,
      };
      return mcp(c.req.raw, { token: 'redacted', clientId: c.var.principal.keyId, scopes: [], extra: { scope } });
    });
  serveMcp('/mcp', 'native');
  serveMcp('/mcp/:session', 'native');
  // Anthropic's `computer` tool, for agent loops written against it; same sessions, same gates.
  serveMcp('/computer', 'computer');
  serveMcp('/computer/:session', 'computer');

  guarded.get('/v1/sessions', async (c) => c.json({ sessions: await router.list(c.var.principal.tenant) }));
  guarded.delete('/v1/sessions/:session', async (c) => {
    const session = sessionFrom(c);
    if (!session.ok) return session.response;
    const ended = await router.end({ tenant: c.var.principal.tenant, name: session.value });
    return ended ? c.json({ ended: session.value }) : c.json({ error: 'not_found', message: `No session "${session.value}".` }, 404);
  });

  guarded.get('/v1/sessions/:session/audit', auditRoute(audit));
  guarded.route('/', lockRoutes(router, new DesktopLocks(redis)));
  guarded.route('/', accessRoutes(new ApprovalStore(redis), killSwitch));

  app.route('/', guarded);
  app.onError((error, c) => {
    log.error({ err: error }, 'unhandled gateway error');
    return c.json({ error: 'internal', message: 'deskgate hit an internal error; the gateway logged the cause.' }, 500);
  });
  return app;
}
