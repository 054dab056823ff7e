/**
 * Pending access requests (tenant policy `approval: human`) and their decisions — the remote
 * form of the seed's permission dialog. For approver, operator and admin keys only: an agent
 * must never approve its own request. Both act on the key's tenant only.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApprovalStore } from '@deskgate/dispatch';
import { CAN } from '../auth/roles.ts';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { ApiError } from './api-error.ts';
import { jsonBody } from './json-body.ts';

const decisionBody = z.strictObject({ decision: z.enum(['approve', 'deny']) });

export function approvalRoutes(approvals: ApprovalStore) {
  const routes = new Hono<AuthEnv>();
  const approver = requireRole(...CAN.decideApprovals);
  routes.get('/v1/approvals', approver, async (c) => c.json({ approvals: await approvals.list(c.var.principal.tenant) }));
  routes.post('/v1/approvals/:id', approver, async (c) => {
    const { decision } = await jsonBody(c, decisionBody, '{"decision": "approve"} or {"decision": "deny"}');
    const decided = await approvals.decide(c.var.principal.tenant, c.req.param('id'), decision === 'approve' ? 'approved' : 'denied');
    if (!decided) throw new ApiError(404, 'not_found', 'No pending access request with that id for your tenant (it may have timed out or been decided).');
    return c.json({ id: c.req.param('id'), decision });
  });
  return routes;
}
