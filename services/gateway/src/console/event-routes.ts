/**
 * The console's pushed updates, over Server-Sent Events (`/console/api/events`, the console's
 * sign-in cookie only — a view-only share cookie reaches nothing here). A stream opens with a
 * `snapshot` of everything the signed-in role may see (pending approvals; the sessions), then
 * carries each change as it happens (`approval`, `approval_gone`, `session`). A page that
 * reconnects — the browser does so on its own — gets a fresh snapshot, so nothing is lost
 * while it was away, and never needs to ask for a list. The stream ends when the sign-in does
 * (expiry, sign-out or the key revoked: checked every heartbeat), and when the page falls so
 * far behind that its backlog fills (it reconnects and starts over from a snapshot).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Hono } from 'hono';
import { streamSSE, type SSEMessage } from 'hono/streaming';
import { keys, type ApprovalStore } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import { CAN, type Role } from '../auth/roles.ts';
import { ApiError } from '../http/api-error.ts';
import type { ConsoleEnv } from './console-auth.ts';
import type { ConsoleSessions } from './console-sessions.ts';
import type { ConsoleEventHub, PageEvent, PageListener } from './console-event-hub.ts';
import { sessionOverview, type OverviewDeps } from './session-overview.ts';

export const EVENT_STREAM_LIMITS = {
  /** Streams one sign-in may hold open on one gateway at once (a person with several tabs). */
  perSignIn: 8,
  /** How often a comment keeps proxies from closing an idle stream, and the sign-in is re-checked. */
  heartbeatMs: 15_000,
  /** Events waiting to be written to a page that does not read; past it the stream ends. */
  backlog: 200,
  /** How soon the browser reconnects after the stream ends. */
  retryMs: 1000,
  /** How long an ending stream may take to deliver what it still holds before it is cut. */
  flushMs: 1000,
} as const;

export interface EventRouteDeps {
  hub: ConsoleEventHub;
  approvals: ApprovalStore;
  overview: OverviewDeps;
  sessions: ConsoleSessions;
  redis: Redis;
}

const has = (roles: readonly Role[], role: Role) => roles.includes(role);

export function eventRoutes(deps: EventRouteDeps) {
  const routes = new Hono<ConsoleEnv>();
  const open = new Map<string, number>();

  routes.get('/api/events', async (c) => {
    const { tenant, role } = c.var.principal;
    const { user, sessionId } = c.var;
    const wants = { approvals: has(CAN.decideApprovals, role), sessions: has(CAN.watchSessions, role) };
    const held = open.get(sessionId) ?? 0;
    if (held >= EVENT_STREAM_LIMITS.perSignIn) {
      throw new ApiError(429, 'too_many_streams', `This sign-in already has ${held} console pages receiving updates from this gateway (at most ${EVENT_STREAM_LIMITS.perSignIn}). Close one, or sign in again.`);
    }
    open.set(sessionId, held + 1);
    const stillSignedIn = async () => (await deps.sessions.get(sessionId)) !== null && (await deps.redis.hexists(keys.apiKeys(), user.keyHash)) === 1;

    return streamSSE(c, async (stream) => {
      let ended: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (ended = resolve));
      let chain = Promise.resolve();
      let backlog = 0;
      const write = (message: SSEMessage) => {
        if (backlog >= EVENT_STREAM_LIMITS.backlog) return ended();
        backlog++;
        chain = chain.then(() => stream.writeSSE(message)).then(() => void backlog--);
      };
      const toMessage = ({ event, data }: PageEvent): SSEMessage => ({ event, data: JSON.stringify(data) });
      // Events heard before the snapshot is written wait for it (the page applies both by id).
      let waiting: PageEvent[] | null = [];
      const listener: PageListener = {
        wantsSessions: wants.sessions,
        send(event) {
          if (!(event.event === 'session' ? wants.sessions : wants.approvals)) return;
          if (waiting) waiting.push(event);
          else write(toMessage(event));
        },
        reset: () => ended(),
      };
      stream.onAbort(() => ended());
      let stop: () => void = () => undefined;
      const timers: NodeJS.Timeout[] = [];
      try {
        stop = await deps.hub.subscribe(tenant, listener);
        const [approvals, sessions] = await Promise.all([
          wants.approvals ? deps.approvals.list(tenant) : undefined,
          wants.sessions ? sessionOverview(deps.overview, tenant) : undefined,
        ]);
        write({ event: 'snapshot', data: JSON.stringify({ approvals, sessions }), retry: EVENT_STREAM_LIMITS.retryMs });
        for (const event of waiting.splice(0)) write(toMessage(event));
        waiting = null;
        const signedOut = () => (write({ event: 'signed_out', data: '{}' }), ended());
        timers.push(setTimeout(signedOut, Math.max(0, user.expiresAt - Date.now())));
        timers.push(
          setInterval(() => {
            stillSignedIn().then((yes) => (yes ? void stream.write(': heartbeat\n\n').catch(() => ended()) : signedOut()), () => undefined);
          }, EVENT_STREAM_LIMITS.heartbeatMs),
        );
        await done;
      } finally {
        for (const timer of timers) clearTimeout(timer);
        stop();
        // A page that stopped reading holds the writes up: cut it (it reconnects and starts over).
        const flushed = await Promise.race([chain.then(() => true), sleep(EVENT_STREAM_LIMITS.flushMs).then(() => false)]);
        if (!flushed) stream.abort();
        const left = (open.get(sessionId) ?? 1) - 1;
        if (left > 0) open.set(sessionId, left);
        else open.delete(sessionId);
      }
    });
  });
  return routes;
}
