/**
 * Routes a tool call to the desktop of its session: look the session up in Redis, allocate a
 * desktop through the lifecycle queue when it has none, then send the action over the action
 * channel. A session whose desktop died is unbound, so the next call gets a fresh desktop.
 *
 * The session → desktop binding is remembered between calls. That copy is only a hint: the
 * enqueue refuses a desktop that is not alive without queueing anything, and desktops are
 * never handed to another session, so a stale hint costs one lookup and a resend, never a
 * misrouted action.
 */
import { ToolError, type CoordinateMode } from '@deskgate/computer-use';
import { ActionClient, DesktopGoneError, DesktopRegistry, LifecycleClient, SessionStore, type ActionReply, type SessionRef } from '@deskgate/dispatch';

const MAX_REMEMBERED = 10_000;
const refKey = (ref: SessionRef) => `${ref.tenant}\u0000${ref.name}`;

export interface RouterTimeouts {
  actionTimeoutMs: number;
  allocateTimeoutMs: number;
}

export class SessionRouter {
  // One allocation in flight per session on this gateway: concurrent first calls share it.
  private readonly allocating = new Map<string, Promise<string>>();
  private readonly bindings = new Map<string, string>();

  constructor(
    private readonly sessions: SessionStore,
    private readonly desktops: DesktopRegistry,
    private readonly lifecycle: LifecycleClient,
    private readonly actions: ActionClient,
    private readonly timeouts: RouterTimeouts,
  ) {}

  /**
   * `coordinateMode` is the mode the caller's endpoint asked for: a new session gets it; an
   * existing session with another mode refuses the call (state_conflict, from its worker).
   */
  async call(ref: SessionRef, controller: string, tool: string, args: unknown, extraMs: number, coordinateMode: CoordinateMode = 'pixels'): Promise<ActionReply> {
    const key = refKey(ref);
    const remembered = this.bindings.get(key);
    const desktopId = remembered ?? (await this.bind(ref, coordinateMode));
    try {
      return await this.actions.send({ desktopId, tenant: ref.tenant, session: ref.name, controller, tool, args, timeoutMs: this.timeouts.actionTimeoutMs + extraMs, coordinateMode });
    } catch (error) {
      if (!(error instanceof ToolError && error.kind === 'worker_lost')) throw error;
      this.bindings.delete(key);
      // Nothing was queued on a stale hint: look the binding up again and resend once.
      if (remembered && error instanceof DesktopGoneError) return this.call(ref, controller, tool, args, extraMs, coordinateMode);
      if ((await this.sessions.desktopOf(ref)) === desktopId) await this.sessions.remove(ref);
      throw error;
    }
  }

  private async bind(ref: SessionRef, coordinateMode: CoordinateMode): Promise<string> {
    const desktopId = (await this.sessions.desktopOf(ref)) ?? (await this.allocate(ref, coordinateMode));
    if (this.bindings.size >= MAX_REMEMBERED) this.bindings.delete(this.bindings.keys().next().value!);
    this.bindings.set(refKey(ref), desktopId);
    return desktopId;
  }

  private allocate(ref: SessionRef, coordinateMode: CoordinateMode): Promise<string> {
    const key = refKey(ref);
    let pending = this.allocating.get(key);
    if (!pending) {
      pending = this.lifecycle.allocate(ref, this.timeouts.allocateTimeoutMs, coordinateMode).finally(() => this.allocating.delete(key));
      this.allocating.set(key, pending);
    }
    return pending;
  }

  /** The desktop a session currently holds, if any. */
  desktopOf(ref: SessionRef): Promise<string | null> {
    return this.sessions.desktopOf(ref);
  }

  async list(tenant: string) {
    const names = await this.sessions.list(tenant);
    const sessions = [];
    for (const name of names) {
      const record = await this.sessions.get({ tenant, name });
      if (!record) continue;
      const desktop = record.desktopId ? await this.desktops.get(record.desktopId) : null;
      sessions.push({
        name,
        desktop: desktop ? { id: desktop.id, width: desktop.width, height: desktop.height, alive: await this.desktops.isAlive(desktop.id) } : null,
        createdAt: new Date(record.createdAt).toISOString(),
        lastUsedAt: new Date(record.lastUsedAt).toISOString(),
      });
    }
    return sessions;
  }

  /** Ends a session: its desktop is torn down by the worker that owns it. */
  async end(ref: SessionRef): Promise<boolean> {
    this.bindings.delete(refKey(ref));
    const desktopId = await this.sessions.desktopOf(ref);
    if (!desktopId) {
      const existed = (await this.sessions.get(ref)) !== null;
      await this.sessions.remove(ref);
      return existed;
    }
    const desktop = await this.desktops.get(desktopId);
    await this.sessions.remove(ref);
    if (desktop) await this.lifecycle.release(ref, desktopId, desktop.workerId);
    return true;
  }
}
