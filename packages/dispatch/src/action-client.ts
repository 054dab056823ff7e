/**
 * Gateway side of the action channel. One dedicated connection reads this gateway's reply
 * list and settles the pending calls by id; a call that outlives its deadline, or whose
 * desktop stops being alive, fails with a clear error and is never sent again. Every send
 * takes or renews the caller's lock on the desktop, and a call in flight keeps renewing it.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ToolError, type CoordinateMode, type ScreenshotAfter } from '@deskgate/computer-use';
import { runBlockingLoop } from '@deskgate/service-kit';
import type { Logger } from 'pino';
import { actionReply, type ActionReply, type ActionRequest } from './action-protocol.ts';
import { DesktopLocks, EPOCH_RETENTION_MS, LOCK_LEASE_MS, LockHeldError, type LockHolder } from './desktop-lock.ts';
import { keys } from './keys.ts';
import { CALL_WINDOW_MS, callRateExceeded } from './quota.ts';
import { scriptsOf } from './scripts.ts';
import { isRedisUnavailable, RedisUnavailableError } from './redis-connection.ts';
import type { DirectRoute } from './direct-replies/protocol.ts';
import { ReplyListener, type ReplyListenerOptions } from './direct-replies/reply-listener.ts';

/** A call in flight fails with `unavailable` once Redis has been unreachable this long (its reply cannot arrive). */
export const IN_FLIGHT_UNREACHABLE_MS = 3000;


/** The desktop was not alive, so the action was never queued: safe to route again. */
export class DesktopGoneError extends ToolError {
  constructor() {
    super('worker_lost', 'The desktop of this session is gone (its worker stopped). Call the tool again to get a new desktop, then take a screenshot.');
  }
}

interface Pending {
  resolve: (reply: ActionReply) => void;
  reject: (error: Error) => void;
}

export interface SendOptions {
  desktopId: string;
  tenant: string;
  session: string;
  tool: string;
  args: unknown;
  timeoutMs: number;
  coordinateMode?: CoordinateMode;
  screenshotAfter?: ScreenshotAfter;
  /** Who is driving: the lock on the desktop is taken and renewed in this name. */
  controller: string;
  /** `person`: a person drives from the web console. */
  actor?: 'person';
  /** The call's id (the audit entry and the timeline frame carry it too); a fresh one when absent. */
  id?: string;
  /**
   * The tenant's calls per second: the call is counted against it in the enqueue's own round
   * trip, and refused with `quota_exceeded` over it (nothing queued). Absent or 0: not counted.
   */
  callsPerSecond?: number;
}

/** The longest a call may wait for its reply: every tool's own bound (waits, holds, approvals) is far below it. */
export const MAX_CALL_MS = 15 * 60 * 1000;

export interface ActionClientOptions {
  /** How long a controller keeps a desktop after its last action ends. */
  lockLeaseMs?: number;
}

export class ActionClient {
  readonly gatewayId = randomUUID();
  private readonly replyKey = keys.replies(this.gatewayId);
  private readonly pending = new Map<string, Pending>();
  private readonly reader: Redis;
  private running = true;
  private readonly loop: Promise<void>;
  private readonly locks: DesktopLocks;
  private readonly leaseMs: number;
  private direct?: { listener: ReplyListener; route: DirectRoute };
  /** Replies settled by each path: `direct` from a worker's connection, `redis` from the reply list. */
  readonly settled = { direct: 0, redis: 0 };

  constructor(private readonly redis: Redis, options: ActionClientOptions = {}) {
    this.reader = redis.duplicate();
    this.loop = this.readReplies();
    this.locks = new DesktopLocks(redis);
    this.leaseMs = options.lockLeaseMs ?? LOCK_LEASE_MS.default;
  }

  /**
   * Takes replies directly from the workers too (direct-replies/): each request then carries
   * where. Replies keep arriving through Redis as well (a worker's fallback).
   */
  async listenForReplies(options: ReplyListenerOptions, log: Logger): Promise<DirectRoute> {
    const listener = new ReplyListener((line) => this.settle(line, 'direct'), log);
    const route = await listener.listen(options);
    this.direct = { listener, route };
    return route;
  }

  async send(options: SendOptions): Promise<ActionReply> {
    // A duration past a timer's range would fire at once: refuse it before anything is queued.
    if (!(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0 && options.timeoutMs <= MAX_CALL_MS)) {
      throw new ToolError('bad_args', `${options.tool} would run for ${Math.round(options.timeoutMs / 1000)} s; a call may take at most ${MAX_CALL_MS / 60_000} minutes. Nothing was done.`);
    }
    const id = options.id ?? randomUUID();
    const now = Date.now();
    const request: Omit<ActionRequest, 'epoch'> = {
      id,
      replyTo: this.replyKey,
      ...(this.direct ? { direct: this.direct.route } : {}),
      tenant: options.tenant,
      session: options.session,
      tool: options.tool,
      args: options.args,
      deadline: now + options.timeoutMs,
      sentAt: now,
      ...(options.coordinateMode ? { coordinateMode: options.coordinateMode } : {}),
      ...(options.screenshotAfter ? { screenshotAfter: options.screenshotAfter } : {}),
      ...(options.actor ? { actor: options.actor } : {}),
    };
    // Registered before the enqueue: the reply may be read before the script's own answer.
    const reply = new Promise<ActionReply>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    let queued: number, detail: (string | number)[];
    try {
      [queued, ...detail] = await this.enqueue(options, request);
    } catch (error) {
      // Sent, but answered too late: Redis may have queued it all the same, and then the
      // worker runs it. Its reply (or the in-flight watch's verdict) is the only honest answer;
      // "nothing was done" would not be.
      if (error instanceof RedisUnavailableError && error.maySucceedLate) {
        return this.awaitReply(id, options, { epoch: 0, controller: options.controller }, reply);
      }
      this.pending.delete(id);
      throw error;
    }
    if (queued !== 1) {
      this.pending.delete(id);
      if (queued === -2) throw callRateExceeded(options.callsPerSecond ?? 0, Number(detail[1]));
      throw queued === 0 ? new DesktopGoneError() : new LockHeldError(String(detail[0]), Number(detail[1]));
    }
    return this.awaitReply(id, options, { epoch: Number(detail[0]), controller: options.controller }, reply);
  }

  /**
   * Queues the request under the caller's lock (lua/enqueueAction-5.lua): {1, epoch} | {0} gone |
   * {-1, holder, lease left} | {-2, count, window left} over the tenant's call rate. The request and the controller are arguments; the script stores
   * the request as sent, with the epoch as a field of its own in front of it.
   */
  private async enqueue(options: SendOptions, request: Omit<ActionRequest, 'epoch'>): Promise<[number, ...(string | number)[]]> {
    return (await scriptsOf(this.redis).enqueueAction(
      keys.desktopAlive(options.desktopId),
      keys.desktopActions(options.desktopId),
      keys.desktopLock(options.desktopId),
      keys.desktopEpoch(options.desktopId),
      keys.tenantCalls(options.tenant),
      JSON.stringify(request),
      options.controller,
      this.leaseMs,
      EPOCH_RETENTION_MS,
      options.callsPerSecond ?? 0,
      CALL_WINDOW_MS,
    )) as [number, ...(string | number)[]];
  }

  private async awaitReply(id: string, options: SendOptions, holder: LockHolder, reply: Promise<ActionReply>): Promise<ActionReply> {
    const fail = (error: ToolError) => {
      const pending = this.pending.get(id);
      this.pending.delete(id);
      pending?.reject(error);
    };
    // The worker gets a grace second past the deadline to deliver a reply it started on time.
    const timer = setTimeout(
      () => fail(new ToolError('timeout', `${options.tool} got no answer within ${Math.round(options.timeoutMs / 1000)} s. It was not retried and may or may not have run; take a screenshot to check.`)),
      options.timeoutMs + 1000,
    );
    // Long calls also watch the desktop, so a dead worker is reported in about a second, and
    // keep the lease alive: a controller is not idle while its action runs.
    let unreachableSince: number | undefined;
    let goneOnce = false;
    const watch = setInterval(async () => {
      const [alive] = await Promise.all([
        this.redis.exists(keys.desktopAlive(options.desktopId)),
        this.locks.renew(options.desktopId, holder, this.leaseMs),
      ]).then(
        (answers) => {
          unreachableSince = undefined;
          return answers;
        },
        (error: unknown) => {
          if (isRedisUnavailable(error)) unreachableSince ??= Date.now();
          return [1];
        },
      );
      if (unreachableSince !== undefined && Date.now() - unreachableSince >= IN_FLIGHT_UNREACHABLE_MS) {
        fail(
          new ToolError(
            'unavailable',
            `deskgate's state store (Redis) became unreachable during ${options.tool}, so its answer cannot arrive. It was not retried and may or may not have run; once the service is back (retry in a few seconds), take a screenshot to check.`,
          ),
        );
      } else if (alive === 0 && goneOnce) {
        fail(new ToolError('worker_lost', `The worker running this desktop stopped during ${options.tool}. The action was not retried and may have partly run; call again to get a new desktop.`));
      } else {
        // Gone twice in a row before it counts: a draining worker withdraws a desktop right
        // after writing its last reply, which may still be on its way to this gateway's reader.
        goneOnce = alive === 0;
      }
    }, Math.min(1000, this.leaseMs / 3));
    try {
      return await reply;
    } finally {
      clearTimeout(timer);
      clearInterval(watch);
    }
  }

  /** Reads replies until closed; a read that fails (Redis unreachable) is retried — each call's own watch reports the outage. */
  private readReplies(): Promise<void> {
    return runBlockingLoop<[string, string]>({
      running: () => this.running,
      next: () => this.reader.blpop(this.replyKey, 1),
      handle: ([, raw]) => {
        this.settle(raw, 'redis');
        // The next BLPOP waits for the call's own continuation (a macrotask later): its reply
        // to the client is written first. Each write here wakes another process, and on a VM
        // that costs ~0.5 ms — not to be spent between a reply's arrival and its delivery.
        return new Promise<void>((resolve) => setImmediate(resolve));
      },
      onError: () => undefined,
    });
  }

  /** Settles the call a reply is for; a reply for no call in flight (a second copy, or a call that timed out) is dropped. */
  private settle(raw: Buffer | string, path: 'direct' | 'redis'): void {
    let parsed;
    try {
      parsed = actionReply.safeParse(JSON.parse(raw.toString()));
    } catch {
      return;
    }
    if (!parsed.success) return;
    const pending = this.pending.get(parsed.data.id);
    if (!pending) return;
    this.pending.delete(parsed.data.id);
    this.settled[path]++;
    pending.resolve(parsed.data);
  }

  async close(): Promise<void> {
    this.running = false;
    await this.direct?.listener.close();
    for (const pending of this.pending.values()) pending.reject(new ToolError('timeout', 'The gateway is shutting down.'));
    this.pending.clear();
    this.reader.disconnect();
    await this.loop.catch(() => undefined);
  }
}
