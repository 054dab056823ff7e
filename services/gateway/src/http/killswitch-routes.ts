/**
 * The tenant's kill switch: GET shows it (and the global one), PUT flips the tenant's. For
 * operator and admin keys only — an agent must never lift the switch that stops it. Each flip
 * is recorded with the key id that made it (never the key) and when (KillSwitch.set).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { KillSwitch } from '@deskgate/dispatch';
import { CAN } from '../auth/roles.ts';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { jsonBody } from './json-body.ts';

const killSwitchBody = z.strictObject({ on: z.boolean() });

export function killSwitchRoutes(killSwitch: KillSwitch) {
  const routes = new Hono<AuthEnv>();
  const operator = requireRole(...CAN.flipKillSwitch);
  routes.get('/v1/killswitch', operator, async (c) => c.json(await killSwitch.state(c.var.principal.tenant)));
  routes.put('/v1/killswitch', operator, async (c) => {
    const { on } = await jsonBody(c, killSwitchBody, '{"on": true} or {"on": false}');
    const { tenant, keyId, role } = c.var.principal;
    await killSwitch.set(tenant, on, { keyId, role, via: 'api' });
    return c.json(await killSwitch.state(c.var.principal.tenant));
  });
  return routes;
}
