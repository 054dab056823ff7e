/**
 * The desktops of one worker: warm spares started ahead of demand, desktops held by sessions,
 * the capacity limit, liveness heartbeats and the idle reaper. A released desktop is torn
 * down, never handed to the next session, so nothing leaks from one tenant to another.
 *
 * Room: the lifecycle loop takes an allocation only while `hasRoom`, and is told at once when
 * a desktop is released (`whenRoom`); the worker's room is published for the gateway's
 * "all N desktops are in use" answer.
 *
 * Activity: every call a session makes — screenshots and other read-only calls included,
 * refusals too — counts, from the moment it starts to the moment it ends; a desktop with a
 * call running is never reaped, whatever its duration.
 *
 * Draining (SIGTERM, `drain()`): the pool takes no new session (its room is withdrawn at once,
 * allocations are refused), its desktops take no new call (answered `worker_lost`, nothing
 * run), and the calls already running get up to the drain bound to finish; then it closes.
 *
 * Stopping: calls running are answered `worker_lost` at once, and every desktop is torn down
 * in parallel with the Redis bookkeeping, which is bounded (Redis may already be gone).
 *
 * A desktop still starting when the pool drains or closes (a warm spare, or an allocation's)
 * is given up at once and removed by its provider: a start can take many seconds on a loaded
 * host, longer than a stopping worker may live, and what it made must not outlive the worker.
 */
import { ApprovalStore, DesktopRegistry, KillSwitch, ReplySender, SessionStore, keys, publishCapacity, withdrawCapacity, type SessionRef } from '@deskgate/dispatch';
import type { CoordinateMode, PolicyFile } from '@deskgate/computer-use';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { KILL_SWITCH_WATCH_MS } from '../actions/action-runner.ts';
import type { WorkerConfig } from '../config.ts';
import type { WorkerMetrics } from '../http/metrics.ts';
import { SessionHost, type HostServices } from '../sessions/session-host.ts';
import { Desktop } from './desktop.ts';
import { NoFreeSlotError } from './process-provider.ts';
import type { DesktopProvider } from './provider.ts';

const HEARTBEAT_MS = 1500;
/** The reaper looks this often: a fifth of the idle time, between 1 and 10 s. */
const reapEveryMs = (idleMs: number) => Math.min(10_000, Math.max(1000, Math.round(idleMs / 5)));
/** While stopping, Redis bookkeeping gets this long (the desktops' processes do not wait for it). */
const STOPPING_REDIS_MS = 1000;

export class CapacityError extends Error {}

/** The capacity refusal, the same whatever the reason: it names no worker. */
const NO_FREE_DESKTOP = 'this worker has no free desktop';

/** `promise`, or undefined once `ms` passed. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export class DesktopPool {
  private readonly spares: Desktop[] = [];
  /** Desktops held by sessions, by desktop id. */
  private readonly held = new Map<string, SessionHost>();
  /** Spares being started. */
  private startingSpares = 0;
  /** Allocations under way: each stands for the desktop it is taking or starting. */
  private reserved = 0;
  private closed = false;
  /** Set by drain(): no new session, no new call; calls running finish. */
  private draining = false;
  /** Draining: desktops whose liveness was withdrawn (no call running), so gateways route away at once. */
  private readonly withdrawn = new Set<string>();
  private closing: Promise<void> | null = null;
  /** Aborted once the pool drains or closes: desktops being started give up (see DesktopProvider.start). */
  private readonly starts = new AbortController();
  /** Allocations under way (settled either way), which close() waits for. */
  private readonly allocating = new Set<Promise<void>>();
  /** Resolved when the pool starts closing: calls still running are answered at once. */
  private readonly stopping: Promise<void>;
  private markStopping!: () => void;
  private readonly sessions: SessionStore;
  private readonly hostServices: HostServices;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Told of every change of room (a release, a spare started, a desktop failed). */
  private waiters: (() => void)[] = [];
  private publishing = false;
  private readonly reapMs: number;

  constructor(
    private readonly config: WorkerConfig,
    private readonly provider: DesktopProvider,
    private readonly redis: Redis,
    private readonly metrics: WorkerMetrics,
    private readonly log: Logger,
    private readonly policies: PolicyFile,
  ) {
    this.sessions = new SessionStore(redis);
    this.stopping = new Promise((resolve) => (this.markStopping = resolve));
    this.hostServices = {
      workerId: config.workerId,
      redis,
      registry: new DesktopRegistry(redis),
      sessions: this.sessions,
      approvals: new ApprovalStore(redis),
      // Read before every action and watched during one; cached only briefly, so switching it on stops a running call within ~0.2 s.
      killSwitch: new KillSwitch(redis, { cacheMs: KILL_SWITCH_WATCH_MS }),
      policies,
      metrics,
      log,
      stopping: this.stopping,
      draining: () => this.draining,
      replies: new ReplySender(log),
    };
    this.reapMs = reapEveryMs(config.sessionIdleMs);
    this.timers.push(setInterval(() => void this.heartbeat(), HEARTBEAT_MS));
    this.timers.push(setInterval(() => void this.reapIdle(), this.reapMs));
  }

  private get heldActive(): number {
    let count = 0;
    for (const held of this.held.values()) if (!held.failure) count++;
    return count;
  }

  /** Desktops running or starting. Failed desktops are already torn down: they hold nothing but their session's answer. */
  private get total(): number {
    return this.spares.length + this.startingSpares + this.heldActive + this.reserved;
  }

  /** Sessions this worker could take now: its spares (ready or starting) and room to start more. */
  get free(): number {
    return this.closed || this.draining ? 0 : Math.max(0, this.config.maxDesktops - this.heldActive - this.reserved);
  }

  get hasRoom(): boolean {
    return this.free > 0;
  }

  /** Resolves once the pool has room (at once if it has), or when `signal` aborts or the pool closes. */
  async whenRoom(signal: AbortSignal): Promise<void> {
    while (!this.hasRoom && !signal.aborted && !this.closed) {
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Something changed the room: wake whoever waits for it and publish it. */
  private changed(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
    this.updateGauges();
    if (this.publishing) return;
    this.publishing = true;
    setImmediate(() => {
      this.publishing = false;
      void this.publish();
    });
  }

  /** When an idle session's desktop is next due to be reaped, 0 if none is. */
  private nextFreeAt(): number {
    let soonest = 0;
    for (const held of this.held.values()) {
      if (held.failure || held.busy > 0) continue;
      const due = held.lastActivity + this.config.sessionIdleMs + this.reapMs;
      if (soonest === 0 || due < soonest) soonest = due;
    }
    return soonest;
  }

  private async publish(): Promise<void> {
    if (this.closed || this.draining) return;
    await publishCapacity(this.redis, this.config.workerId, {
      max: this.config.maxDesktops,
      free: this.free,
      nextFreeAt: this.nextFreeAt(),
      busy: this.heldActive,
      warm: this.spares.length,
    }).catch((error) =>
      this.log.warn({ err: error }, 'capacity not published'),
    );
  }

  /** A new desktop, or CapacityError when no desktop user is free. */
  private async startDesktop(): Promise<Desktop> {
    const started = performance.now();
    const took = (outcome: string) => this.metrics.desktopStartSeconds.observe({ outcome }, (performance.now() - started) / 1000);
    try {
      const desktop = await Desktop.start(this.provider, this.config, this.log, this.starts.signal);
      took('ok');
      return desktop;
    } catch (error) {
      if (this.starts.signal.aborted) {
        took('stopped');
        throw new CapacityError(`${NO_FREE_DESKTOP} (it is stopping)`);
      }
      took('failed');
      if (error instanceof NoFreeSlotError) throw new CapacityError(NO_FREE_DESKTOP);
      throw error;
    }
  }

  private filling: Promise<void> | null = null;

  /** Starts spares until the warm target is met (never beyond capacity); one filler at a time. */
  fillSpares(): Promise<void> {
    this.filling ??= this.fill().finally(() => (this.filling = null));
    return this.filling;
  }

  private async fill(): Promise<void> {
    while (!this.closed && !this.draining && this.spares.length + this.startingSpares < this.config.warmDesktops && this.total < this.config.maxDesktops) {
      this.startingSpares++;
      try {
        const desktop = await this.startDesktop();
        if (this.closed || this.draining) {
          await desktop.stop();
          return;
        }
        this.spares.push(desktop);
        // A spare that breaks is dropped (and replaced): no session ever gets it.
        desktop.onFailure(() => {
          const index = this.spares.indexOf(desktop);
          if (index < 0) return;
          this.spares.splice(index, 1);
          this.changed();
          void desktop.stop().finally(() => void this.fillSpares());
        });
      } catch (error) {
        // Given up because the pool stops: the provider removed it and said so.
        if (!this.starts.signal.aborted) this.log.error({ err: error }, 'could not start a warm desktop');
        return;
      } finally {
        this.startingSpares--;
        this.changed();
      }
    }
  }

  /** A spare: a ready one, or the one being started; undefined when none is coming. */
  private async takeSpare(): Promise<Desktop | undefined> {
    for (;;) {
      const spare = this.spares.shift();
      if (spare || this.startingSpares === 0 || this.closed) return spare;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** A new session's coordinate mode is fixed here, for its life. */
  allocate(ref: SessionRef, coordinateMode: CoordinateMode = 'pixels'): Promise<string> {
    const allocation = this.allocateNow(ref, coordinateMode);
    const settled = allocation.then(
      () => undefined,
      () => undefined,
    );
    this.allocating.add(settled);
    void settled.finally(() => this.allocating.delete(settled));
    return allocation;
  }

  private async allocateNow(ref: SessionRef, coordinateMode: CoordinateMode): Promise<string> {
    const stopping = () => new CapacityError(`${NO_FREE_DESKTOP} (it is stopping)`);
    if (this.closed || this.draining) throw stopping();
    if (!this.hasRoom) throw new CapacityError(`${NO_FREE_DESKTOP} (its limit is ${this.config.maxDesktops})`);
    // Reserved at once, before anything is awaited: the lifecycle loop fetches the next
    // allocation while this one runs, and must see the room this one takes.
    this.reserved++;
    let desktop: Desktop | undefined;
    try {
      const existing = await this.sessions.desktopOf(ref);
      if (existing && this.held.has(existing)) return existing;
      desktop = await this.takeSpare();
      if (!desktop && !this.closed) desktop = await this.startDesktop();
      if (!desktop || this.closed) throw stopping();
      const id = await this.hold(desktop, ref, coordinateMode);
      // Closed or draining meanwhile: close() may not have seen it; the job goes to another worker.
      if (this.closed || this.draining) {
        await this.release(id);
        throw stopping();
      }
      return id;
    } catch (error) {
      if (desktop && !this.held.has(desktop.id)) await desktop.stop();
      throw error;
    } finally {
      this.reserved--;
      this.changed();
      void this.fillSpares();
    }
  }

  private async hold(desktop: Desktop, ref: SessionRef, coordinateMode: CoordinateMode): Promise<string> {
    const host = await SessionHost.open(desktop, ref, coordinateMode, this.hostServices, {
      broken: () => {
        this.changed();
        void desktop.stop().finally(() => (this.updateGauges(), void this.fillSpares()));
      },
      answeredBroken: (broken) => void this.release(broken.id).catch((error) => this.log.error({ err: error }, 'release failed')),
    });
    this.held.set(desktop.id, host);
    return desktop.id;
  }

  /** `keepSession`: the session keeps pointing at the desktop (a drain's: it is told on its next call). */
  async release(desktopId: string, keepSession = false): Promise<boolean> {
    const host = this.held.get(desktopId);
    if (!host) return false;
    this.held.delete(desktopId);
    this.changed();
    // While stopping, Redis bookkeeping is bounded (the desktop's processes do not wait for it).
    const bound = this.closed
      ? (work: Promise<void>) => within(work, STOPPING_REDIS_MS).catch((error) => this.log.warn({ err: error, desktop: desktopId }, 'desktop not unregistered'))
      : undefined;
    await host.close(bound, { keepSession });
    this.log.info({ desktop: desktopId, tenant: host.ref.tenant, session: host.ref.name }, 'desktop released');
    this.updateGauges();
    void this.fillSpares();
    return true;
  }

  private async heartbeat(): Promise<void> {
    await this.hostServices.registry.heartbeat([...this.held.keys()].filter((id) => !this.withdrawn.has(id)), this.config.workerId).catch((error) => this.log.error({ err: error }, 'heartbeat failed'));
    await this.publish();
  }

  /**
   * Releases the desktops of sessions idle for longer than DESKGATE_SESSION_IDLE_SECONDS (no
   * call started or ended since), and of sessions that no longer exist. Never one with a call
   * running; the decision is taken on this worker's own record of activity, right before the
   * release, so a call that starts while the session's record is read keeps its desktop.
   */
  private async reapIdle(): Promise<void> {
    for (const [id, held] of [...this.held]) {
      if (held.failure || held.busy > 0) continue;
      // undefined: Redis did not answer; nothing is reaped on a guess.
      const record = await this.sessions.get(held.ref).catch(() => undefined);
      if (record === undefined || this.closed || this.held.get(id) !== held || held.busy > 0) continue;
      const ended = record === null || record.desktopId !== id;
      const idleMs = Date.now() - Math.max(held.lastActivity, record?.lastUsedAt ?? 0);
      if (!ended && idleMs <= this.config.sessionIdleMs) continue;
      this.log.info({ desktop: id, session: held.ref.name, tenant: held.ref.tenant, idleSeconds: Math.round(idleMs / 1000), ended }, ended ? 'releasing the desktop of an ended session' : 'releasing idle session');
      await this.release(id).catch((error) => this.log.error({ err: error }, 'release failed'));
    }
  }

  private updateGauges(): void {
    this.metrics.desktops.set({ state: 'spare' }, this.spares.length);
    this.metrics.desktops.set({ state: 'held' }, this.held.size);
  }

  get ready(): boolean {
    return !this.closed && !this.draining;
  }

  /**
   * Draining: a desktop with no call running stops being alive, so a gateway's next send to it
   * is refused without queueing (the session is told its desktop is gone and starts over
   * elsewhere). A desktop with a call running stays alive until the call ends.
   */
  private async withdrawIdle(): Promise<void> {
    // Idle means its last reply is written too: a call whose handler just returned still has
    // its answer on the way, and its caller would otherwise see the desktop gone first.
    const idle = [...this.held].filter(([id, host]) => host.idle && !this.withdrawn.has(id)).map(([id]) => id);
    if (idle.length === 0) return;
    for (const id of idle) this.withdrawn.add(id);
    await within(this.redis.del(...idle.map((id) => keys.desktopAlive(id))), STOPPING_REDIS_MS).catch(() => undefined);
  }

  /** Calls running now, on every desktop. */
  get running(): number {
    let count = 0;
    for (const held of this.held.values()) count += held.busy;
    return count;
  }

  /**
   * Graceful drain, then close(): no new session from now on (room withdrawn from Redis at
   * once, allocations refused, spares stopped), no new call (a call popped from now on is
   * answered `worker_lost`, nothing run), and the calls already running get up to `boundMs`
   * to finish; whatever still runs then is answered `worker_lost` by close(). Resolves with
   * how long the calls took to finish and how many were cut off.
   */
  async drain(boundMs: number): Promise<{ waitedMs: number; cutOff: number }> {
    const started = Date.now();
    let sparesStopped: Promise<unknown> = Promise.resolve();
    if (!this.closed && !this.draining) {
      this.draining = true;
      // Spares and allocations starting now would be stopped once up: given up at once instead.
      this.starts.abort();
      // The lifecycle loop waiting for room wakes and sees the pool is no longer ready.
      this.changed();
      // Spares stop beside the wait (close() needs nothing of them).
      sparesStopped = Promise.all(this.spares.splice(0).map((desktop) => desktop.stop()));
      this.updateGauges();
      await within(withdrawCapacity(this.redis, this.config.workerId), STOPPING_REDIS_MS).catch(() => undefined);
      for (;;) {
        await this.withdrawIdle();
        if (this.running === 0 || Date.now() - started >= boundMs) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    const cutOff = this.running;
    await Promise.all([this.close(), sparesStopped]);
    return { waitedMs: Date.now() - started, cutOff };
  }

  /**
   * Stops every desktop, in parallel: calls running are answered at once (`worker_lost`),
   * held desktops and spares are torn down, a desktop still starting is given up and removed.
   * Resolves with how long each part took (the worker logs it).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.starts.abort();
      this.markStopping();
      for (const timer of this.timers) clearInterval(timer);
      for (const waiter of this.waiters.splice(0)) waiter();
      await Promise.all([
        // A drained desktop's session keeps pointing at it: its next call is told the desktop
        // is gone (worker_lost), and the one after gets a fresh desktop on another worker.
        ...[...this.held.keys()].map((id) => this.release(id, this.draining).catch((error) => this.log.error({ err: error, desktop: id }, 'desktop not stopped'))),
        ...this.spares.splice(0).map((desktop) => desktop.stop()),
        // A desktop still starting gives up (starts aborted above) and is removed by its provider;
        // one that came up meanwhile is stopped by fill() or allocate().
        this.filling,
        ...this.allocating,
        within(withdrawCapacity(this.redis, this.config.workerId), STOPPING_REDIS_MS).catch(() => undefined),
      ]);
      // Every reply is written by now (a call cut off was answered above).
      this.hostServices.replies.close();
      this.updateGauges();
    })();
    return this.closing;
  }
}
