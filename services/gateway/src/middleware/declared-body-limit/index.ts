/**
 * Hono's body limit, without its cost on the common path. Hono's middleware reads
 * `request.body`, which makes @hono/node-server build a full web `Request` for every call
 * (~0.1 ms); a request that declares its length is judged by the header alone and its body
 * is later read by the fast path. Chunked bodies, whose size is only known by reading them,
 * still go through Hono's counting limit.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

export interface DeclaredBodyLimitOptions {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}

export function declaredBodyLimit(options: DeclaredBodyLimitOptions): MiddlewareHandler {
  const counting = bodyLimit(options);
  return async function declaredBodyLimitMiddleware(c, next) {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined && /^\d+$/.test(length)) {
      return Number(length) > options.maxSize ? options.onError(c) : next();
    }
    return counting(c, next);
  };
}
