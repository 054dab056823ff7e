/**
 * Signing in and out. The key travels once, in the body of a same-origin POST, and is never
 * stored: the answer is a short-lived session cookie. Approver, operator and admin keys may
 * sign in; an agent key is refused (an agent must never reach the page that approves its
 * requests or lifts its kill switch), and a wrong key gets the same 401 as the API's.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { isRedisUnavailable } from '@deskgate/dispatch';
import { hashKey, type ApiKeyStore } from '../auth/api-keys.ts';
import { CAN } from '../auth/roles.ts';
import { ApiError, unavailableError } from '../http/api-error.ts';
import { jsonBody } from '../http/json-body.ts';
import { consoleAuth, requireSameOrigin, type ConsoleEnv } from './console-auth.ts';
import type { ConsoleSessions, ConsoleUser } from './console-sessions.ts';
import type { SessionCookie } from './cookie.ts';
import { offers } from './offers.ts';
import type { Redis } from 'ioredis';

const signInBody = z.strictObject({ key: z.string().min(1).max(200) });

const describe = (user: ConsoleUser) => ({ tenant: user.tenant, keyId: user.keyId, role: user.role, csrf: user.csrf, expiresAt: new Date(user.expiresAt).toISOString(), offers: offers(user.role) });

export function signInRoutes(apiKeys: ApiKeyStore, sessions: ConsoleSessions, cookie: SessionCookie, redis: Redis) {
  const routes = new Hono<ConsoleEnv>();
  routes.post('/api/sign-in', async (c) => {
    requireSameOrigin(c);
    const { key } = await jsonBody(c, signInBody, '{"key": "dg_…"}');
    const principal = await apiKeys.verify(key).catch((error: unknown) => {
      throw isRedisUnavailable(error) ? unavailableError() : error;
    });
    if (!principal) throw new ApiError(401, 'invalid_token', 'That API key is not valid.');
    if (!(CAN.useConsole as readonly string[]).includes(principal.role)) {
      throw new ApiError(403, 'role_required', 'The console is for approver, operator and admin keys; this is an agent key, which drives desktops over MCP only. Nothing was done.');
    }
    const { id, user } = await sessions.create({ ...principal, keyHash: hashKey(key) });
    cookie.set(c, id, sessions.ttlSeconds);
    return c.json(describe(user));
  });
  const auth = consoleAuth(sessions, cookie, redis);
  routes.get('/api/me', auth, (c) => c.json(describe(c.var.user)));
  routes.post('/api/sign-out', auth, async (c) => {
    await sessions.end(c.var.sessionId);
    cookie.clear(c);
    return c.json({ signedOut: true });
  });
  return routes;
}
