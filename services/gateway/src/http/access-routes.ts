/**
 * The tenant's control API beside MCP: pending access requests (approve or deny them — the
 * remote form of the seed's permission dialog) and the tenant's kill switch. Every route acts
 * on the authenticated key's tenant only.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApprovalStore } from '@deskgate/dispatch';
import type { KillSwitch } from '@deskgate/dispatch';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';

const decisionBody = z.strictObject({ decision: z.enum(['approve', 'deny']) });
const killSwitchBody = z.strictObject({ on: z.boolean() });

async function parseJson<T>(body: Promise<unknown>, schema: z.ZodType<T>): Promise<{ ok: true; value: T } | { ok: false; message: string }> {
  const raw = await body.catch(() => undefined);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: raw === undefined ? 'the body must be JSON' : parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
}

export function accessRoutes(approvals: ApprovalStore, killSwitch: KillSwitch) {
  const routes = new Hono<AuthEnv>();
  routes.get('/v1/approvals', async (c) => c.json({ approvals: await approvals.list(c.var.principal.tenant) }));
  routes.post('/v1/approvals/:id', async (c) => {
    const body = await parseJson(c.req.json(), decisionBody);
    if (!body.ok) return c.json({ error: 'bad_request', message: `${body.message} (send {"decision": "approve"} or {"decision": "deny"})` }, 400);
    const decided = await approvals.decide(c.var.principal.tenant, c.req.param('id'), body.value.decision === 'approve' ? 'approved' : 'denied');
    if (!decided) return c.json({ error: 'not_found', message: 'No pending access request with that id for your tenant (it may have timed out or been decided).' }, 404);
    return c.json({ id: c.req.param('id'), decision: body.value.decision });
  });
  routes.get('/v1/killswitch', async (c) => c.json(await killSwitch.state(c.var.principal.tenant)));
  routes.put('/v1/killswitch', async (c) => {
    const body = await parseJson(c.req.json(), killSwitchBody);
    if (!body.ok) return c.json({ error: 'bad_request', message: `${body.message} (send {"on": true} or {"on": false})` }, 400);
    await killSwitch.set(c.var.principal.tenant, body.value.on);
    return c.json(await killSwitch.state(c.var.principal.tenant));
  });
  return routes;
}
