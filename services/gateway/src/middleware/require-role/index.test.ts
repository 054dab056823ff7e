import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { pino } from 'pino';
import type { Role } from '../../auth/roles.ts';
import { renderErrors } from '../../http/api-error.ts';
import type { AuthEnv } from '../bearer-auth/index.ts';
import { requireRole } from './index.ts';

let reached = 0;
const app = new Hono<AuthEnv>();
// A stand-in for bearerAuth: the role comes from a header.
app.use(async (c, next) => {
  c.set('principal', { tenant: 'acme', keyId: 'k_1', role: c.req.header('x-role') as Role });
  await next();
});
app.put('/v1/killswitch', requireRole('operator', 'admin'), (c) => (reached++, c.json({ ok: true })));
app.post('/mcp', requireRole('agent'), (c) => (reached++, c.json({ ok: true })));
app.onError(renderErrors(pino({ level: 'silent' })));

const call = (method: string, path: string, role: Role) => app.request(path, { method, headers: { 'x-role': role } });

test('a key with one of the roles reaches the route', async () => {
  for (const role of ['operator', 'admin'] as const) assert.equal((await call('PUT', '/v1/killswitch', role)).status, 200);
  assert.equal((await call('POST', '/mcp', 'agent')).status, 200);
  assert.equal(reached, 3);
});

test('any other key gets 403 naming the role needed and its own, and the route never runs', async () => {
  reached = 0;
  const byAgent = await call('PUT', '/v1/killswitch', 'agent');
  assert.equal(byAgent.status, 403);
  assert.deepEqual(await byAgent.json(), {
    error: 'role_required',
    message: 'PUT /v1/killswitch needs an operator or admin key; this API key is an agent key. Nothing was done.',
  });
  for (const role of ['approver', 'operator', 'admin'] as const) {
    const response = await call('POST', '/mcp', role);
    assert.equal(response.status, 403);
    assert.match(((await response.json()) as { message: string }).message, /needs an agent key/);
  }
  assert.equal(reached, 0);
});

test('a route needs at least one role', () => {
  assert.throws(() => requireRole(), RangeError);
});
