/**
 * BullMQ consumers for session lifecycle: allocations from the shared queue, releases from
 * this worker's own queue.
 *
 * Allocations are fetched by hand, one fetch at a time and only while the pool has room (an
 * allocation under way counts against it at once, so several desktops start in parallel but
 * never beyond the limit): a full worker leaves them queued, so a new session waits for a desktop instead of failing, and
 * the fetch that resumes when a desktop is released (the pool says so at once) blocks on the
 * queue, so a waiting allocation is taken within milliseconds — no polling, and never by a
 * worker that would have to refuse it.
 */
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { ALLOCATE_GRACE_MS, allocateJob, keys, lifecycleQueueFor, releaseJob, workerQueueName, type Platform } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DesktopPool } from '../desktops/desktop-pool.ts';

/** An allocation's lock, renewed while it runs (a desktop starts in ~1 s; its steps time out at 10 s). */
const LOCK_MS = 30_000;
/** After a Redis error, wait this long before fetching again. */
const RETRY_MS = 500;

/** `platform`: the worker's; it takes allocations only from its platform's queue (platform.ts). */
export function startLifecycleWorkers(pool: DesktopPool, redis: Redis, workerId: string, log: Logger, platform: Platform = 'linux') {
  const prefix = keys.bullPrefix();
  // No processor: the loop below fetches. drainDelay is how long one blocking fetch lasts.
  const allocations = new Worker(lifecycleQueueFor(platform), null, { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix, lockDuration: LOCK_MS, drainDelay: 5 });
  const release = new Worker(
    workerQueueName(workerId),
    async (job: Job) => {
      const data = releaseJob.parse(job.data);
      return { released: await pool.release(data.desktopId) };
    },
    { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix, concurrency: 1 },
  );
  for (const worker of [allocations, release]) worker.on('error', (error) => log.error({ err: error }, 'lifecycle worker error'));
  release.on('failed', (job, error) => log.warn({ job: job?.name, err: error.message }, 'lifecycle job failed'));

  const stopping = new AbortController();
  // Stalled allocations (their worker died mid-way) go back to the queue for another worker.
  void allocations.startStalledCheckTimer().catch((error: unknown) => log.error({ err: error }, 'stalled-job check failed'));

  async function allocate(job: Job, token: string): Promise<void> {
    const renew = setInterval(() => void job.extendLock(token, LOCK_MS).catch(() => undefined), LOCK_MS / 3);
    try {
      const data = allocateJob.parse(job.data);
      // Found long after its caller stopped waiting (a gateway gone before withdrawing it).
      if (job.attemptsMade === 0 && data.waitUntil !== undefined && Date.now() > data.waitUntil + ALLOCATE_GRACE_MS) {
        throw new UnrecoverableError('its caller stopped waiting before a desktop was free');
      }
      const desktopId = await pool.allocate({ tenant: data.tenant, name: data.session }, data.coordinateMode);
      await job.moveToCompleted({ desktopId }, token, false);
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      log.warn({ job: job.name, err: err.message }, 'lifecycle job failed');
      await job.moveToFailed(err, token, false).catch((e: unknown) => log.error({ err: e }, 'could not fail an allocation job'));
    } finally {
      clearInterval(renew);
    }
  }

  const underWay = new Set<Promise<void>>();
  const loop = (async () => {
    let n = 0;
    while (!stopping.signal.aborted) {
      if (!pool.ready) break;
      if (!pool.hasRoom) {
        await pool.whenRoom(stopping.signal);
        continue;
      }
      const token = `${workerId}:${n++}`;
      let job: Job | undefined;
      try {
        job = await allocations.getNextJob(token, { block: true });
      } catch (error) {
        if (stopping.signal.aborted) break;
        log.error({ err: error }, 'could not fetch an allocation');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      if (!job) continue;
      if (stopping.signal.aborted) {
        // Taken as the worker stops: back to the queue for another worker.
        await job.moveToWait(token).catch(() => undefined);
        break;
      }
      // Not awaited: the next fetch runs while this desktop starts (the pool counts it already).
      const running = allocate(job, token);
      underWay.add(running);
      void running.finally(() => underWay.delete(running));
    }
    await Promise.all(underWay);
  })();

  let allocationsStopped: Promise<void> | null = null;
  /** Stops taking allocations; one under way finishes (the pool refuses it once draining or closed, and it goes to another worker). */
  const stopAllocating = () =>
    (allocationsStopped ??= (async () => {
      stopping.abort();
      // force: the blocking fetch is cut at once instead of running out its drainDelay.
      await allocations.close(true);
      await loop;
    })());

  return {
    stopAllocating,
    /**
     * Stops taking jobs: allocations first, then releases (a draining worker keeps taking its
     * own releases until its desktops are gone, so none is left queued for a worker that is gone).
     */
    async close() {
      await Promise.all([stopAllocating(), release.close()]);
    },
  };
}
