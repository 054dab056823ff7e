/**
 * Authenticates console requests by their session cookie (never a key or token in a URL) and
 * guards every state change against cross-site requests twice: the request must carry an
 * Origin naming this very host, and the session's CSRF token in a header that a page of
 * another origin cannot set without a CORS preflight deskgate never grants. SameSite=Strict
 * on the cookie is the third layer. A session whose key was revoked ends on its next request.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';
import type { Principal } from '../auth/api-keys.ts';
import { ApiError } from '../http/api-error.ts';
import { csrfMatches, type ConsoleSessions, type ConsoleUser } from './console-sessions.ts';
import type { SessionCookie } from './cookie.ts';

export interface ConsoleEnv {
  Variables: { principal: Principal; user: ConsoleUser; sessionId: string };
}

export const CSRF_HEADER = 'X-Deskgate-CSRF';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when the request's Origin header names the host the request was sent to. */
export function sameOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  const host = c.req.header('host');
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Refuses a state change that does not come from a page of this host (before any sign-in too). */
export function requireSameOrigin(c: Context): void {
  if (!sameOrigin(c)) throw new ApiError(403, 'csrf_failed', 'A console request that changes something must come from the console page itself (its Origin header must name this host). Nothing was done.');
}

export function consoleAuth(sessions: ConsoleSessions, cookie: SessionCookie, redis: Redis) {
  return createMiddleware<ConsoleEnv>(async function consoleAuthMiddleware(c, next) {
    const id = cookie.read(c);
    const user = await sessions.get(id);
    if (!id || !user) throw new ApiError(401, 'unauthorized', 'Sign in to the console with an approver, operator or admin API key.');
    if ((await redis.hexists(keys.apiKeys(), user.keyHash)) !== 1) {
      await sessions.end(id);
      cookie.clear(c);
      throw new ApiError(401, 'invalid_token', 'The API key this console sign-in came from was revoked. Sign in again with a valid key.');
    }
    if (!SAFE_METHODS.has(c.req.method)) {
      requireSameOrigin(c);
      if (!csrfMatches(user, c.req.header(CSRF_HEADER))) {
        throw new ApiError(403, 'csrf_failed', `A console request that changes something must carry the ${CSRF_HEADER} header of its sign-in. Nothing was done.`);
      }
    }
    c.set('user', user);
    c.set('sessionId', id);
    c.set('principal', { tenant: user.tenant, keyId: user.keyId, role: user.role });
    await next();
  });
}
