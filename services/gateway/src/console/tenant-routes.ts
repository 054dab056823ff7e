/**
 * The console's tenant pages: sessions (list, end), approvals (list, decide) and the kill
 * switch (read, flip — with who flipped it and when, whichever way it was flipped). Each route
 * needs the same role as its counterpart in the REST API (auth/roles.ts), and acts on the
 * signed-in key's tenant only.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApprovalStore, KillSwitch } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import { CAN } from '../auth/roles.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonBody } from '../http/json-body.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import type { SessionRouter } from '../sessions/session-router.ts';
import type { ConsoleEnv } from './console-auth.ts';
import { sessionOverview, type OverviewDeps } from './session-overview.ts';

const decisionBody = z.strictObject({ decision: z.enum(['approve', 'deny']) });
const killSwitchBody = z.strictObject({ on: z.boolean() });

export interface TenantRouteDeps extends OverviewDeps {
  redis: Redis;
  router: SessionRouter;
  approvals: ApprovalStore;
  killSwitch: KillSwitch;
}

export function tenantRoutes(deps: TenantRouteDeps) {
  const routes = new Hono<ConsoleEnv>();

  routes.get('/api/sessions', requireRole(...CAN.watchSessions), async (c) => c.json({ sessions: await sessionOverview(deps, c.var.principal.tenant) }));
  routes.delete('/api/sessions/:session', requireRole(...CAN.watchSessions), async (c) => {
    const name = sessionFrom(c);
    const outcome = await deps.router.end({ tenant: c.var.principal.tenant, name });
    if (!outcome.ended) throw new ApiError(404, 'not_found', `No session "${name}".`);
    return c.json({ ended: name });
  });

  const approver = requireRole(...CAN.decideApprovals);
  routes.get('/api/approvals', approver, async (c) => c.json({ approvals: await deps.approvals.list(c.var.principal.tenant) }));
  routes.post('/api/approvals/:id', approver, async (c) => {
    const { decision } = await jsonBody(c, decisionBody, '{"decision": "approve"} or {"decision": "deny"}');
    const decided = await deps.approvals.decide(c.var.principal.tenant, c.req.param('id'), decision === 'approve' ? 'approved' : 'denied');
    if (!decided) throw new ApiError(404, 'not_found', 'No pending access request with that id for your tenant (it may have timed out or been decided).');
    return c.json({ id: c.req.param('id'), decision });
  });

  const operator = requireRole(...CAN.flipKillSwitch);
  routes.get('/api/killswitch', operator, async (c) => c.json(await deps.killSwitch.state(c.var.principal.tenant)));
  routes.put('/api/killswitch', operator, async (c) => {
    const { on } = await jsonBody(c, killSwitchBody, '{"on": true} or {"on": false}');
    const { tenant, keyId, role } = c.var.principal;
    await deps.killSwitch.set(tenant, on, { keyId, role, via: 'console' });
    return c.json(await deps.killSwitch.state(tenant));
  });
  return routes;
}
