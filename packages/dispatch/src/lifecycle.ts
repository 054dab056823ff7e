/**
 * Session lifecycle over BullMQ: `allocate` goes to the shared queue (any worker with room
 * takes it); `release` goes to the owning worker's own queue, since only it can tear its
 * desktop down. Jobs carry names only, never images.
 *
 * A worker takes an allocation only while it has room, so when every worker is full the job
 * stays queued — the new session waits for a desktop — and the first worker to free one takes
 * it at once (its fetch blocks on the queue, no polling). The caller waits up to its bound
 * (DESKGATE_DESKTOP_WAIT_SECONDS), then withdraws the job and fails with DesktopsBusyError,
 * which says how many desktops there are and when one may be free: each worker publishes its
 * capacity (`publishCapacity`).
 */
import { Queue, type Job, type QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { COORDINATE_MODES, ToolError, type CoordinateMode } from '@deskgate/computer-use';
import { keys } from './keys.ts';
import { queueEventsFromNow } from './queue-events-from-now.ts';
import { isRedisUnavailable, unavailableToolError } from './redis-connection.ts';
import type { SessionRef } from './names.ts';
import { advertisedBy, lifecycleQueueFor, PLATFORMS, platformSchema, PlatformUnavailableError, type Platform } from './platform.ts';

/**
 * coordinateMode: the new session's coordinate mode, fixed for its life (absent = pixels).
 * waitUntil: when the caller stops waiting for a free desktop (ms since the epoch); a worker
 * drops a job it finds well after that (its caller has gone).
 */
export const allocateJob = z.object({
  tenant: z.string(),
  session: z.string(),
  coordinateMode: z.enum(COORDINATE_MODES).optional(),
  waitUntil: z.number().optional(),
});
export const allocateResult = z.object({ desktopId: z.string() });
export const releaseJob = z.object({ tenant: z.string(), session: z.string(), desktopId: z.string() });

export const workerQueueName = (workerId: string) => `worker-${workerId}`;

/** How late past its waitUntil a worker still serves a job (the caller may be withdrawing it right then). */
export const ALLOCATE_GRACE_MS = 5000;
/** With no wait (DESKGATE_DESKTOP_WAIT_SECONDS=0), how long a worker with room has to take the job. */
const PICKUP_MS = 1000;

/** Each worker's room, published on its heartbeat: `workerId` → JSON WorkerCapacity. */
export const CAPACITY_KEY = 'deskgate:workers:capacity';
/** A worker whose record is older than this is taken for gone. */
export const CAPACITY_FRESH_MS = 10_000;

export const workerCapacity = z.object({
  /** Desktops it runs at most. */
  max: z.number(),
  /** Sessions it could take now (warm spares and room to start desktops). */
  free: z.number(),
  /** When an idle session's desktop is next due to be reaped (ms since the epoch), 0 if none is. */
  nextFreeAt: z.number(),
  /** The kind of desktop it offers; absent (a worker that predates platforms) is linux. */
  platform: platformSchema.optional(),
  /** What its desktops can do (platform.ts, WorkerAdvertisement). */
  capabilities: z.array(z.string()).optional(),
  /** Desktops held by sessions (autoscalers read it: never scale in below these). */
  busy: z.number().default(0),
  /** Warm spares, started and waiting for a session. */
  warm: z.number().default(0),
  /** When this was published. */
  at: z.number(),
});
export type WorkerCapacity = z.infer<typeof workerCapacity>;

/** Every live worker's room, added up. */
export interface Capacity {
  workers: number;
  max: number;
  free: number;
  /** The soonest an idle desktop is due to be reaped, 0 if none is. */
  nextFreeAt: number;
}

export async function publishCapacity(redis: Redis, workerId: string, capacity: Omit<z.input<typeof workerCapacity>, 'at'>): Promise<void> {
  await redis.hset(CAPACITY_KEY, workerId, JSON.stringify({ ...capacity, ...advertisedBy(workerId), at: Date.now() }));
}

export async function withdrawCapacity(redis: Redis, workerId: string): Promise<void> {
  await redis.hdel(CAPACITY_KEY, workerId);
}

/** The live workers' records, by worker id (a record older than CAPACITY_FRESH_MS, or unreadable, is left out). */
export async function readWorkerCapacities(redis: Redis, now = Date.now()): Promise<Map<string, WorkerCapacity>> {
  const live = new Map<string, WorkerCapacity>();
  for (const [workerId, raw] of Object.entries(await redis.hgetall(CAPACITY_KEY))) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    const parsed = workerCapacity.safeParse(value);
    if (parsed.success && now - parsed.data.at <= CAPACITY_FRESH_MS) live.set(workerId, parsed.data);
  }
  return live;
}

export async function readCapacity(redis: Redis, now = Date.now()): Promise<Capacity> {
  const total: Capacity = { workers: 0, max: 0, free: 0, nextFreeAt: 0 };
  for (const worker of (await readWorkerCapacities(redis, now)).values()) {
    total.workers++;
    total.max += worker.max;
    total.free += worker.free;
    if (worker.nextFreeAt > 0 && (total.nextFreeAt === 0 || worker.nextFreeAt < total.nextFreeAt)) total.nextFreeAt = worker.nextFreeAt;
  }
  return total;
}

/** Retry advice when every desktop is in use: when the next idle desktop is due to be reaped, 1–60 s; 30 s when none is. */
export const BUSY_RETRY = { minSeconds: 1, maxSeconds: 60, unknownSeconds: 30 } as const;

export function retryAfterSeconds(capacity: Capacity, now = Date.now()): number {
  if (capacity.nextFreeAt <= 0) return BUSY_RETRY.unknownSeconds;
  return Math.min(BUSY_RETRY.maxSeconds, Math.max(BUSY_RETRY.minSeconds, Math.ceil((capacity.nextFreeAt - now) / 1000)));
}

/** Every worker was full for as long as the caller would wait. */
export class DesktopsBusyError extends Error {
  override readonly name = 'DesktopsBusyError';
  constructor(
    readonly capacity: Capacity,
    readonly waitedMs: number,
  ) {
    super(`all ${capacity.max} desktops of ${capacity.workers} workers are in use (waited ${waitedMs} ms)`);
  }
}

export interface AllocateBounds {
  /** How long to wait for a worker with room (0: fail at once when every worker is full). */
  waitMs: number;
  /** How long a worker may then take to start the desktop. */
  startMs: number;
}

const TIMED_OUT = Symbol('timed out');

export class LifecycleClient {
  /** Each platform's allocation queue, made on first use. */
  private readonly queues = new Map<Platform, Queue>();
  /** Each platform's allocation events, listening from when they were first asked for. */
  private readonly listeners = new Map<Platform, Promise<{ events: QueueEvents; connection: Redis }>>();
  private readonly workerQueues = new Map<string, Queue>();
  /**
   * BullMQ loads its Lua scripts onto the connection it is given, and ioredis copies every
   * loaded script into each MULTI it builds; a connection of its own keeps the caller's
   * connection (the per-call hot path) lean.
   */
  private readonly bull: Redis;

  constructor(private readonly redis: Redis) {
    this.bull = redis.duplicate();
  }

  /** Listening for linux allocations (the default platform's), so the first one waits on nothing. */
  async ready(): Promise<void> {
    await this.eventsFor('linux');
  }

  /** The live workers' room, added up. */
  capacity(): Promise<Capacity> {
    return readCapacity(this.redis);
  }

  /** Sessions waiting for a desktop: allocations no worker has taken yet, on every platform's queue. */
  async waitingSessions(): Promise<number> {
    const counts = await Promise.all(PLATFORMS.map((platform) => this.queueFor(platform).getWaitingCount()));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /**
   * A desktop for a new session: DesktopsBusyError when no worker had room within
   * `bounds.waitMs`; a ToolError (desktop_unavailable) when one could not be started.
   */
  async allocate(ref: SessionRef, bounds: AllocateBounds, coordinateMode: CoordinateMode = 'pixels', platform?: Platform): Promise<string> {
    // A platform asked for by name: only its workers' queue, and at once an error when none offers it.
    if (platform) await this.requireOffered(platform);
    const queue = this.queueFor(platform ?? 'linux');
    if (bounds.waitMs === 0) {
      const capacity = await this.capacity();
      if (capacity.workers > 0 && capacity.free === 0) throw new DesktopsBusyError(capacity, 0);
    }
    const pickupMs = Math.max(bounds.waitMs, PICKUP_MS);
    let events: QueueEvents;
    try {
      events = await this.eventsFor(platform ?? 'linux');
    } catch (error) {
      if (isRedisUnavailable(error)) throw unavailableToolError();
      throw error;
    }
    const job = await queue.add('allocate', { tenant: ref.tenant, session: ref.name, coordinateMode, waitUntil: Date.now() + pickupMs }, {
      attempts: 3,
      backoff: { type: 'fixed', delay: 250 },
      removeOnComplete: { age: 300 },
      removeOnFail: { age: 3600 },
    });
    const finished = job.waitUntilFinished(events, pickupMs + bounds.startMs);
    finished.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const pickup = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), pickupMs)));
    try {
      const first = await Promise.race([finished, pickup]);
      if (first !== TIMED_OUT) return allocateResult.parse(first).desktopId;
      // No worker took it in time: withdraw it, unless one just did (then let it finish).
      if (await this.withdraw(job)) throw new DesktopsBusyError(await this.capacity(), pickupMs);
      return allocateResult.parse(await finished).desktopId;
    } catch (error) {
      if (error instanceof DesktopsBusyError) throw error;
      if (isRedisUnavailable(error)) throw unavailableToolError();
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolError('desktop_unavailable', `No desktop could be started for session "${ref.name}": ${reason}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The platforms live workers offer now (their capacity records). */
  async offeredPlatforms(): Promise<Platform[]> {
    const offered = new Set<Platform>();
    for (const worker of (await readWorkerCapacities(this.redis)).values()) offered.add(worker.platform ?? 'linux');
    return [...offered].sort();
  }

  private async requireOffered(platform: Platform): Promise<void> {
    const offered = await this.offeredPlatforms();
    if (!offered.includes(platform)) throw new PlatformUnavailableError(platform, offered);
  }

  private queueFor(platform: Platform): Queue {
    let queue = this.queues.get(platform);
    if (!queue) {
      queue = new Queue(lifecycleQueueFor(platform), { connection: this.bull, prefix: keys.bullPrefix() });
      this.queues.set(platform, queue);
    }
    return queue;
  }

  /** QueueEvents blocks on a stream read: a connection of its own, with BullMQ's `maxRetriesPerRequest: null`. */
  private eventsFor(platform: Platform): Promise<QueueEvents> {
    let listener = this.listeners.get(platform);
    if (!listener) {
      const connection = this.redis.duplicate({ maxRetriesPerRequest: null });
      listener = queueEventsFromNow(lifecycleQueueFor(platform), connection, keys.bullPrefix()).then(
        (events) => ({ events, connection }),
        (error: unknown) => {
          this.listeners.delete(platform); // the next call tries again
          connection.disconnect();
          throw error;
        },
      );
      this.listeners.set(platform, listener);
    }
    return listener.then(({ events }) => events);
  }

  /** Removes a job no worker has taken yet; false when one has (or it is between retries). */
  private async withdraw(job: Job): Promise<boolean> {
    const state = await job.getState();
    if (state !== 'waiting' && state !== 'prioritized') return false;
    try {
      await job.remove();
      return true;
    } catch {
      return false; // taken by a worker just now
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
    const listeners = await Promise.allSettled(this.listeners.values());
    await Promise.all([
      ...[...this.queues.values(), ...this.workerQueues.values()].map((queue) => queue.close()),
      ...listeners.flatMap((listener) => (listener.status === 'fulfilled' ? [listener.value.events.close()] : [])),
    ]);
    for (const listener of listeners) if (listener.status === 'fulfilled') listener.value.connection.disconnect();
    this.bull.disconnect();
  }
}
