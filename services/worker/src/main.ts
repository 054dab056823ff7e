/**
 * The worker process: owns desktops on this host, consumes lifecycle jobs and runs actions.
 * SIGINT/SIGTERM tear every desktop down before exiting.
 */
import { serve } from '@hono/node-server';
import { createLogger, createRedis } from '@deskgate/dispatch';
import { loadConfig } from './config.ts';
import { DesktopPool } from './desktops/desktop-pool.ts';
import { ContainerDesktopProvider } from './desktops/container-provider.ts';
import { ProcessDesktopProvider } from './desktops/process-provider.ts';
import type { DesktopProvider } from './desktops/provider.ts';
import { createHealthApp } from './http/health-app.ts';
import { createWorkerMetrics } from './http/metrics.ts';
import { loadPolicyFile } from './policy/policy-file.ts';
import { startLifecycleWorkers } from './lifecycle/lifecycle-workers.ts';

const config = loadConfig();
const log = createLogger('deskgate-worker', config.logLevel, { worker: config.workerId });
log.info({ maxDesktops: config.maxDesktops, why: config.maxDesktopsReason }, `capacity: ${config.maxDesktops} desktops`);
const redis = createRedis(config.redisUrl, 'worker');
const metrics = createWorkerMetrics();
const provider: DesktopProvider =
  config.desktopProvider === 'container'
    ? new ContainerDesktopProvider({ workerId: config.workerId, ...config.container, maxProcesses: config.desktopMaxProcesses, panel: config.desktopPanel }, log)
    : new ProcessDesktopProvider(config.windowManager, log);
await provider.prepare();
log.info({ provider: provider.kind }, `desktops run as ${provider.kind === 'container' ? `containers of ${config.container.image}` : 'local processes'}`);
const pool = new DesktopPool(config, provider, redis, metrics, log, loadPolicyFile(config.policyFile));

let ready = false;
const port = Number(process.env.DESKGATE_WORKER_PORT ?? 0);
const http = serve({ fetch: createHealthApp(metrics, () => ready && pool.ready).fetch, port, hostname: '127.0.0.1' }, (info) =>
  log.info({ port: info.port }, 'worker health endpoint listening'),
);

await pool.fillSpares();
const lifecycle = startLifecycleWorkers(pool, redis, config.workerId, log);
ready = true;
// Readiness is announced whatever the log level: launchers wait for this line.
log.child({}, { level: 'info' }).info({ maxDesktops: config.maxDesktops, warm: config.warmDesktops, size: config.desktopSize }, 'worker ready');

let stopping = false;
/**
 * Stops taking jobs and tears every desktop down, in parallel (calls running are answered at
 * once); logs how long each part took. Redis may already be gone: nothing here waits on it
 * for more than a bound.
 */
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  const started = performance.now();
  const took = (since: number) => Math.round(performance.now() - since);
  log.info({ signal }, 'worker stopping');
  ready = false;
  const ms: Record<string, number> = {};
  // BullMQ's close talks to Redis, which may be gone: it gets a second.
  const lifecycleClosed = Promise.race([lifecycle.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  await Promise.all([
    lifecycleClosed.then(() => (ms.lifecycle = took(started))),
    pool.close().then(() => (ms.desktops = took(started))),
  ]);
  http.close();
  redis.disconnect();
  log.info({ ms: { ...ms, total: took(started) } }, 'worker stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
