/**
 * The desktops of one worker: warm spares started ahead of demand, desktops held by sessions,
 * the capacity limit, liveness heartbeats and the idle reaper. A released desktop is torn
 * down, never handed to the next session, so nothing leaks from one tenant to another.
 */
import { ActionServer, ApprovalStore, DesktopRegistry, KillSwitch, SessionStore, keys, type ActionHandler, type SessionRef } from '@deskgate/dispatch';
import { errorResult, initialSessionState, policyFor, startingGrants, type CoordinateMode, type PolicyFile } from '@deskgate/computer-use';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { actionRunner, KILL_SWITCH_WATCH_MS } from '../actions/action-runner.ts';
import type { WorkerConfig } from '../config.ts';
import type { WorkerMetrics } from '../http/metrics.ts';
import { Desktop } from './desktop.ts';
import { stagedDesktopFiles } from './desktop-files.ts';
import { NoFreeSlotError } from './process-provider.ts';
import type { DesktopProvider } from './provider.ts';

interface Held {
  desktop: Desktop;
  ref: SessionRef;
  server: ActionServer;
  /** Set when the desktop broke (its window manager or X server stopped). */
  failure?: string;
}

const HEARTBEAT_MS = 1500;
const REAP_MS = 10_000;

export class CapacityError extends Error {}

/** The capacity refusal, the same whatever the reason: it names no worker. */
const NO_FREE_DESKTOP = 'this worker has no free desktop';

export class DesktopPool {
  private readonly spares: Desktop[] = [];
  private readonly held = new Map<string, Held>();
  private starting = 0;
  private closed = false;
  private readonly registry: DesktopRegistry;
  private readonly sessions: SessionStore;
  private readonly approvals: ApprovalStore;
  /** Read before every action and watched during one; cached only briefly, so switching it on stops a running call within ~0.2 s. */
  private readonly killSwitch: KillSwitch;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly config: WorkerConfig,
    private readonly provider: DesktopProvider,
    private readonly redis: Redis,
    private readonly metrics: WorkerMetrics,
    private readonly log: Logger,
    private readonly policies: PolicyFile,
  ) {
    this.registry = new DesktopRegistry(redis);
    this.sessions = new SessionStore(redis);
    this.approvals = new ApprovalStore(redis);
    this.killSwitch = new KillSwitch(redis, { cacheMs: KILL_SWITCH_WATCH_MS });
    this.timers.push(setInterval(() => void this.heartbeat(), HEARTBEAT_MS));
    this.timers.push(setInterval(() => void this.reapIdle(), REAP_MS));
  }

  /** Failed desktops are already torn down: they hold nothing but their session's answer. */
  private get total() {
    return this.spares.length + [...this.held.values()].filter((held) => !held.failure).length + this.starting;
  }

  /** A new desktop, or CapacityError when this worker has no room (or no free desktop user). */
  private async startDesktop(): Promise<Desktop> {
    this.starting++;
    try {
      const desktop = await Desktop.start(this.provider, this.config, stagedDesktopFiles(this.config), this.log);
      return desktop;
    } catch (error) {
      if (error instanceof NoFreeSlotError) throw new CapacityError(NO_FREE_DESKTOP);
      throw error;
    } finally {
      this.starting--;
    }
  }

  private filling: Promise<void> | null = null;

  /** Starts spares until the warm target is met (never beyond capacity); one filler at a time. */
  fillSpares(): Promise<void> {
    this.filling ??= this.fill().finally(() => (this.filling = null));
    return this.filling;
  }

  private async fill(): Promise<void> {
    while (!this.closed && this.spares.length + this.starting < this.config.warmDesktops && this.total < this.config.maxDesktops) {
      try {
        const desktop = await this.startDesktop();
        this.spares.push(desktop);
        // A spare that breaks is dropped (and replaced): no session ever gets it.
        desktop.onFailure(() => {
          const index = this.spares.indexOf(desktop);
          if (index < 0) return;
          this.spares.splice(index, 1);
          void desktop.stop().finally(() => void this.fillSpares());
        });
      } catch (error) {
        this.log.error({ err: error }, 'could not start a warm desktop');
        return;
      } finally {
        this.updateGauges();
      }
    }
  }

  /** A new session's coordinate mode is fixed here, for its life. */
  async allocate(ref: SessionRef, coordinateMode: CoordinateMode = 'pixels'): Promise<string> {
    const existing = await this.sessions.desktopOf(ref);
    if (existing && this.held.has(existing)) return existing;
    let desktop = this.spares.shift();
    if (!desktop) {
      if (this.total >= this.config.maxDesktops) throw new CapacityError(`${NO_FREE_DESKTOP} (its limit is ${this.config.maxDesktops})`);
      desktop = await this.startDesktop();
    }
    const { display, width, height } = desktop.handle;
    await this.registry.register({ id: desktop.id, workerId: this.config.workerId, display, width, height, tenant: ref.tenant, session: ref.name });
    const recordPids = () => void this.redis.hset(keys.desktop(desktop.id), desktop.pids).catch(() => undefined);
    // onStart fires on restarts only (the helpers are already running here).
    desktop.capture.onStart = () => (this.metrics.helperRestarts.inc({ helper: 'capture' }), recordPids());
    desktop.input.onStart = () => (this.metrics.helperRestarts.inc({ helper: 'input' }), recordPids());
    recordPids();
    const policy = policyFor(this.policies, ref.tenant);
    const state = initialSessionState(coordinateMode);
    state.grants = startingGrants(policy);
    await this.sessions.assign(ref, desktop.id, state);
    const runner = actionRunner(desktop, ref, state, { policy, approvals: this.approvals.brokerFor(ref.tenant, ref.name), killSwitch: this.killSwitch }, this.sessions, this.metrics, this.log);
    const server = new ActionServer(this.redis, this.redis.duplicate(), desktop.id, this.failSafe(desktop.id, runner), (error) =>
      this.log.error({ err: error, desktop: desktop.id }, 'action channel error'),
    );
    const held: Held = { desktop, ref, server };
    this.held.set(desktop.id, held);
    desktop.onFailure((reason) => {
      // Torn down at once; the session hears of it on its next call (failSafe).
      held.failure = reason;
      this.log.warn({ desktop: desktop.id, tenant: ref.tenant, session: ref.name, reason }, 'desktop failed; tearing it down');
      void desktop.stop().finally(() => (this.updateGauges(), void this.fillSpares()));
    });
    this.log.info({ desktop: desktop.id, display, tenant: ref.tenant, session: ref.name }, 'desktop allocated');
    this.updateGauges();
    void this.fillSpares();
    return desktop.id;
  }

  /**
   * The action handler of a held desktop: the runner while the desktop works; once it broke,
   * one clear `desktop_failed` answer, after which the session no longer points at it (so its
   * next call gets a fresh desktop) and the desktop is released.
   */
  private failSafe(desktopId: string, runner: ActionHandler): ActionHandler {
    return async (request) => {
      const held = this.held.get(desktopId);
      if (!held?.failure) return runner(request);
      await this.registry.remove(desktopId);
      if ((await this.sessions.desktopOf(held.ref)) === desktopId) await this.sessions.remove(held.ref);
      setImmediate(() => void this.release(desktopId).catch((error) => this.log.error({ err: error }, 'release failed')));
      const message = `This session's desktop broke (${held.failure}) and was torn down; ${request.tool} did not run. The session starts over on a new desktop with your next call: its apps, files and grants are gone, so request access to your apps again, then take a screenshot.`;
      return { result: errorResult('desktop_failed', message), timings: {} };
    };
  }

  async release(desktopId: string): Promise<boolean> {
    const held = this.held.get(desktopId);
    if (!held) return false;
    this.held.delete(desktopId);
    await held.server.close();
    await this.registry.remove(desktopId);
    // Only forget the session's binding if it still points at this desktop.
    if ((await this.sessions.desktopOf(held.ref)) === desktopId) await this.sessions.remove(held.ref);
    await held.desktop.stop();
    this.log.info({ desktop: desktopId, tenant: held.ref.tenant, session: held.ref.name }, 'desktop released');
    this.updateGauges();
    void this.fillSpares();
    return true;
  }

  private async heartbeat(): Promise<void> {
    await this.registry.heartbeat([...this.held.keys()], this.config.workerId).catch((error) => this.log.error({ err: error }, 'heartbeat failed'));
  }

  private async reapIdle(): Promise<void> {
    const now = Date.now();
    for (const [id, held] of this.held) {
      const record = await this.sessions.get(held.ref).catch(() => null);
      if (!record || now - record.lastUsedAt > this.config.sessionIdleMs) {
        this.log.info({ desktop: id, session: held.ref.name, tenant: held.ref.tenant }, 'releasing idle session');
        await this.release(id).catch((error) => this.log.error({ err: error }, 'release failed'));
      }
    }
  }

  private updateGauges(): void {
    this.metrics.desktops.set({ state: 'spare' }, this.spares.length);
    this.metrics.desktops.set({ state: 'held' }, this.held.size);
  }

  get ready(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    // A spare still starting would otherwise outlive the worker.
    await this.filling;
    await Promise.all([...this.held.keys()].map((id) => this.release(id).catch(() => undefined)));
    await Promise.all(this.spares.splice(0).map((desktop) => desktop.stop()));
  }
}
