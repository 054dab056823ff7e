/**
 * The worker process: owns desktops on this host, consumes lifecycle jobs and runs actions.
 * SIGINT/SIGTERM tear every desktop down before exiting.
 */
import { serve } from '@hono/node-server';
import { Redis } from 'ioredis';
import { createLogger } from '@deskgate/dispatch';
import { loadConfig } from './config.ts';
import { DesktopPool } from './desktops/desktop-pool.ts';
import { ProcessDesktopProvider } from './desktops/process-provider.ts';
import { createHealthApp } from './http/health-app.ts';
import { createWorkerMetrics } from './http/metrics.ts';
import { loadPolicyFile } from './policy/policy-file.ts';
import { startLifecycleWorkers } from './lifecycle/lifecycle-workers.ts';

const config = loadConfig();
const log = createLogger('deskgate-worker', config.logLevel, { worker: config.workerId });
log.info({ maxDesktops: config.maxDesktops, why: config.maxDesktopsReason }, `capacity: ${config.maxDesktops} desktops`);
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
const metrics = createWorkerMetrics();
const pool = new DesktopPool(config, new ProcessDesktopProvider(config.windowManager, log), redis, metrics, log, loadPolicyFile(config.policyFile));

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
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'worker stopping');
  ready = false;
  await lifecycle.close().catch(() => undefined);
  await pool.close();
  http.close();
  redis.disconnect();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
