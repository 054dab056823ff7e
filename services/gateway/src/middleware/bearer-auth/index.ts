/**
 * Authenticates every request with `Authorization: Bearer <api key>`. A missing or wrong key
 * gets 401 with a WWW-Authenticate challenge (RFC 6750) and never reaches a handler.
 */
import { createMiddleware } from 'hono/factory';
import type { Principal } from '../../auth/api-keys.ts';

export interface AuthEnv {
  Variables: { principal: Principal };
}

export function bearerAuth(options: { verify: (key: string) => Promise<Principal | null>; realm?: string }) {
  const realm = options.realm ?? 'deskgate';
  return createMiddleware<AuthEnv>(async function bearerAuthMiddleware(c, next) {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) {
      c.header('WWW-Authenticate', `Bearer realm="${realm}"`);
      return c.json({ error: 'unauthorized', message: 'Send an API key as "Authorization: Bearer <key>".' }, 401);
    }
    const principal = await options.verify(match[1]!);
    if (!principal) {
      c.header('WWW-Authenticate', `Bearer realm="${realm}", error="invalid_token", error_description="unknown or revoked API key"`);
      return c.json({ error: 'invalid_token', message: 'The API key is not valid.' }, 401);
    }
    c.set('principal', principal);
    await next();
  });
}
