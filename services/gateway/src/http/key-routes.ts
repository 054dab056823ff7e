/**
 * The tenant's API keys, for admin keys only: create one with a role (the key is shown once,
 * only its hash is stored), list them (ids, roles, labels — never a key), revoke one (refused
 * by every gateway within half a second). Another tenant's key id is simply not found.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { MAX_LABEL, type ApiKeyStore } from '../auth/api-keys.ts';
import { CAN, role } from '../auth/roles.ts';
import type { AuthEnv } from '../middleware/bearer-auth/index.ts';
import { requireRole } from '../middleware/require-role/index.ts';
import { ApiError } from './api-error.ts';
import { jsonBody } from './json-body.ts';

const createBody = z.strictObject({ role: role.default('agent'), label: z.string().max(MAX_LABEL).default('') });

export function keyRoutes(apiKeys: ApiKeyStore) {
  const routes = new Hono<AuthEnv>();
  const admin = requireRole(...CAN.manageKeys);
  routes.post('/v1/keys', admin, async (c) => {
    const body = await jsonBody(c, createBody, '{"role": "agent" | "approver" | "operator" | "admin", "label": "…"}');
    const tenant = c.var.principal.tenant;
    const { key, keyId } = await apiKeys.create(tenant, body.label, body.role);
    return c.json({ tenant, keyId, role: body.role, label: body.label, key }, 201);
  });
  routes.get('/v1/keys', admin, async (c) => c.json({ keys: await apiKeys.list(c.var.principal.tenant) }));
  routes.delete('/v1/keys/:keyId', admin, async (c) => {
    const keyId = c.req.param('keyId');
    if (!(await apiKeys.revoke(keyId, c.var.principal.tenant))) throw new ApiError(404, 'not_found', 'Your tenant has no API key with that id.');
    return c.json({ revoked: keyId });
  });
  return routes;
}
