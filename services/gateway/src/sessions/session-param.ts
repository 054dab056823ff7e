/**
 * The session a request names in its path (`/mcp/<session>`, `/v1/sessions/<session>/…`),
 * validated once for every route: a bad name is a 400 that says what a name may be.
 */
import type { Context } from 'hono';
import { sessionName } from '@deskgate/dispatch';

export type FromRequest<T> = { ok: true; value: T } | { ok: false; response: Response };

export function sessionFrom(c: Context, fallback?: string): FromRequest<string> {
  const parsed = sessionName.safeParse(c.req.param('session') ?? fallback);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, response: c.json({ error: 'bad_session_name', message: parsed.error.issues[0]!.message }, 400) };
}
