/**
 * A tenant's sessions as the console shows them: each with its desktop, who holds its lock
 * (an agent, or a person in the console), the apps it was granted, its last call and how long
 * it has been idle. Read from Redis only; nothing here touches a desktop.
 */
import { AuditLog, DesktopLocks, SessionStore, describeController, isPersonController } from '@deskgate/dispatch';
import type { SessionRouter } from '../sessions/session-router.ts';

export interface OverviewDeps {
  router: SessionRouter;
  sessions: SessionStore;
  locks: DesktopLocks;
  audit: AuditLog;
}

export async function sessionOverview(deps: OverviewDeps, tenant: string, now = Date.now()) {
  return Promise.all((await deps.router.list(tenant)).map((session) => rowOf(deps, tenant, session, now)));
}

/** One session's row; null once it has ended. */
export async function sessionRow(deps: OverviewDeps, tenant: string, name: string, now = Date.now()) {
  const session = await deps.router.describe({ tenant, name });
  return session ? rowOf(deps, tenant, session, now) : null;
}

export type SessionRow = Awaited<ReturnType<typeof rowOf>>;

type ListedSession = NonNullable<Awaited<ReturnType<SessionRouter['describe']>>>;

async function rowOf({ sessions, locks, audit }: OverviewDeps, tenant: string, session: ListedSession, now: number) {
  const ref = { tenant, name: session.name };
  const [record, lock, [last]] = await Promise.all([
    sessions.get(ref),
    session.desktop ? locks.inspect(session.desktop.id) : null,
    audit.read(tenant, session.name, { count: 1 }),
  ]);
  return {
    ...session,
    idleMs: Math.max(0, now - Date.parse(session.lastUsedAt)),
    lock: lock ? { holder: describeController(lock.controller), person: isPersonController(lock.controller), leaseLeftMs: lock.leaseLeftMs } : null,
    grants: record ? { apps: record.state.grants.apps.map(({ app, tier }) => ({ app, tier })), flags: record.state.grants.flags } : null,
    coordinateMode: record?.state.coordinateMode ?? 'pixels',
    lastAction: last ? { tool: last.tool, outcome: last.outcome, kind: last.kind ?? null, at: new Date(last.at).toISOString(), actor: actorOf(last.controller, last.keyId) } : null,
  };
}

/** Who made an audited call: a person in the console, or an agent (its controller). */
export function actorOf(controller: string | undefined, keyId: string | undefined): { type: 'person' | 'agent'; name: string } {
  if (controller && isPersonController(controller)) return { type: 'person', name: controller.slice('person:'.length) };
  return { type: 'agent', name: controller ?? keyId ?? 'unknown' };
}
