/**
 * The worker process: owns desktops on this host, consumes lifecycle jobs and runs actions.
 * SIGTERM drains (no new session or call; calls running get DESKGATE_DRAIN_SECONDS to
 * finish), then tears every desktop down; SIGINT tears them down at once (calls running are
 * answered worker_lost). Either way it exits 0 (docs/architecture.md, "Drain and failover").
 */
import { serve } from '@hono/node-server';
import { advertiseWorker, createLogger, createRedis, sweepDeadWorkerQueues } from '@deskgate/dispatch';
import { handleStopSignals, withinMs } from '@deskgate/service-kit';
import { loadConfig } from './config.ts';
import { DesktopPool } from './desktops/desktop-pool.ts';
import { BareMetalDesktopProvider, bareMetalCapabilities, bareMetalSettings } from './desktops/bare-metal-provider.ts';
import { ContainerDesktopProvider } from './desktops/container-provider.ts';
import { ProcessDesktopProvider } from './desktops/process-provider.ts';
import type { DesktopProvider } from './desktops/provider.ts';
import { createHealthApp } from './http/health-app.ts';
import { createWorkerMetrics, heldDesktops } from './http/metrics.ts';
import { startPodDeletionCost } from './kubernetes/start-deletion-cost.ts';
import { loadPolicyFile } from './policy/policy-file.ts';
import { startLifecycleWorkers } from './lifecycle/lifecycle-workers.ts';

const config = loadConfig();
const log = createLogger('deskgate-worker', config.logLevel, { worker: config.workerId });
log.info({ maxDesktops: config.maxDesktops, why: config.maxDesktopsReason }, `capacity: ${config.maxDesktops} desktops`);
const redis = createRedis(config.redisUrl, 'worker');
const metrics = createWorkerMetrics();
// Bare metal: the machine's one console (docs/macos.md), so one desktop and at most one spare.
const bareMetal = config.desktopProvider === 'bare-metal' ? new BareMetalDesktopProvider(bareMetalSettings(), log) : null;
if (bareMetal) Object.assign(config, { maxDesktops: 1, warmDesktops: Math.min(config.warmDesktops, 1), maxDesktopsReason: 'bare metal: the one console' });
const platform = bareMetal?.platform ?? 'linux';
advertiseWorker(config.workerId, { platform, capabilities: bareMetal ? bareMetalCapabilities(platform) : ['x11', 'xtest', 'settle', `desktops_${config.desktopProvider}`] });
const provider: DesktopProvider =
  bareMetal ??
  (config.desktopProvider === 'container'
    ? new ContainerDesktopProvider({ workerId: config.workerId, ...config.container, maxProcesses: config.desktopMaxProcesses, panel: config.desktopPanel }, log)
    : new ProcessDesktopProvider(config.windowManager, log));
await provider.prepare();
log.info({ provider: provider.kind, platform }, `desktops run as ${provider.kind === 'container' ? `containers of ${config.container.image}` : provider.kind === 'bare-metal' ? `this machine's console (${platform})` : 'local processes'}`);
const pool = new DesktopPool(config, provider, redis, metrics, log, loadPolicyFile(config.policyFile));

let ready = false;
// Started once the first spares are up (below), unless a stop came first.
let lifecycle: ReturnType<typeof startLifecycleWorkers> | undefined;
let deletionCost: ReturnType<typeof startPodDeletionCost> | null = null;
/** Past the drain bound, teardown gets this long before the process exits regardless. */
const TEARDOWN_BOUND_MS = 5000;
const http = serve({ fetch: createHealthApp(metrics, () => ready && pool.ready).fetch, port: config.health.port, hostname: config.health.host }, (info) =>
  log.info({ host: config.health.host, port: info.port }, 'worker health endpoint listening'),
);

/**
 * SIGTERM (drain): takes no new allocation and withdraws its room at once; its desktops take
 * no new call (answered worker_lost, nothing run, the session moves elsewhere on its next
 * call); calls running get `drainSeconds` to finish, whatever still runs then is answered
 * worker_lost. SIGINT: all of that at once. Then every desktop is torn down, in parallel; logs
 * how long each part took. Redis may already be gone: nothing here waits on it for more than
 * a bound, and the process exits within the drain bound plus TEARDOWN_BOUND_MS whatever hangs.
 */
handleStopSignals({
  service: 'worker',
  log,
  drainMs: config.drainMs,
  teardownMs: TEARDOWN_BOUND_MS,
  async stop(signal, drainMs) {
    const started = performance.now();
    const took = (since: number) => Math.round(performance.now() - since);
    log.info({ signal, drainMs }, drainMs > 0 ? 'worker draining' : 'worker stopping');
    ready = false;
    void deletionCost?.stop();
    const ms: Record<string, number> = {};
    // BullMQ's close talks to Redis, which may be gone: it gets a second.
    const allocationsStopped = withinMs(lifecycle?.stopAllocating() ?? Promise.resolve(), 1000).then(() => (ms.allocations = took(started)));
    // SIGINT: every desktop torn down at once, in parallel (no drain step before it).
    const drained = (drainMs > 0 ? pool.drain(drainMs) : pool.close().then(() => ({ waitedMs: 0, cutOff: 0 }))).then(({ waitedMs, cutOff }) => {
      ms.desktops = took(started);
      if (drainMs > 0) log.info({ waitedMs, cutOff }, cutOff > 0 ? `drain: ${cutOff} calls still running after ${drainMs / 1000} s were answered worker_lost` : 'drain: every running call finished');
    });
    await Promise.all([allocationsStopped, drained]);
    // Releases are taken until the desktops are gone (a session ended during the drain).
    if (lifecycle) await withinMs(lifecycle.close(), 1000);
    ms.lifecycle = took(started);
    // Every desktop is gone: the watchdog need not start a reaper to find nothing.
    await provider.retire?.().catch((error: unknown) => log.warn({ err: error }, 'watchdog not stood down (it reaps on exit instead)'));
    http.close();
    redis.disconnect();
    log.info({ ms: { ...ms, total: took(started) } }, 'worker stopped');
  },
});

// The stop handlers are in place before the first spares start: a stop while they start gives
// the starts up and leaves nothing (the lifecycle workers are then never started).
let stopRequested = false;
process.once('SIGINT', () => (stopRequested = true)).once('SIGTERM', () => (stopRequested = true));
await pool.fillSpares();
if (!stopRequested) {
  // Queues of workers gone for good (a crash, a pod replaced under a new id) are swept, in the background.
  sweepDeadWorkerQueues(redis, config.workerId).then(
    (swept) => swept.length > 0 && log.info({ workers: swept }, `swept the release queues of ${swept.length} workers that are gone`),
    (error: unknown) => log.warn({ err: error }, 'the release queues of gone workers were not swept'),
  );
  lifecycle = startLifecycleWorkers(pool, redis, config.workerId, log, platform);
  // In Kubernetes: the pod's deletion cost follows the desktops held (the idlest pod goes first on scale-in).
  deletionCost = config.pod ? startPodDeletionCost(config.pod, () => heldDesktops(metrics), metrics, log) : null;
  ready = true;
  // Readiness is announced whatever the log level: launchers wait for this line.
  log.child({}, { level: 'info' }).info({ maxDesktops: config.maxDesktops, warm: config.warmDesktops, size: config.desktopSize }, 'worker ready');
}
