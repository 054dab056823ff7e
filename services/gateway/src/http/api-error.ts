/**
 * The gateway's one HTTP error vocabulary: routes and middleware throw an ApiError (a Hono
 * HTTPException carrying a machine-readable code), and one onError renders every error as
 * `{ error, message }` JSON. Anything else thrown is logged and answered 500 without detail,
 * so no internal message, path or id reaches a client. A Redis outage anywhere is a 503
 * `unavailable` with Retry-After (docs/redis.md).
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { isRedisUnavailable, UNAVAILABLE_MESSAGE } from '@deskgate/dispatch';

export class ApiError extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(status, { message });
  }
}

/** Seconds a client is told to wait (Retry-After) while Redis is unreachable. */
export const UNAVAILABLE_RETRY_SECONDS = 2;

/** 503 `unavailable`: deskgate's state store cannot be reached, nothing was done. */
export function unavailableError(): ApiError {
  return new ApiError(503, 'unavailable', UNAVAILABLE_MESSAGE, { 'Retry-After': String(UNAVAILABLE_RETRY_SECONDS) });
}

/** Codes for HTTPExceptions thrown by Hono itself or by libraries. */
const CODES: Partial<Record<number, string>> = { 400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 413: 'payload_too_large' };

export function renderErrors(log: Logger) {
  return function onError(error: Error, c: Context): Response {
    if (isRedisUnavailable(error)) error = unavailableError();
    if (error instanceof ApiError) return c.json({ error: error.code, message: error.message }, error.status as ContentfulStatusCode, error.headers);
    if (error instanceof HTTPException && error.status < 500) {
      return c.json({ error: CODES[error.status] ?? 'bad_request', message: error.message || 'The request was refused.' }, error.status as ContentfulStatusCode);
    }
    log.error({ err: error, method: c.req.method, route: c.req.routePath }, 'unhandled gateway error');
    return c.json({ error: 'internal', message: 'deskgate hit an internal error; the gateway logged the cause.' }, 500);
  };
}
