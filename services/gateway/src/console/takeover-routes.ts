/**
 * Takeover over HTTP: take the desktop, keep it while the page is open, act, hand it back.
 * Operator and admin keys only (CAN.takeOverDesktops); every route is a state change, so
 * each passes the console's Origin and CSRF checks.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { CAN } from '../auth/roles.ts';
import { jsonBody } from '../http/json-body.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import type { ConsoleEnv } from './console-auth.ts';
import type { PersonActions } from './person-actions.ts';

const renewBody = z.strictObject({ epoch: z.number().int().min(1) });
const actBody = z.strictObject({ tool: z.string().min(1).max(64), args: z.record(z.string(), z.unknown()).default({}) });

export function takeoverRoutes(person: PersonActions) {
  const routes = new Hono<ConsoleEnv>();
  const driver = requireRole(...CAN.takeOverDesktops);
  const who = (c: { var: ConsoleEnv['Variables'] }) => ({ tenant: c.var.principal.tenant, keyId: c.var.principal.keyId });

  routes.post('/api/sessions/:session/takeover', driver, async (c) => c.json(await person.takeOver(who(c), sessionFrom(c))));
  routes.post('/api/sessions/:session/takeover/renew', driver, async (c) => {
    const { epoch } = await jsonBody(c, renewBody, '{"epoch": <the epoch of your takeover>}');
    return c.json(await person.renew(who(c), sessionFrom(c), epoch));
  });
  routes.delete('/api/sessions/:session/takeover', driver, async (c) => {
    await person.handBack(who(c), sessionFrom(c));
    return c.json({ handedBack: true });
  });
  routes.post('/api/sessions/:session/act', driver, async (c) => {
    const { tool, args } = await jsonBody(c, actBody, '{"tool": "left_click", "args": {"coordinate": [x, y]}}');
    return c.json(await person.act(who(c), sessionFrom(c), tool, args));
  });
  return routes;
}
