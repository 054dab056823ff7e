/**
 * A session's audit timeline for the console: every call with its outcome, refusal kind,
 * duration and actor (an agent, or a person in the console), newest first, optionally only
 * one kind (`ok` or a refusal kind such as `lock_held`), and the same as a JSON download.
 * Each call that ran on the desktop has a small frame of the screen after it (audit-frames.ts).
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { AUDIT_DEFAULTS, AuditFrames, pairFrames, type AuditLog } from '@deskgate/dispatch';
import { CAN } from '../auth/roles.ts';
import { ApiError } from '../http/api-error.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import type { ConsoleEnv } from './console-auth.ts';
import { actorOf } from './session-overview.ts';

const timelineQuery = z.strictObject({
  kind: z.string().regex(/^[a-z_]{1,64}$/, 'kind is "ok" or an error kind such as lock_held').optional(),
  count: z.coerce.number().int().min(1).max(AUDIT_DEFAULTS.readCountMax).default(200),
});

async function timeline(c: Context<ConsoleEnv>, audit: AuditLog, frames: AuditFrames) {
  const session = sessionFrom(c);
  const query = timelineQuery.safeParse(c.req.query());
  if (!query.success) throw new ApiError(400, 'bad_query', query.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
  const { kind, count } = query.data;
  const [read, kept] = await Promise.all([audit.read(c.var.principal.tenant, session, { count }), frames.list(c.var.principal.tenant, session)]);
  const frameOf = pairFrames(kept);
  const entries = read
    .map((entry) => ({ ...entry, actor: actorOf(entry.controller, entry.keyId), frameId: frameOf(entry)?.id ?? null }))
    .filter((entry) => kind === undefined || (kind === 'ok' ? entry.outcome === 'ok' : entry.kind === kind));
  return { session, kind: kind ?? null, entries };
}

export function auditRoutes(audit: AuditLog, frames: AuditFrames) {
  const routes = new Hono<ConsoleEnv>();
  const reader = requireRole(...CAN.readAudit);
  routes.get('/api/sessions/:session/audit', reader, async (c) => c.json(await timeline(c, audit, frames)));
  routes.get('/api/sessions/:session/frames/:id', reader, async (c) => {
    const jpeg = await frames.get(c.var.principal.tenant, sessionFrom(c), c.req.param('id'));
    if (!jpeg) throw new ApiError(404, 'not_found', 'No such frame (the timeline keeps the latest 100 of a session).');
    return c.body(new Uint8Array(jpeg), 200, { 'content-type': 'image/jpeg', 'cache-control': 'private, max-age=3600' });
  });
  routes.get('/api/sessions/:session/audit/export', reader, async (c) => {
    const body = await timeline(c, audit, frames);
    return c.json(body, 200, { 'content-disposition': `attachment; filename="audit-${body.session}.json"` });
  });
  return routes;
}
