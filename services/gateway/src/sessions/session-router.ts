/**
 * Routes a tool call to the desktop of its session: look the session up in Redis, allocate a
 * desktop through the lifecycle queue when it has none (within the tenant's session quota),
 * then send the action over the action channel. A session whose desktop died is unbound, so
 * the next call gets a fresh desktop.
 *
 * The session → desktop binding is remembered between calls. That copy is only a hint: the
 * enqueue refuses a desktop that is not alive without queueing anything, and desktops are
 * never handed to another session, so a stale hint costs one lookup and a resend, never a
 * misrouted action.
 *
 * When every desktop is in use, a new session's first call waits for one (DESKGATE_DESKTOP_WAIT_SECONDS)
 * and then fails with `desktop_unavailable`: "All N desktops are in use … retry in ~M s".
 * A failed allocation reaches the client as `desktop_unavailable` with a message of the
 * gateway's own: the worker's reason (which names the worker, and may carry paths) is logged,
 * never forwarded.
 */
import { ToolError, type CoordinateMode, type ScreenshotAfter } from '@deskgate/computer-use';
import {
  ActionClient,
  DesktopGoneError,
  DesktopRegistry,
  DesktopsBusyError,
  LifecycleClient,
  PlatformUnavailableError,
  type Platform,
  SessionStore,
  claimLock,
  keys,
  markSessionCreator,
  readWorkerCapacities,
  retryAfterSeconds,
  sessionCreator,
  type ActionReply,
  type SessionRef,
  type TenantQuotas,
} from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

const MAX_REMEMBERED = 10_000;
/** What a client is told to wait before asking for a desktop again. */
export const ALLOCATE_RETRY_SECONDS = 10;
const EXISTS_TIMEOUT_MS = 1000;
const refKey = (ref: SessionRef) => `${ref.tenant}\u0000${ref.name}`;

export interface RouterDeps {
  redis: Redis;
  sessions: SessionStore;
  desktops: DesktopRegistry;
  lifecycle: LifecycleClient;
  actions: ActionClient;
  quotas: TenantQuotas;
  log: Logger;
  /** Told how long each new session waited for its desktop, and how that ended (metrics). */
  onDesktopWait?(ms: number, outcome: 'ok' | 'busy' | 'failed'): void;
}

export interface RouterSettings {
  actionTimeoutMs: number;
  allocateTimeoutMs: number;
  /** How long a new session waits for a desktop when every one is in use (0: not at all). */
  desktopWaitMs: number;
  lockLeaseMs: number;
}

/** Who a call is for: the controller (for the desktop's lock) and the API key behind it. */
export interface Caller {
  controller: string;
  keyId: string;
  /** Set once the call's session has a desktop (it existed, or was just started for it). */
  reachedSession?: boolean;
  /** ?screenshot_after= of the caller's endpoint, passed on with every call. */
  screenshotAfter?: ScreenshotAfter;
  /** ?platform= of the caller's endpoint: a new session is started only on a worker of it; an existing one must run on it. */
  platform?: Platform;
  /** `person`: a person drives from the web console (console/person-actions.ts). */
  actor?: 'person';
  /** The call's id on the action channel, also in its audit entry and its timeline frame. */
  actionId?: string;
  /** Counted against the tenant's call rate (an agent's call): by its enqueue, or before its session is looked up. */
  countsAgainstRate?: boolean;
}

/** Every desktop is in use: how many there are, how long the call waited, when to retry. */
export function busyError(session: string, error: DesktopsBusyError, now = Date.now()): ToolError {
  const { capacity, waitedMs } = error;
  const waited = waitedMs >= 1000 ? ` (it waited ${Math.round(waitedMs / 1000)} s for one)` : '';
  if (capacity.workers === 0) return new ToolError('desktop_unavailable', `No desktop is free for session "${session}" right now${waited}. Nothing was done; retry in ${ALLOCATE_RETRY_SECONDS} s.`, ALLOCATE_RETRY_SECONDS * 1000);
  const all = capacity.max === 1 ? 'The only desktop is' : `All ${capacity.max} desktops are`;
  const seconds = retryAfterSeconds(capacity, now);
  return new ToolError('desktop_unavailable', `${all} in use, so session "${session}" could not start${waited}. Nothing was done; retry in ~${seconds} s, or end a session you no longer need.`, seconds * 1000);
}

export type EndOutcome = { ended: true } | { ended: false; reason: 'not_found' } | { ended: false; reason: 'lock_held'; holder: string; leaseLeftMs: number };

export class SessionRouter {
  // One allocation in flight per session on this gateway: concurrent first calls share it.
  private readonly allocating = new Map<string, Promise<string>>();
  private readonly bindings = new Map<string, string>();
  /** The platform of desktops whose sessions were asked for one (desktop ids are never reused). */
  private readonly desktopPlatforms = new Map<string, string>();
  private readonly sessions: SessionStore;
  private readonly redis: Redis;
  private readonly log: Logger;

  constructor(
    private readonly deps: RouterDeps,
    private readonly settings: RouterSettings,
  ) {
    this.sessions = deps.sessions;
    this.redis = deps.redis;
    this.log = deps.log;
  }

  /**
   * `coordinateMode` is the mode the caller's endpoint asked for: a new session gets it; an
   * existing session with another mode refuses the call (state_conflict, from its worker).
   */
  async call(ref: SessionRef, caller: Caller, tool: string, args: unknown, extraMs: number, coordinateMode: CoordinateMode = 'pixels'): Promise<ActionReply> {
    const key = refKey(ref);
    const remembered = this.bindings.get(key);
    // A call whose session must be looked up (or started) is counted first, so a tenant over
    // its rate starts nothing; one to a known desktop is counted by its enqueue.
    const countNow = caller.countsAgainstRate === true && !remembered;
    if (countNow) await this.deps.quotas.countCall(ref.tenant);
    if (remembered && caller.platform) await this.checkPlatform(ref, remembered, caller.platform);
    const desktopId = remembered ?? (await this.bind(ref, caller, coordinateMode));
    caller.reachedSession = true;
    try {
      const timeoutMs = this.settings.actionTimeoutMs + extraMs;
      const callsPerSecond = caller.countsAgainstRate && !countNow ? this.deps.quotas.callsPerSecond : 0;
      return await this.deps.actions.send({ desktopId, tenant: ref.tenant, session: ref.name, controller: caller.controller, tool, args, timeoutMs, coordinateMode, screenshotAfter: caller.screenshotAfter, callsPerSecond, ...(caller.actor ? { actor: caller.actor } : {}), ...(caller.actionId ? { id: caller.actionId } : {}) });
    } catch (error) {
      if (!(error instanceof ToolError && error.kind === 'worker_lost')) throw error;
      this.bindings.delete(key);
      // Nothing was queued on a stale hint: look the binding up again and resend once.
      if (remembered && error instanceof DesktopGoneError) return this.call(ref, caller, tool, args, extraMs, coordinateMode);
      // The session keeps its grants for the fresh desktop its next call gets (which says so).
      await this.sessions.detach(ref, desktopId, 'its worker stopped');
      throw error;
    }
  }

  /** Whether the session exists now (has a record in Redis); false when Redis does not answer within a second. */
  async exists(ref: SessionRef): Promise<boolean> {
    if (this.bindings.has(refKey(ref))) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(0), EXISTS_TIMEOUT_MS)));
    try {
      return (await Promise.race([this.redis.exists(keys.session(ref.tenant, ref.name)), late])) === 1;
    } finally {
      clearTimeout(timer);
    }
  }

  private async bind(ref: SessionRef, caller: Caller, coordinateMode: CoordinateMode): Promise<string> {
    const existing = await this.sessions.desktopOf(ref);
    if (existing && caller.platform) await this.checkPlatform(ref, existing, caller.platform);
    const desktopId = existing ?? (await this.allocate(ref, caller, coordinateMode));
    if (this.bindings.size >= MAX_REMEMBERED) this.bindings.delete(this.bindings.keys().next().value!);
    this.bindings.set(refKey(ref), desktopId);
    return desktopId;
  }

  /** A session keeps the platform it started on: asking for another one is refused, nothing run. */
  private async checkPlatform(ref: SessionRef, desktopId: string, platform: Platform): Promise<void> {
    let runsOn = this.desktopPlatforms.get(desktopId);
    if (!runsOn) {
      const record = (await this.deps.desktops.get(desktopId)) as (Record<string, unknown> & { platform?: string }) | null;
      if (!record) return;
      runsOn = record.platform ?? 'linux';
      if (this.desktopPlatforms.size >= MAX_REMEMBERED) this.desktopPlatforms.delete(this.desktopPlatforms.keys().next().value!);
      this.desktopPlatforms.set(desktopId, runsOn);
    }
    if (runsOn !== platform) {
      throw new ToolError('state_conflict', `Session "${ref.name}" runs on a ${runsOn} desktop, not ${platform}: a session keeps the platform it started on. Nothing was done; use another session name for a ${platform} desktop.`);
    }
  }

  private allocate(ref: SessionRef, caller: Caller, coordinateMode: CoordinateMode): Promise<string> {
    const key = refKey(ref);
    let pending = this.allocating.get(key);
    if (!pending) {
      pending = this.startSession(ref, caller, coordinateMode).finally(() => this.allocating.delete(key));
      this.allocating.set(key, pending);
    }
    return pending;
  }

  /** A new session: a place within the tenant's quota (or quota_exceeded), then a desktop. */
  private async startSession(ref: SessionRef, caller: Caller, coordinateMode: CoordinateMode): Promise<string> {
    const release = await this.deps.quotas.reserveSession(ref);
    let desktopId: string;
    const waitStarted = performance.now();
    try {
      desktopId = await this.deps.lifecycle.allocate(ref, { waitMs: this.settings.desktopWaitMs, startMs: this.settings.allocateTimeoutMs }, coordinateMode, caller.platform);
      this.deps.onDesktopWait?.(performance.now() - waitStarted, 'ok');
    } catch (error) {
      this.deps.onDesktopWait?.(performance.now() - waitStarted, error instanceof DesktopsBusyError ? 'busy' : 'failed');
      this.log.warn({ err: error, tenant: ref.tenant, session: ref.name }, 'no desktop could be allocated');
      // No worker offers the platform asked for: its own clear answer (it names no worker).
      if (error instanceof PlatformUnavailableError) throw error;
      if (!(error instanceof DesktopsBusyError)) throw new ToolError('desktop_unavailable', `No desktop could be started for session "${ref.name}" right now. Nothing was done; retry in ${ALLOCATE_RETRY_SECONDS} s.`, ALLOCATE_RETRY_SECONDS * 1000);
      // Started meanwhile by a concurrent first call (on another gateway)?
      const started = await this.sessions.desktopOf(ref).catch(() => null);
      if (started) return started;
      throw busyError(ref.name, error);
    } finally {
      await release().catch((error: unknown) => this.log.warn({ err: error, tenant: ref.tenant }, 'session reservation not released (it lapses on its own)'));
    }
    await markSessionCreator(this.redis, ref, caller.keyId).catch((error: unknown) => this.log.warn({ err: error, tenant: ref.tenant, session: ref.name }, 'session creator not recorded'));
    return desktopId;
  }

  /** The desktop's heartbeat has lapsed and its worker publishes no room: the worker is gone. */
  private async workerGone(desktopId: string, workerId: string): Promise<boolean> {
    if (await this.deps.desktops.isAlive(desktopId)) return false;
    return !(await readWorkerCapacities(this.redis)).has(workerId);
  }

  /** The desktop a session currently holds, if any. */
  desktopOf(ref: SessionRef): Promise<string | null> {
    return this.sessions.desktopOf(ref);
  }

  /** The tenant's sessions; with `createdBy`, only those that key started. */
  async list(tenant: string, createdBy?: string) {
    const names = await this.sessions.list(tenant);
    const sessions = [];
    for (const name of names) {
      const session = await this.describe({ tenant, name });
      if (session && (createdBy === undefined || session.createdBy === createdBy)) sessions.push(session);
    }
    return sessions;
  }

  /** Tells the tenant's console pages the session changed (its lock was released). */
  sessionChanged(ref: SessionRef): Promise<void> {
    return this.sessions.changed(ref);
  }

  /** One session as list() shows it; null when it does not exist. */
  async describe(ref: SessionRef) {
    const [record, creator] = await Promise.all([this.sessions.get(ref), sessionCreator(this.redis, ref)]);
    if (!record) return null;
    const desktop = record.desktopId ? await this.deps.desktops.get(record.desktopId) : null;
    return {
      name: ref.name,
      desktop: desktop ? { id: desktop.id, width: desktop.width, height: desktop.height, alive: await this.deps.desktops.isAlive(desktop.id) } : null,
      createdBy: creator,
      createdAt: new Date(record.createdAt).toISOString(),
      lastUsedAt: new Date(record.lastUsedAt).toISOString(),
    };
  }

  /**
   * Ends a session: its desktop is torn down by the worker that owns it. With `controller`
   * (an agent ending it), only while that controller holds the desktop's lock — taken here if
   * nobody holds it — so an agent can never end a session another controller is driving.
   */
  async end(ref: SessionRef, controller?: string): Promise<EndOutcome> {
    const desktopId = await this.sessions.desktopOf(ref);
    if (desktopId && controller !== undefined) {
      const claim = await claimLock(this.redis, desktopId, controller, this.settings.lockLeaseMs);
      if (!claim.held) return { ended: false, reason: 'lock_held', holder: claim.holder, leaseLeftMs: claim.leaseLeftMs };
    }
    this.bindings.delete(refKey(ref));
    if (!desktopId) {
      const existed = (await this.sessions.get(ref)) !== null;
      await this.sessions.remove(ref);
      return existed ? { ended: true } : { ended: false, reason: 'not_found' };
    }
    const desktop = await this.deps.desktops.get(desktopId);
    await this.sessions.remove(ref);
    if (!desktop) return { ended: true };
    if (await this.workerGone(desktopId, desktop.workerId)) {
      // Nobody would take a release from a dead worker's queue: its record goes here, and a
      // worker that starts again under the same id reaps what the dead one left.
      await this.deps.desktops.remove(desktopId);
    } else {
      await this.deps.lifecycle.release(ref, desktopId, desktop.workerId);
    }
    return { ended: true };
  }
}
