/** The gateway process: wires Redis, the lifecycle queue and the action channel, then listens. */
import { serve } from '@hono/node-server';
import { ActionClient, AuditLog, DesktopRegistry, KillSwitch, LifecycleClient, SessionStore, TenantQuotas, createLogger, createRedis } from '@deskgate/dispatch';
import { createApp } from './app.ts';
import { ApiKeyStore } from './auth/api-keys.ts';
import { loadConfig } from './config.ts';
import { createGatewayMetrics } from './http/metrics.ts';
import { SessionRouter } from './sessions/session-router.ts';

const config = loadConfig();
const log = createLogger('deskgate-gateway', config.logLevel);
// Every command times out, calls fail at once while Redis is down, and it reconnects by itself (docs/redis.md).
const redis = createRedis(config.redisUrl, 'gateway');
let redisDown = false;
redis.on('close', () => {
  if (!redisDown) log.warn('redis unreachable: calls get 503/unavailable until it is back; reconnecting');
  redisDown = true;
});
redis.on('ready', () => {
  if (redisDown) log.info('redis reachable again');
  redisDown = false;
});
const lifecycle = new LifecycleClient(redis);
await lifecycle.ready();
const actions = new ActionClient(redis, { lockLeaseMs: config.lockLeaseMs });
// A session being started holds its place in the tenant's quota a little past its wait for a desktop and its allocation timeout.
const quotas = new TenantQuotas(redis, { ...config.quotas, reservationMs: config.desktopWaitMs + config.allocateTimeoutMs + 10_000 });
const router = new SessionRouter({ redis, sessions: new SessionStore(redis), desktops: new DesktopRegistry(redis), lifecycle, actions, quotas, log }, config);
const audit = new AuditLog(redis, { maxEntries: config.audit.maxEntries, ttlSeconds: config.audit.ttlSeconds });
const killSwitch = new KillSwitch(redis);
const app = createApp({ config, redis, apiKeys: new ApiKeyStore(redis), router, metrics: createGatewayMetrics(), audit, killSwitch, quotas, log });

const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  // The sandbox launcher and the tests read this line, whatever the log level.
  log.child({}, { level: 'info' }).info({ url: `http://${host}:${info.port}/mcp` }, 'gateway listening');
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  const started = performance.now();
  log.info({ signal }, 'gateway stopping');
  server.close();
  // Closing the queues talks to Redis, which may be gone (a sandbox's Ctrl-C): a second at most.
  const closed = Promise.all([actions.close().catch(() => undefined), lifecycle.close().catch(() => undefined)]);
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  redis.disconnect();
  log.info({ ms: Math.round(performance.now() - started) }, 'gateway stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
