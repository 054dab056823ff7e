/**
 * One session on one desktop: the desktop (whichever provider made it), the session's action
 * server and runner, its tool state and policy. The host answers every call of the session
 * with the tool's result and the timings of the call; it knows whether a call is running and
 * when the last one started or ended (what the pool's idle reaping reads), and turns a broken
 * desktop into one clear `desktop_failed` answer. The pool (desktop-pool.ts) decides which
 * desktops exist; the host, what runs on one.
 */
import { ActionServer, AUDIT_FRAMES, AuditFrames, type ActionHandler, type ApprovalStore, type DesktopRegistry, type HandledAction, type KillSwitch, type ReplySender, type SessionRef, type SessionStore, keys } from '@deskgate/dispatch';
import { errorResult, initialSessionState, policyFor, startingGrants, type CoordinateMode, type PolicyFile } from '@deskgate/computer-use';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { actionRunner } from '../actions/action-runner.ts';
import type { Desktop } from '../desktops/desktop.ts';
import type { WorkerMetrics } from '../http/metrics.ts';
import { LiveFrames } from './live-frames.ts';
import { TimelineFrames } from './timeline-frames.ts';
import { TimelineRecorder } from './timeline-recorder.ts';

/**
 * The session's lastUsedAt in Redis (what its listing and the console show) is saved with a
 * reply at most this often: one Redis write less per call. The worker's own idle clock is
 * `lastActivity`, in memory, so reaping is exact.
 */
export const LAST_USED_SAVE_MS = 1000;

/** What every host of a worker shares. */
export interface HostServices {
  workerId: string;
  redis: Redis;
  registry: DesktopRegistry;
  sessions: SessionStore;
  approvals: ApprovalStore;
  killSwitch: KillSwitch;
  policies: PolicyFile;
  metrics: WorkerMetrics;
  log: Logger;
  /** Resolves when the worker starts stopping: calls still running are answered at once. */
  stopping: Promise<void>;
  /** True while the worker drains: a call popped now is refused (nothing run), calls running finish. */
  draining: () => boolean;
  /** Writes replies to their gateways directly (one connection per gateway for all the hosts). */
  replies: ReplySender;
}

/** What the pool hears from a host. */
export interface HostHooks {
  /** The desktop broke: it is being torn down; the session is told on its next call. */
  broken(host: SessionHost): void;
  /** The session was told its desktop broke: the host can be closed. */
  answeredBroken(host: SessionHost): void;
}

export class SessionHost {
  /** Set when the desktop broke (its window manager or X server stopped). */
  failure: string | null = null;
  /** Calls running now. */
  busy = 0;

  /** No call running and no reply still being written: the desktop can be withdrawn without cutting an answer. */
  get idle(): boolean {
    return this.busy === 0 && this.server.answering === 0;
  }
  /** Told with the next answer, once (the screen was reset on a fresh desktop). */
  notice: string | null = null;
  /** When the last call started or ended (ms since the epoch). */
  lastActivity = Date.now();
  /** When lastUsedAt was last saved to the session's record. */
  private lastUsedSaved = 0;
  /** Actions a person ran from the web console since the agent's last call (it is told once). */
  private personActions = 0;
  private server!: ActionServer;
  /** Streams frames to the web console's live view while someone watches (live-frames.ts). */
  private live: LiveFrames | null = null;
  /** The console timeline's frames: after each call, encoded only when the screen changed, at most 5 a second (timeline-*.ts). */
  private timeline!: TimelineRecorder;
  private closing: Promise<void> | null = null;

  private constructor(
    readonly desktop: Desktop,
    readonly ref: SessionRef,
    private readonly services: HostServices,
    private readonly hooks: HostHooks,
  ) {}

  /** Registers the desktop for the session, with its starting state, and starts serving its calls. */
  static async open(desktop: Desktop, ref: SessionRef, coordinateMode: CoordinateMode, services: HostServices, hooks: HostHooks): Promise<SessionHost> {
    const { redis, registry, sessions, approvals, killSwitch, policies, metrics, log } = services;
    const { display, width, height } = desktop.handle;
    await registry.register({ id: desktop.id, workerId: services.workerId, display, width, height, tenant: ref.tenant, session: ref.name });
    const recordPids = () => void redis.hset(keys.desktop(desktop.id), desktop.pids).catch(() => undefined);
    const timeline = new TimelineFrames(desktop.capture, { width: AUDIT_FRAMES.width, height: Math.max(1, Math.round((AUDIT_FRAMES.width * height) / width)), quality: AUDIT_FRAMES.quality });
    // onStart fires on restarts only (the helpers are already running here).
    desktop.capture.onStart = () => (timeline.reset(), metrics.helperRestarts.inc({ helper: 'capture' }), recordPids());
    desktop.input.onStart = () => (metrics.helperRestarts.inc({ helper: 'input' }), recordPids());
    recordPids();
    const policy = policyFor(policies, ref.tenant);
    if (policy.network.egress && desktop.handle.allowEgress) {
      // Fails closed: without its guard the desktop stays offline, and the session works on.
      await desktop.handle.allowEgress().catch((error: unknown) => log.error({ err: error, desktop: desktop.id, tenant: ref.tenant }, 'egress not given'));
    }
    // A session whose desktop went with its worker carries its grants (and its coordinate
    // mode) to this one, and is told once that the screen was reset.
    const previous = await sessions.get(ref);
    const lost = previous && !previous.desktopId && previous.lostDesktop ? previous : null;
    const state = initialSessionState(lost?.state.coordinateMode ?? coordinateMode);
    state.grants = lost ? lost.state.grants : startingGrants(policy);
    await sessions.assign(ref, desktop.id, state, lost?.createdAt);
    const host = new SessionHost(desktop, ref, services, hooks);
    host.timeline = new TimelineRecorder(
      timeline,
      (calls, jpeg) => new AuditFrames(redis).add(ref.tenant, ref.name, calls, jpeg),
      (error) => log.debug({ err: error, desktop: desktop.id }, 'timeline frame not kept'),
    );
    if (lost) {
      host.notice = `Note: this session's desktop was lost (${lost.lostDesktop}) and replaced by a fresh one: the screen, apps and files are new, your grants were kept. Take a screenshot before acting on the screen.`;
    }
    const runner = actionRunner(desktop, ref, state, { policy, approvals: approvals.brokerFor(ref.tenant, ref.name), killSwitch }, sessions, metrics, log);
    host.server = new ActionServer(redis, redis.duplicate(), desktop.id, host.tracked(host.failSafe(runner)), (error) =>
      log.error({ err: error, desktop: desktop.id }, 'action channel error'),
      services.replies,
    );
    host.live = new LiveFrames(desktop.id, desktop.handle.helpers.capture, redis, log);
    host.live.start();
    desktop.onFailure((reason) => {
      // Torn down at once; the session hears of it on its next call (failSafe).
      host.failure = reason;
      log.warn({ desktop: desktop.id, tenant: ref.tenant, session: ref.name, reason }, 'desktop failed; tearing it down');
      hooks.broken(host);
    });
    log.info({ desktop: desktop.id, display, tenant: ref.tenant, session: ref.name }, 'desktop allocated');
    return host;
  }

  get id(): string {
    return this.desktop.id;
  }

  /**
   * Every call is activity, from its start to its end, whatever the tool (screenshots and
   * other read-only calls too) and whatever the answer (a refusal too): `lastActivity` here,
   * and the session's lastUsedAt in Redis with the reply, at most once a second
   * (LAST_USED_SAVE_MS). Once the worker is stopping, a call still running is answered at once.
   */
  private tracked(handler: ActionHandler): ActionHandler {
    return async (request) => {
      // Draining: nothing new runs here. The session stops pointing at this desktop, so its
      // next call gets a fresh desktop on another worker.
      if (this.services.draining()) {
        await this.services.sessions.detach(this.ref, this.id, 'its worker was shut down').catch(() => undefined);
        return {
          result: errorResult(
            'worker_lost',
            `The worker running this desktop is shutting down, so ${request.tool} was not run. Call again to get a new desktop (its apps and files start over; your grants are kept), then take a screenshot.`,
          ),
          timings: {},
        };
      }
      this.busy++;
      this.lastActivity = Date.now();
      try {
        const stopped = this.services.stopping.then((): HandledAction => ({
          result: errorResult(
            'worker_lost',
            `The worker running this desktop stopped during ${request.tool}. The action was not retried and may have partly run; call again to get a new desktop.`,
          ),
          timings: {},
        }));
        const reply: HandledAction = await Promise.race([handler(request), stopped]);
        if (request.actor === 'person') this.personActions++;
        else if (this.personActions > 0) {
          this.notice = `${this.notice ? `${this.notice} ` : ''}Note: a person drove this desktop from the web console since your last call (${this.personActions} action${this.personActions === 1 ? '' : 's'}); the screen has changed. Take a screenshot before acting on it.`;
          this.personActions = 0;
        }
        if (this.notice) {
          reply.result = { ...reply.result, content: [...reply.result.content, { type: 'text', text: this.notice }] };
          this.notice = null;
        }
        const now = Date.now();
        if (reply.persist) this.lastUsedSaved = now;
        else if (!this.failure) {
          reply.replyFirst = true; // lastUsedAt at most: nothing the next call reads
          if (now - this.lastUsedSaved >= LAST_USED_SAVE_MS) {
            reply.persist = (multi) => this.services.sessions.queueSave(multi, this.ref, this.desktop.id, null);
            this.lastUsedSaved = now;
          }
        }
        // The console timeline's frame of this call, taken once it is answered (never before).
        if (!this.failure) this.timeline.after({ actionId: request.id, tool: request.tool, at: Date.now() });
        return reply;
      } finally {
        this.busy--;
        this.lastActivity = Date.now();
      }
    };
  }

  /**
   * The runner while the desktop works; once it broke, one clear `desktop_failed` answer,
   * after which the session no longer points at it (so its next call gets a fresh desktop)
   * and the pool releases it.
   */
  private failSafe(runner: ActionHandler): ActionHandler {
    return async (request) => {
      if (!this.failure) return runner(request);
      await this.forget();
      setImmediate(() => this.hooks.answeredBroken(this));
      const message = `This session's desktop broke (${this.failure}) and was torn down; ${request.tool} did not run. The session starts over on a new desktop with your next call: its apps, files and grants are gone, so request access to your apps again, then take a screenshot.`;
      return { result: errorResult('desktop_failed', message), timings: {} };
    };
  }

  /** Unregisters the desktop; the session's binding goes only if it still points here. */
  async forget(): Promise<void> {
    await this.services.registry.remove(this.id);
    if ((await this.services.sessions.desktopOf(this.ref)) === this.id) await this.services.sessions.remove(this.ref);
  }

  /**
   * Stops serving (a call running finishes first), forgets the desktop in Redis, stops it.
   * `keepSession`: the session's binding stays (a drained worker's: the session hears on its
   * next call that its desktop is gone, instead of silently starting over).
   */
  close(redisBound?: (work: Promise<void>) => Promise<unknown>, options: { keepSession?: boolean } = {}): Promise<void> {
    this.closing ??= (async () => {
      const bookkeeping = (async () => {
        this.timeline.stop();
        await this.live?.stop();
        await this.server.close();
        if (options.keepSession) await this.services.registry.remove(this.id);
        else await this.forget();
      })();
      if (redisBound) {
        // Stopping: the processes go at once, beside a bounded bookkeeping.
        await Promise.all([this.desktop.stop(), redisBound(bookkeeping)]);
      } else {
        await bookkeeping;
        await this.desktop.stop();
      }
    })();
    return this.closing;
  }
}
