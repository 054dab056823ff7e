/**
 * A session's desktop lock beside MCP: GET shows who holds it and for how long (agents,
 * operators, admins); DELETE lets its holder — an agent — hand the desktop over at once
 * instead of waiting for the lease to lapse. Both act on the key's tenant only.
 */
import { Hono, type Context } from 'hono';
import { describeController, type DesktopLocks } from '@deskgate/dispatch';
import { CAN } from '../auth/roles.ts';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { controllerOf } from '../sessions/controller.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import type { SessionRouter } from '../sessions/session-router.ts';
import { ApiError } from './api-error.ts';

export function lockRoutes(router: SessionRouter, locks: DesktopLocks) {
  const routes = new Hono<AuthEnv>();

  /** The caller's controller id and the session's desktop. */
  async function resolve(c: Context<AuthEnv>) {
    const session = sessionFrom(c);
    const controller = controllerOf(c);
    const desktopId = await router.desktopOf({ tenant: c.var.principal.tenant, name: session });
    return { session, controller, desktopId };
  }

  routes.get('/v1/sessions/:session/lock', requireRole(...CAN.inspectLocks), async (c) => {
    const r = await resolve(c);
    const lock = r.desktopId ? await locks.inspect(r.desktopId) : null;
    if (!lock) return c.json({ session: r.session, held: false });
    return c.json({ session: r.session, held: true, holder: describeController(lock.controller), yours: lock.controller === r.controller, epoch: lock.epoch, leaseLeftMs: lock.leaseLeftMs });
  });

  routes.delete('/v1/sessions/:session/lock', requireRole(...CAN.useLocks), async (c) => {
    const r = await resolve(c);
    const outcome = r.desktopId ? await locks.release(r.desktopId, r.controller) : 'free';
    if (outcome === 'held_by_other') throw new ApiError(409, 'lock_held', 'Another controller holds this desktop; only its holder can release the lock.');
    if (outcome === 'free') throw new ApiError(404, 'not_found', `Nobody holds the lock of session "${r.session}".`);
    await router.sessionChanged({ tenant: c.var.principal.tenant, name: r.session });
    return c.json({ session: r.session, released: true });
  });
  return routes;
}
