/**
 * BullMQ consumers for session lifecycle: allocations from the shared queue, releases from
 * this worker's own queue. A worker at capacity fails the job so the retry can land on a
 * worker with room.
 */
import { Worker, type Job } from 'bullmq';
import { LIFECYCLE_QUEUE, allocateJob, keys, releaseJob, workerQueueName } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DesktopPool } from '../desktops/desktop-pool.ts';

export function startLifecycleWorkers(pool: DesktopPool, redis: Redis, workerId: string, log: Logger) {
  const options = { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix: keys.bullPrefix(), concurrency: 1 };
  const allocate = new Worker(
    LIFECYCLE_QUEUE,
    async (job: Job) => {
      const data = allocateJob.parse(job.data);
      return { desktopId: await pool.allocate({ tenant: data.tenant, name: data.session }, data.coordinateMode) };
    },
    options,
  );
  const release = new Worker(
    workerQueueName(workerId),
    async (job: Job) => {
      const data = releaseJob.parse(job.data);
      return { released: await pool.release(data.desktopId) };
    },
    { ...options, connection: redis.duplicate({ maxRetriesPerRequest: null }) },
  );
  for (const worker of [allocate, release]) {
    worker.on('failed', (job, error) => log.warn({ job: job?.name, err: error.message }, 'lifecycle job failed'));
    worker.on('error', (error) => log.error({ err: error }, 'lifecycle worker error'));
  }
  return {
    async close() {
      await Promise.all([allocate.close(), release.close()]);
    },
  };
}
