/**
 * GET /v1/sessions/:session/audit?count=&before= — a session's audit log, newest first, for
 * operator and admin keys (an agent cannot read what it did, nor what other agents did).
 * Tenant-scoped by construction: the log read is the authenticated principal's tenant's, so
 * another tenant's session of the same name is simply an empty log. Page with `before`=`next`.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { AUDIT_DEFAULTS, STREAM_ID, type AuditLog } from '@deskgate/dispatch';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';
import { sessionFrom } from '../sessions/session-param.ts';
import { ApiError } from './api-error.ts';

const COUNT_RULE = `count is a whole number from 1 to ${AUDIT_DEFAULTS.readCountMax}`;

const auditQuery = z.object({
  count: z
    .string()
    .regex(/^\d{1,7}$/, COUNT_RULE)
    .transform(Number)
    .pipe(z.number().min(1, COUNT_RULE).max(AUDIT_DEFAULTS.readCountMax, COUNT_RULE))
    .default(AUDIT_DEFAULTS.readCount),
  before: z.string().regex(STREAM_ID, 'before is an entry id such as 1735689600000-0, taken from "next" of the previous page').optional(),
});

export function auditRoute(audit: AuditLog) {
  return async function readAudit(c: Context<AuthEnv>) {
    const session = sessionFrom(c);
    const query = auditQuery.safeParse(c.req.query());
    if (!query.success) throw new ApiError(400, 'bad_query', query.error.issues.map((issue) => issue.message).join('; '));
    const { count, before } = query.data;
    const entries = await audit.read(c.var.principal.tenant, session, { count, before });
    return c.json({ session, entries, next: entries.length === count ? entries.at(-1)!.id : null });
  };
}
