/**
 * The gateway side of what the console is told as it happens (console-events.ts in dispatch):
 * one Redis subscriber per gateway, open while pages are connected and subscribed to a tenant's
 * channel while at least one page of that tenant is connected here. An approval event goes to
 * the pages as it came; a session event becomes that session's current row, read once per
 * gateway however many pages watch, and changes of one session within SESSION_COALESCE_MS
 * are read once. A row with a lock is read again when the lock's lease lapses (a lapse
 * publishes nothing). Some changes publish nothing at all — a worker that dies cannot tell
 * that its desktops are gone — so while pages watch a tenant's sessions, its list is read again
 * every SWEEP_MS and rows that changed are sent (once per gateway, not per page). If the
 * subscriber's connection drops, every page is reset (it reconnects and re-reads everything):
 * messages published meanwhile are lost to pub/sub.
 */
import { parseConsoleEvent, tenantOfConsoleChannel, keys, type PendingApproval } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { sessionOverview, sessionRow, type OverviewDeps, type SessionRow } from './session-overview.ts';

export type PageEvent =
  | { event: 'approval'; data: PendingApproval }
  | { event: 'approval_gone'; data: { id: string } }
  | { event: 'session'; data: { name: string; session: SessionRow | null } };

export interface PageListener {
  /** Whether the page is sent session rows (its role watches sessions). */
  readonly wantsSessions: boolean;
  send(event: PageEvent): void;
  /** The hub lost events (its subscriber reconnected): the page must start over. */
  reset(): void;
}

export const SESSION_COALESCE_MS = 100;
/** How often a watched tenant's sessions are read again for what publishes nothing (a dead worker's desktops). */
export const SWEEP_MS = 10_000;
/** Past a lease's end, so the row read then no longer shows the lapsed lock. */
const LAPSE_SLACK_MS = 50;

export class ConsoleEventHub {
  private subscriber: Redis | null = null;
  private readonly pages = new Map<string, Set<PageListener>>();
  /** Session rows due to be read again: "<tenant>\0<session>" → when and its timer. */
  private readonly due = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  /** What each session's row last sent looked like (its moving parts left out), to send only changes. */
  private readonly sent = new Map<string, string>();
  private readonly sweeps = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly redis: Redis,
    private readonly overview: OverviewDeps,
    private readonly log: Logger,
  ) {}

  /** Starts telling `listener` the tenant's changes; resolves once subscribed (events from then on reach it). */
  async subscribe(tenant: string, listener: PageListener): Promise<() => void> {
    let set = this.pages.get(tenant);
    if (!set) {
      set = new Set();
      this.pages.set(tenant, set);
      await this.subscribed().subscribe(keys.consoleEvents(tenant));
    }
    set.add(listener);
    if (listener.wantsSessions && !this.sweeps.has(tenant)) {
      const sweep = setInterval(() => void this.sweep(tenant), SWEEP_MS);
      sweep.unref();
      this.sweeps.set(tenant, sweep);
    }
    return () => {
      set.delete(listener);
      if (set.size > 0 || this.pages.get(tenant) !== set) return;
      this.pages.delete(tenant);
      clearInterval(this.sweeps.get(tenant));
      this.sweeps.delete(tenant);
      for (const [key, { timer }] of this.due) if (key.startsWith(`${tenant}\0`)) (clearTimeout(timer), this.due.delete(key));
      for (const key of this.sent.keys()) if (key.startsWith(`${tenant}\0`)) this.sent.delete(key);
      if (this.pages.size > 0) {
        this.subscriber?.unsubscribe(keys.consoleEvents(tenant)).catch(() => undefined);
        return;
      }
      // The last page left: a gateway no console page is connected to holds no extra connection.
      this.subscriber?.disconnect();
      this.subscriber = null;
    };
  }

  /** Pages connected to this gateway (all tenants). */
  get pageCount(): number {
    let count = 0;
    for (const set of this.pages.values()) count += set.size;
    return count;
  }

  private subscribed(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate();
    let connectedOnce = false;
    subscriber.on('error', (error: Error) => this.log.debug({ err: error.message }, 'console event subscriber error'));
    subscriber.on('ready', () => {
      if (connectedOnce) for (const set of this.pages.values()) for (const page of set) page.reset();
      connectedOnce = true;
    });
    subscriber.on('message', (channel: string, message: string) => {
      const tenant = tenantOfConsoleChannel(channel);
      const event = parseConsoleEvent(message);
      if (!tenant || !event) return;
      if (event.type === 'session') this.schedule(tenant, event.session, SESSION_COALESCE_MS);
      else if (event.type === 'approval') this.tell(tenant, { event: 'approval', data: event.approval });
      else this.tell(tenant, { event: 'approval_gone', data: { id: event.id } });
    });
    return (this.subscriber = subscriber);
  }

  private tell(tenant: string, event: PageEvent): void {
    if (event.event === 'session') this.sent.set(`${tenant}\0${event.data.name}`, fingerprint(event.data.session));
    for (const page of this.pages.get(tenant) ?? []) page.send(event);
  }

  /** Sends the rows that changed since they were last sent, and the end of sessions gone without a word. */
  private async sweep(tenant: string): Promise<void> {
    try {
      const rows = await sessionOverview(this.overview, tenant);
      const names = new Set(rows.map((row) => row.name));
      for (const row of rows) if (this.sent.get(`${tenant}\0${row.name}`) !== fingerprint(row)) this.tell(tenant, { event: 'session', data: { name: row.name, session: row } });
      for (const key of [...this.sent.keys()]) {
        const name = key.slice(tenant.length + 1);
        if (key.startsWith(`${tenant}\0`) && !names.has(name) && this.sent.get(key) !== fingerprint(null)) this.tell(tenant, { event: 'session', data: { name, session: null } });
      }
    } catch (error) {
      this.log.warn({ err: error, tenant }, 'console sessions not swept');
    }
  }

  /** Reads the session's row in `delayMs` (or sooner, if already due sooner). */
  private schedule(tenant: string, session: string, delayMs: number): void {
    const key = `${tenant}\0${session}`;
    const at = Date.now() + delayMs;
    const existing = this.due.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.due.delete(key);
      void this.readRow(tenant, session);
    }, delayMs);
    timer.unref();
    this.due.set(key, { at, timer });
  }

  private async readRow(tenant: string, session: string): Promise<void> {
    if (!this.pages.has(tenant)) return;
    try {
      const row = await sessionRow(this.overview, tenant, session);
      this.tell(tenant, { event: 'session', data: { name: session, session: row } });
      if (row?.lock) this.schedule(tenant, session, row.lock.leaseLeftMs + LAPSE_SLACK_MS);
    } catch (error) {
      this.log.warn({ err: error, tenant, session }, 'console session row not read');
    }
  }
}

/** A row without what moves on its own (idle time, a lease's time left). */
const fingerprint = (row: SessionRow | null) => JSON.stringify(row && { ...row, idleMs: 0, lock: row.lock && { ...row.lock, leaseLeftMs: 0 } });
