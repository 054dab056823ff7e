/**
 * Who is driving a session, for the desktop's lock. By default a controller is the API key;
 * agents that share one key tell themselves apart with the Deskgate-Controller header (MCP's
 * newest protocol generation is stateless, so there is no connection to tell them apart by).
 */
import type { Context } from 'hono';
import { controllerLabel } from '@deskgate/dispatch';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';
import type { FromRequest } from './session-param.ts';

export const CONTROLLER_HEADER = 'Deskgate-Controller';

export function controllerOf(c: Context<AuthEnv>): FromRequest<string> {
  const keyId = c.var.principal.keyId;
  const header = c.req.header(CONTROLLER_HEADER);
  if (header === undefined) return { ok: true, value: keyId };
  const label = controllerLabel.safeParse(header);
  return label.success
    ? { ok: true, value: `${keyId}/${label.data}` }
    : { ok: false, response: c.json({ error: 'bad_controller', message: label.error.issues[0]!.message }, 400) };
}
