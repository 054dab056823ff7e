/**
 * What the web console is told as it happens, per tenant, over Redis pub/sub (so a change made
 * through any gateway or worker reaches the console pages open on every gateway): an access
 * request parked for a person, one gone (decided, timed out, abandoned), and "this session
 * changed" (started, ended, lost its desktop, made a call, its lock taken or released). The
 * gateways turn a session change into that session's current row; the page never asks.
 * Publishing is fire-and-forget by nature: a page that was not connected re-reads everything
 * when it reconnects (docs/console.md).
 */
import type { ChainableCommander } from 'ioredis';
import { z } from 'zod';
import type { PendingApproval } from './pending-approval.ts';
import { keys } from './keys.ts';

const consoleEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('approval'), approval: z.looseObject({ id: z.string(), session: z.string() }) }),
  z.object({ type: z.literal('approval_gone'), id: z.string() }),
  z.object({ type: z.literal('session'), session: z.string() }),
]);

export type ConsoleEvent = { type: 'approval'; approval: PendingApproval } | { type: 'approval_gone'; id: string } | { type: 'session'; session: string };

/** The channel and message that publish an event. */
export function consoleMessage(tenant: string, event: ConsoleEvent): [channel: string, message: string] {
  return [keys.consoleEvents(tenant), JSON.stringify(event)];
}

/** Adds the event's publication to a transaction the caller runs (it goes out with the change). */
export function queueConsoleEvent(multi: ChainableCommander, tenant: string, event: ConsoleEvent): ChainableCommander {
  return multi.publish(...consoleMessage(tenant, event));
}

/** The tenant a console channel belongs to, or null for another channel. */
export function tenantOfConsoleChannel(channel: string): string | null {
  return /^deskgate:tenant:([^:]+):console:events$/.exec(channel)?.[1] ?? null;
}

/** A message off a console channel; null when it is not one (it is never trusted blindly). */
export function parseConsoleEvent(message: string): ConsoleEvent | null {
  try {
    const parsed = consoleEvent.safeParse(JSON.parse(message));
    return parsed.success ? (parsed.data as ConsoleEvent) : null;
  } catch {
    return null;
  }
}
