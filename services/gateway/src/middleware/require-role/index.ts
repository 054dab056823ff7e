/**
 * Lets a request through only when its key has one of the given roles (after bearerAuth).
 * Any other key gets 403 `role_required`, naming the role the route needs and the key's own,
 * before the route does anything.
 */
import { createMiddleware } from 'hono/factory';
import { describeRoles, type Role } from '../../auth/roles.ts';
import { ApiError } from '../../http/api-error.ts';
import type { AuthEnv } from '../bearer-auth/index.ts';

export function requireRole(...roles: readonly Role[]) {
  if (roles.length === 0) throw new RangeError('requireRole needs at least one role');
  const needed = describeRoles(roles);
  return createMiddleware<AuthEnv>(async function requireRoleMiddleware(c, next) {
    const own = c.var.principal.role;
    if (!roles.includes(own)) {
      throw new ApiError(403, 'role_required', `${c.req.method} ${c.req.routePath} needs ${needed}; this API key is ${describeRoles([own])}. Nothing was done.`);
    }
    await next();
  });
}
