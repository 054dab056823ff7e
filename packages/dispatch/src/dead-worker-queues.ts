/**
 * Each worker has a BullMQ queue of its own for releases (`worker-<id>`). When a worker stops
 * for good — a crash, or a pod replaced under a new id — its queue's keys would stay in Redis
 * forever. A starting worker sweeps them: the queue of every worker that publishes no room any
 * more (no fresh capacity record) and whose BullMQ consumer no longer checks for stalled jobs
 * (that key lapses one stalled interval, 30 s, after its last check) is obliterated — a worker
 * still starting has the second before it has the first. A queue with a job still running is
 * left (BullMQ refuses), and so is this worker's own. Releases still waiting there were for desktops
 * that died with their worker; a worker that comes back under the same id reaps those itself.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { keys } from './keys.ts';
import { readWorkerCapacities, workerQueueName } from './lifecycle.ts';

const QUEUE_PREFIX = 'worker-';

export async function sweepDeadWorkerQueues(redis: Redis, selfId: string): Promise<string[]> {
  const live = await readWorkerCapacities(redis);
  const prefix = `${keys.bullPrefix()}:`;
  const dead = new Set<string>();
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}${QUEUE_PREFIX}*:meta`, 'COUNT', 500);
    cursor = next;
    for (const key of found) {
      const workerId = key.slice(prefix.length + QUEUE_PREFIX.length, -':meta'.length);
      if (workerId !== selfId && !live.has(workerId) && (await redis.exists(`${prefix}${QUEUE_PREFIX}${workerId}:stalled-check`)) === 0) dead.add(workerId);
    }
  } while (cursor !== '0');
  const swept: string[] = [];
  for (const workerId of dead) {
    const connection = redis.duplicate();
    const queue = new Queue(workerQueueName(workerId), { connection, prefix: keys.bullPrefix() });
    try {
      await queue.obliterate();
      swept.push(workerId);
    } catch {
      // A job still running there: its worker may be alive after all; left for a later sweep.
    } finally {
      await queue.close().catch(() => undefined);
      connection.disconnect();
    }
  }
  return swept;
}
