/**
 * Authenticates every request with `Authorization: Bearer <api key>` and resolves the caller
 * once — tenant, key id and role — as `c.var.principal` for every route after it. A missing
 * or wrong key is a 401 with a WWW-Authenticate challenge (RFC 6750) and never reaches a
 * handler. A key that cannot be checked because Redis is unreachable is a 503 `unavailable`
 * (fail closed: never a pass beyond the key cache's half second).
 */
import { createMiddleware } from 'hono/factory';
import type { Principal } from '../../auth/api-keys.ts';
import { isRedisUnavailable } from '@deskgate/dispatch';
import { ApiError, unavailableError } from '../../http/api-error.ts';

export interface AuthEnv {
  Variables: { principal: Principal };
}

export interface BearerAuthOptions {
  verify: (key: string) => Promise<Principal | null>;
  realm?: string;
}

export function bearerAuth(options: BearerAuthOptions) {
  const realm = options.realm ?? 'deskgate';
  return createMiddleware<AuthEnv>(async function bearerAuthMiddleware(c, next) {
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    if (!match) {
      throw new ApiError(401, 'unauthorized', 'Send an API key as "Authorization: Bearer <key>".', { 'WWW-Authenticate': `Bearer realm="${realm}"` });
    }
    // Fails closed: a key that cannot be checked (Redis unreachable) is a 503, never a pass.
    const principal = await options.verify(match[1]!).catch((error: unknown) => {
      throw isRedisUnavailable(error) ? unavailableError() : error;
    });
    if (!principal) {
      const challenge = `Bearer realm="${realm}", error="invalid_token", error_description="unknown or revoked API key"`;
      throw new ApiError(401, 'invalid_token', 'The API key is not valid.', { 'WWW-Authenticate': challenge });
    }
    c.set('principal', principal);
    await next();
  });
}
