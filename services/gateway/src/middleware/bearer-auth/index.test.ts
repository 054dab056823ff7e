import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { pino } from 'pino';
import { renderErrors } from '../../http/api-error.ts';
import { RedisUnavailableError } from '@deskgate/dispatch';
import { bearerAuth, type AuthEnv } from './index.ts';

const app = new Hono<AuthEnv>();
app.use(bearerAuth({ verify: async (key) => (key === 'dg_good' ? { tenant: 'acme', keyId: 'k_1', role: 'agent' } : null) }));
app.get('/who', (c) => c.json(c.var.principal));
app.onError(renderErrors(pino({ level: 'silent' })));

test('a valid key reaches the handler with its tenant and role', async () => {
  const response = await app.request('/who', { headers: { authorization: 'Bearer dg_good' } });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { tenant: 'acme', keyId: 'k_1', role: 'agent' });
});

test('a missing or malformed header gets 401 and a plain challenge', async () => {
  for (const headers of [{}, { authorization: 'dg_good' }, { authorization: 'Basic dg_good' }, { authorization: 'Bearer' }] as Record<string, string>[]) {
    const response = await app.request('/who', { headers });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="deskgate"');
    assert.equal(((await response.json()) as { error: string }).error, 'unauthorized');
  }
});

test('a wrong key gets 401 with error="invalid_token"', async () => {
  const response = await app.request('/who', { headers: { authorization: 'Bearer dg_bad' } });
  assert.equal(response.status, 401);
  assert.match(response.headers.get('www-authenticate')!, /error="invalid_token"/);
  assert.deepEqual(await response.json(), { error: 'invalid_token', message: 'The API key is not valid.' });
});

test('a key that cannot be checked (Redis unreachable) fails closed: 503 unavailable with Retry-After, never the handler', async () => {
  const down = new Hono<AuthEnv>();
  let reached = false;
  down.use(bearerAuth({ verify: async () => Promise.reject(new RedisUnavailableError('hget got no answer within 1000 ms')) }));
  down.get('/who', (c) => ((reached = true), c.json(c.var.principal)));
  down.onError(renderErrors(pino({ level: 'silent' })));
  const response = await down.request('/who', { headers: { authorization: 'Bearer dg_good' } });
  assert.equal(response.status, 503);
  assert.equal(response.headers.get('retry-after'), '2');
  const body = (await response.json()) as { error: string; message: string };
  assert.equal(body.error, 'unavailable');
  assert.match(body.message, /state store \(Redis\) cannot be reached.*Retry in a few seconds/);
  assert.equal(reached, false);
});
