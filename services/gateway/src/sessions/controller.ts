/**
 * Who is driving a session, for the desktop's lock. By default a controller is the API key;
 * agents that share one key tell themselves apart with the Deskgate-Controller header (MCP's
 * newest protocol generation is stateless, so there is no connection to tell them apart by).
 */
import type { Context } from 'hono';
import { controllerLabel } from '@deskgate/dispatch';
import { ApiError } from '../http/api-error.ts';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';

export const CONTROLLER_HEADER = 'Deskgate-Controller';

export function controllerOf(c: Context<AuthEnv>): string {
  const keyId = c.var.principal.keyId;
  const header = c.req.header(CONTROLLER_HEADER);
  if (header === undefined) return keyId;
  const label = controllerLabel.safeParse(header);
  if (!label.success) throw new ApiError(400, 'bad_controller', label.error.issues[0]!.message);
  return `${keyId}/${label.data}`;
}
