/**
 * Session lifecycle over BullMQ: `allocate` goes to the shared queue (any worker with room
 * takes it); `release` goes to the owning worker's own queue, since only it can tear its
 * desktop down. Jobs carry names only, never images.
 */
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { COORDINATE_MODES, ToolError, type CoordinateMode } from '@deskgate/computer-use';
import { keys, LIFECYCLE_QUEUE } from './keys.ts';
import type { SessionRef } from './names.ts';

/** coordinateMode: the new session's coordinate mode, fixed for its life (absent = pixels). */
export const allocateJob = z.object({ tenant: z.string(), session: z.string(), coordinateMode: z.enum(COORDINATE_MODES).optional() });
export const allocateResult = z.object({ desktopId: z.string() });
export const releaseJob = z.object({ tenant: z.string(), session: z.string(), desktopId: z.string() });

export const workerQueueName = (workerId: string) => `worker-${workerId}`;

export class LifecycleClient {
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly workerQueues = new Map<string, Queue>();
  /**
   * BullMQ loads its Lua scripts onto the connection it is given, and ioredis copies every
   * loaded script into each MULTI it builds; a connection of its own keeps the caller's
   * connection (the per-call hot path) lean.
   */
  private readonly bull: Redis;

  constructor(redis: Redis) {
    const prefix = keys.bullPrefix();
    this.bull = redis.duplicate();
    this.queue = new Queue(LIFECYCLE_QUEUE, { connection: this.bull, prefix });
    this.events = new QueueEvents(LIFECYCLE_QUEUE, { connection: redis.duplicate(), prefix });
  }

  async ready(): Promise<void> {
    await this.events.waitUntilReady();
  }

  async allocate(ref: SessionRef, timeoutMs: number, coordinateMode: CoordinateMode = 'pixels'): Promise<string> {
    const job = await this.queue.add('allocate', { tenant: ref.tenant, session: ref.name, coordinateMode }, {
      attempts: 3,
      backoff: { type: 'fixed', delay: 250 },
      removeOnComplete: { age: 300 },
      removeOnFail: { age: 3600 },
    });
    try {
      return allocateResult.parse(await job.waitUntilFinished(this.events, timeoutMs)).desktopId;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolError('desktop_unavailable', `No desktop could be started for session "${ref.name}": ${reason}`);
    }
  }

  async release(ref: SessionRef, desktopId: string, workerId: string): Promise<void> {
    let queue = this.workerQueues.get(workerId);
    if (!queue) {
      queue = new Queue(workerQueueName(workerId), { connection: this.bull, prefix: keys.bullPrefix() });
      this.workerQueues.set(workerId, queue);
    }
    await queue.add('release', { tenant: ref.tenant, session: ref.name, desktopId }, { removeOnComplete: true, removeOnFail: { age: 3600 } });
  }

  async close(): Promise<void> {
    await Promise.all([this.queue.close(), this.events.close(), ...[...this.workerQueues.values()].map((q) => q.close())]);
    this.bull.disconnect();
  }
}
