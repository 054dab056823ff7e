/**
 * Who is driving a session, for the desktop's lock. By default a controller is the API key;
 * agents that share one key tell themselves apart with the Deskgate-Controller header (MCP's
 * newest protocol generation is stateless, so there is no connection to tell them apart by).
 */
import type { Context } from 'hono';
import { controllerLabel } from '@deskgate/dispatch';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';

export const CONTROLLER_HEADER = 'Deskgate-Controller';

export type ControllerResult = { ok: true; controller: string } | { ok: false; message: string };

export function controllerOf(c: Context<AuthEnv>): ControllerResult {
  const keyId = c.var.principal.keyId;
  const header = c.req.header(CONTROLLER_HEADER);
  if (header === undefined) return { ok: true, controller: keyId };
  const label = controllerLabel.safeParse(header);
  return label.success ? { ok: true, controller: `${keyId}/${label.data}` } : { ok: false, message: label.error.issues[0]!.message };
}
