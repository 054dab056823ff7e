/**
 * The web console, mounted at /console by the gateway (docs/console.md). Its API lives under
 * /console/api and is authenticated by the console's session cookie — never by a key in a URL
 * and never by the Authorization header, so the console and the REST API cannot be confused
 * for one another. The agent's key reaches none of it.
 */
import { Hono } from 'hono';
import { AuditFrames, AuditLog, DesktopLocks, SessionStore, type ApprovalStore, type KillSwitch } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ApiKeyStore } from '../auth/api-keys.ts';
import { CAN } from '../auth/roles.ts';
import type { CallAuditor } from '../mcp/call-auditor.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import type { SessionRouter } from '../sessions/session-router.ts';
import { auditRoutes } from './audit-routes.ts';
import { consoleAuth, type ConsoleEnv } from './console-auth.ts';
import { ConsoleEventHub } from './console-event-hub.ts';
import { ConsoleSessions } from './console-sessions.ts';
import { SessionCookie } from './cookie.ts';
import { LiveHub } from './live-hub.ts';
import { streamLive } from './live-routes.ts';
import { eventRoutes } from './event-routes.ts';
import { PersonActions } from './person-actions.ts';
import { ShareLinks } from './share-links.ts';
import { shareApiRoutes, sharePublicRoutes } from './share-routes.ts';
import { signInRoutes } from './sign-in-routes.ts';
import { SECURITY_HEADERS, staticRoutes } from './static-routes.ts';
import { takeoverRoutes } from './takeover-routes.ts';
import { tenantRoutes } from './tenant-routes.ts';

export interface ConsoleSettings {
  sessionSeconds: number;
  secureCookie: boolean;
  takeoverLeaseMs: number;
  shareSeconds: number;
}

export interface ConsoleDeps {
  settings: ConsoleSettings;
  redis: Redis;
  apiKeys: ApiKeyStore;
  router: SessionRouter;
  audit: AuditLog;
  approvals: ApprovalStore;
  killSwitch: KillSwitch;
  auditCall: CallAuditor;
  log: Logger;
}

export function consoleApp(deps: ConsoleDeps) {
  const { settings, redis, router, audit } = deps;
  const app = new Hono<ConsoleEnv>();
  const sessions = new ConsoleSessions(redis, settings.sessionSeconds);
  const cookie = new SessionCookie(settings.secureCookie);
  const locks = new DesktopLocks(redis);
  const sessionStore = new SessionStore(redis);

  app.use('/api/*', async (c, next) => {
    await next();
    c.header('cache-control', 'no-store');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
  });
  const hub = new LiveHub(redis, deps.log);
  const shares = new ShareLinks(redis, settings.shareSeconds);
  app.route('/', signInRoutes(deps.apiKeys, sessions, cookie, redis));
  app.route('/', sharePublicRoutes(shares, hub, router, cookie));
  app.use('/api/*', consoleAuth(sessions, cookie, redis), requireRole(...CAN.useConsole));
  app.route('/', tenantRoutes({ redis, router, sessions: sessionStore, locks, audit, approvals: deps.approvals, killSwitch: deps.killSwitch }));
  const overview = { router, sessions: sessionStore, locks, audit };
  app.route('/', eventRoutes({ hub: new ConsoleEventHub(redis, overview, deps.log), approvals: deps.approvals, overview, sessions, redis }));
  app.route('/', auditRoutes(audit, new AuditFrames(redis)));
  const person = new PersonActions({ redis, router, sessions: sessionStore, locks, auditCall: deps.auditCall, log: deps.log, leaseMs: settings.takeoverLeaseMs });
  app.route('/', takeoverRoutes(person));
  app.get('/api/sessions/:session/live', requireRole(...CAN.watchSessions), (c) => streamLive(c, hub, router, c.var.principal.tenant, sessionFrom(c)));
  app.route('/', shareApiRoutes(shares, router));
  app.route('/', staticRoutes());
  return app;
}
