/**
 * The gateway process: wires Redis, the lifecycle queue and the action channel, then listens.
 * SIGTERM drains: /readyz answers 503 at once and new connections are refused; requests in
 * flight get DESKGATE_DRAIN_SECONDS to finish, and a request that arrives on a connection
 * already open is still served, with `Connection: close` (closing a kept-alive connection under a
 * client between two of its requests would fail the second without an answer); SIGINT stops at once.
 * A gateway holds no session state, so its sessions carry on through the others.
 */
import net from 'node:net';
import { serve } from '@hono/node-server';
import { ActionClient, AuditLog, DesktopRegistry, KillSwitch, LifecycleClient, SessionStore, TenantQuotas, createLogger, createRedis, fleetDemand, readWorkerCapacities } from '@deskgate/dispatch';
import { handleStopSignals, withinMs } from '@deskgate/service-kit';
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
if (config.directReplies) {
  const route = await actions.listenForReplies(config.directReplies, log);
  log.info({ host: route.host, port: route.port }, 'direct replies: workers write replies here');
}
// A session being started holds its place in the tenant's quota a little past its wait for a desktop and its allocation timeout.
const quotas = new TenantQuotas(redis, { ...config.quotas, reservationMs: config.desktopWaitMs + config.allocateTimeoutMs + 10_000 });
// What the fleet needs, for autoscalers (the demand route and the fleet gauges).
const readDemand = async () => fleetDemand(await readWorkerCapacities(redis), await lifecycle.waitingSessions(), config.fleet);
const metrics = createGatewayMetrics(readDemand, () => actions.settled);
const router = new SessionRouter(
  {
    redis,
    sessions: new SessionStore(redis),
    desktops: new DesktopRegistry(redis),
    lifecycle,
    actions,
    quotas,
    log,
    onDesktopWait: (ms, outcome) => metrics.desktopWaitSeconds.observe({ outcome }, ms / 1000),
  },
  config,
);
const audit = new AuditLog(redis, { maxEntries: config.audit.maxEntries, ttlSeconds: config.audit.ttlSeconds });
const killSwitch = new KillSwitch(redis);
const app = createApp({ config, fleetDemand: readDemand, redis, apiKeys: new ApiKeyStore(redis), router, metrics, audit, killSwitch, quotas, log });

let draining = false;
/** Requests in flight, counted until their response is sent (an SSE stream included). */
let inFlight = 0;
/** While draining (not async otherwise: @hono/node-server answers a ready Response on a faster path). */
const fetch = (request: Request, env: unknown) => (draining ? fetchWhileDraining(request, env) : app.fetch(request, env as never));
async function fetchWhileDraining(request: Request, env: unknown): Promise<Response> {
  // Load balancers see not-ready at once. A request on a connection that was already open is
  // served, and its connection closed after the answer: the client's next request opens a new
  // one, to a gateway that is not leaving (a gateway holds no session state).
  if (new URL(request.url).pathname === '/readyz') {
    return new Response(JSON.stringify({ ready: false, draining: true }), { status: 503, headers: { 'content-type': 'application/json', connection: 'close' } });
  }
  const response = await app.fetch(request, env as never);
  const headers = new Headers(response.headers);
  headers.set('connection', 'close');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

const server = serve({ fetch, hostname: config.host, port: config.port }, (info) => {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  // The sandbox launcher and the tests read this line, whatever the log level.
  log.child({}, { level: 'info' }).info({ url: `http://${host}:${info.port}/mcp` }, 'gateway listening');
});

/**
 * How long a kept-alive connection may sit idle before the gateway closes it. Longer than the
 * idle timeouts of the proxies and load balancers in front of it (ingress-nginx keeps upstream
 * connections 60 s by default, as do AWS load balancers) and of HTTP clients' pools: whoever closes an
 * idle connection must be the client side, or a request it sends just then on a connection the
 * gateway closed fails (a 502 from the proxy, "fetch failed" from a client). Node's own is 5 s.
 */
const KEEP_ALIVE_MS = 65_000;
const httpServer = server as unknown as { keepAliveTimeout: number };
httpServer.keepAliveTimeout = KEEP_ALIVE_MS;

server.on('request', (_request, response) => {
  inFlight++;
  response.once('close', () => inFlight--);
});

/** Past the drain, closing the queues and Redis gets this long before the process exits regardless. */
const TEARDOWN_BOUND_MS = 3000;
/**
 * How long a drain keeps open connections that carry no request, for a request already on its
 * way; then they close, so what the drain serves is what arrived by then, with the rest of the
 * drain to finish (a request arriving near its end could be cut after it ran).
 */
const IDLE_CONNECTION_GRACE_MS = 1000;

handleStopSignals({
  service: 'gateway',
  log,
  drainMs: config.drainMs,
  teardownMs: TEARDOWN_BOUND_MS,
  async stop(signal, drainMs) {
    const started = performance.now();
    draining = true;
    log.info({ signal, drainMs, inFlight }, drainMs > 0 ? 'gateway draining' : 'gateway stopping');
    // No new connections. http.Server.close() would also close every idle kept-alive one at
    // once, racing any request a client is sending on it: only the listener closes here.
    net.Server.prototype.close.call(server);
    // The action channel keeps reading replies while requests in flight finish; connections
    // without a request stay a moment, for one already on its way.
    const connections = server as unknown as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
    const waitUntil = performance.now() + drainMs;
    const graceUntil = performance.now() + Math.min(drainMs, IDLE_CONNECTION_GRACE_MS);
    let idleClosed = false;
    while ((inFlight > 0 || performance.now() < graceUntil) && performance.now() < waitUntil) {
      if (!idleClosed && performance.now() >= graceUntil) {
        // From here no request can arrive: busy connections close after their answer.
        connections.closeIdleConnections?.();
        idleClosed = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (drainMs > 0) log.info({ cutOff: inFlight, ms: Math.round(performance.now() - started) }, inFlight > 0 ? `drain: ${inFlight} requests still running were cut off` : 'drain: every request in flight finished');
    connections.closeAllConnections?.();
    // Closing the queues talks to Redis, which may be gone (a sandbox's Ctrl-C): a second at most.
    await withinMs(Promise.all([actions.close(), lifecycle.close()]), 1000);
    redis.disconnect();
    log.info({ ms: Math.round(performance.now() - started) }, 'gateway stopped');
  },
});
