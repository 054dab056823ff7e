/**
 * The tenant's sessions beside MCP. Listing: an agent sees the sessions its key started, an
 * operator or admin every session of the tenant. Ending: an operator or admin ends any; an
 * agent only as the session's controller — holding its desktop's lock, or taking it when
 * nobody holds it — and otherwise gets 409 naming the controller that does.
 */
import { Hono } from 'hono';
import { describeController } from '@deskgate/dispatch';
import { CAN, actsForTenant } from '../auth/roles.ts';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { controllerOf } from '../sessions/controller.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import type { SessionRouter } from '../sessions/session-router.ts';
import { ApiError } from './api-error.ts';

export function sessionRoutes(router: SessionRouter) {
  const routes = new Hono<AuthEnv>();
  routes.get('/v1/sessions', requireRole(...CAN.listSessions), async (c) => {
    const { tenant, keyId, role } = c.var.principal;
    return c.json({ sessions: await router.list(tenant, actsForTenant(role) ? undefined : keyId) });
  });
  routes.delete('/v1/sessions/:session', requireRole(...CAN.endSessions), async (c) => {
    const name = sessionFrom(c);
    const { tenant, role } = c.var.principal;
    const outcome = await router.end({ tenant, name }, actsForTenant(role) ? undefined : controllerOf(c));
    if (outcome.ended) return c.json({ ended: name });
    if (outcome.reason === 'not_found') throw new ApiError(404, 'not_found', `No session "${name}".`);
    const seconds = Math.max(1, Math.ceil(outcome.leaseLeftMs / 1000));
    throw new ApiError(
      409,
      'lock_held',
      `Another controller holds this session's desktop (${describeController(outcome.holder)}), so it was not ended. Only its holder or an operator key can end it; its lock ends within ${seconds} s unless it keeps acting.`,
    );
  });
  return routes;
}
