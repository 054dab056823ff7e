/**
 * The session a request names in its path (`/mcp/<session>`, `/v1/sessions/<session>/…`),
 * validated once for every route: a bad name is a 400 that says what a name may be.
 */
import type { Context } from 'hono';
import { sessionName } from '@deskgate/dispatch';
import { ApiError } from '../http/api-error.ts';

export function sessionFrom(c: Context, fallback?: string): string {
  const parsed = sessionName.safeParse(c.req.param('session') ?? fallback);
  if (!parsed.success) throw new ApiError(400, 'bad_session_name', parsed.error.issues[0]!.message);
  return parsed.data;
}
