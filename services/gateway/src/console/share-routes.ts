/**
 * Sharing a session's live view: an operator creates a link (console API, CSRF-checked); the
 * link's holder opens it, and the page trades the token for a view-only cookie that works on
 * `/console/share/live` and nowhere else, until the link expires.
 */
import { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import { CAN } from '../auth/roles.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonBody } from '../http/json-body.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import type { SessionRouter } from '../sessions/session-router.ts';
import { requireSameOrigin, type ConsoleEnv } from './console-auth.ts';
import type { LiveHub } from './live-hub.ts';
import { streamLive } from './live-routes.ts';
import type { ShareLinks } from './share-links.ts';
import type { SessionCookie } from './cookie.ts';

const SHARE_COOKIE = 'deskgate_share';
const openBody = z.strictObject({ token: z.string().min(1).max(100) });

/** Behind the console's sign-in: create a link. */
export function shareApiRoutes(links: ShareLinks, router: SessionRouter) {
  const routes = new Hono<ConsoleEnv>();
  routes.post('/api/sessions/:session/share', requireRole(...CAN.watchSessions), async (c) => {
    const session = sessionFrom(c);
    if (!(await router.desktopOf({ tenant: c.var.principal.tenant, name: session }))) throw new ApiError(404, 'not_found', `Session "${session}" has no desktop to share.`);
    const { token, link } = await links.create(c.var.principal.tenant, session, c.var.principal.keyId);
    return c.json({ url: `${new URL(c.req.url).origin}/console/watch#${token}`, session, expiresAt: new Date(link.expiresAt).toISOString() });
  });
  return routes;
}

/** Open to anyone holding a link: open it (token → view-only cookie), then watch. */
export function sharePublicRoutes(links: ShareLinks, hub: LiveHub, router: SessionRouter, cookie: SessionCookie) {
  const routes = new Hono();
  routes.post('/share/open', async (c) => {
    requireSameOrigin(c);
    const { token } = await jsonBody(c, openBody, '{"token": "<the part of the link after #>"}');
    const link = await links.get(token);
    if (!link) throw new ApiError(401, 'link_expired', 'This view-only link has expired or is not valid. Ask for a new one.');
    const maxAge = Math.max(1, Math.floor((link.expiresAt - Date.now()) / 1000));
    setCookie(c, SHARE_COOKIE, token, { httpOnly: true, sameSite: 'Strict', secure: cookie.overTls(c), path: '/console/share', maxAge });
    return c.json({ session: link.session, expiresAt: new Date(link.expiresAt).toISOString() });
  });
  routes.get('/share/live', async (c) => {
    const link = await links.get(getCookie(c, SHARE_COOKIE));
    if (!link) throw new ApiError(401, 'link_expired', 'This view-only link has expired or is not valid. Ask for a new one.');
    return streamLive(c, hub, router, link.tenant, link.session, link.expiresAt);
  });
  return routes;
}
