/**
 * A session's desktop lock beside MCP: GET shows who holds it and for how long; DELETE lets
 * its holder hand the desktop over at once instead of waiting for the lease to lapse. Both
 * act on the authenticated key's tenant only; only the holder can release.
 */
import { Hono, type Context } from 'hono';
import { describeController, type DesktopLocks } from '@deskgate/dispatch';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';
import { controllerOf } from '../sessions/controller.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import type { SessionRouter } from '../sessions/session-router.ts';

export function lockRoutes(router: SessionRouter, locks: DesktopLocks) {
  const routes = new Hono<AuthEnv>();

  /** The caller's controller id and the session's desktop, or the error response. */
  async function resolve(c: Context<AuthEnv>) {
    const session = sessionFrom(c);
    if (!session.ok) return { error: session.response };
    const controller = controllerOf(c);
    if (!controller.ok) return { error: controller.response };
    const desktopId = await router.desktopOf({ tenant: c.var.principal.tenant, name: session.value });
    return { session: session.value, controller: controller.value, desktopId };
  }

  routes.get('/v1/sessions/:session/lock', async (c) => {
    const r = await resolve(c);
    if (r.error) return r.error;
    const lock = r.desktopId ? await locks.inspect(r.desktopId) : null;
    if (!lock) return c.json({ session: r.session, held: false });
    return c.json({ session: r.session, held: true, holder: describeController(lock.controller), yours: lock.controller === r.controller, epoch: lock.epoch, leaseLeftMs: lock.leaseLeftMs });
  });

  routes.delete('/v1/sessions/:session/lock', async (c) => {
    const r = await resolve(c);
    if (r.error) return r.error;
    const outcome = r.desktopId ? await locks.release(r.desktopId, r.controller) : 'free';
    if (outcome === 'held_by_other') return c.json({ error: 'lock_held', message: 'Another controller holds this desktop; only its holder can release the lock.' }, 409);
    if (outcome === 'free') return c.json({ error: 'not_found', message: `Nobody holds the lock of session "${r.session}".` }, 404);
    return c.json({ session: r.session, released: true });
  });
  return routes;
}
