import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { pino } from 'pino';
import { renderErrors } from '../../http/api-error.ts';
import { hostOriginCheck } from './index.ts';

const LOCAL = ['localhost', '127.0.0.1', '[::1]'];
const appWith = (allowedHosts: string[] | undefined) => {
  const app = new Hono();
  app.use(hostOriginCheck({ allowedHosts, allowedOrigins: LOCAL }));
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.onError(renderErrors(pino({ level: 'silent' })));
  return app;
};

test('localhost names pass, with any port', async () => {
  const app = appWith(LOCAL);
  for (const host of ['localhost', '127.0.0.1:7420', '[::1]:80', 'localhost:3000']) {
    assert.equal((await app.request('http://x/healthz', { headers: { host } })).status, 200, host);
  }
});

test('a foreign Host is refused with 403 forbidden_host (DNS rebinding), on any route', async () => {
  const app = appWith(LOCAL);
  for (const host of ['attacker.example', 'localhost.attacker.example', '127.0.0.2']) {
    const response = await app.request('http://x/healthz', { headers: { host } });
    assert.equal(response.status, 403, host);
    assert.equal(((await response.json()) as { error: string }).error, 'forbidden_host');
  }
});

test('a foreign Origin is refused; no Origin passes', async () => {
  const app = appWith(LOCAL);
  const evil = await app.request('http://x/healthz', { headers: { host: 'localhost', origin: 'http://evil.example' } });
  assert.equal(evil.status, 403);
  assert.equal(((await evil.json()) as { error: string }).error, 'forbidden_origin');
  assert.equal((await app.request('http://x/healthz', { headers: { host: 'localhost', origin: 'http://localhost:5173' } })).status, 200);
  assert.equal((await app.request('http://x/healthz', { headers: { host: 'localhost' } })).status, 200);
});

test('without a host list (bound wider, behind a proxy) any Host passes', async () => {
  assert.equal((await appWith(undefined).request('http://x/healthz', { headers: { host: 'desk.example.com' } })).status, 200);
});
