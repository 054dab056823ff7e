import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from './config.ts';

test('bound to localhost, only localhost Host names are allowed', () => {
  const config = loadConfig({});
  assert.equal(config.port, 7420);
  assert.deepEqual(config.allowedHosts, ['localhost', '127.0.0.1', '[::1]']);
});

test('bound wider, the operator lists the public names', () => {
  assert.equal(loadConfig({ DESKGATE_HOST: '0.0.0.0' }).allowedHosts, undefined);
  assert.deepEqual(loadConfig({ DESKGATE_HOST: '0.0.0.0', DESKGATE_ALLOWED_HOSTS: 'desk.example.com, 10.0.0.5' }).allowedHosts, ['desk.example.com', '10.0.0.5']);
});

test('a bad setting is named', () => {
  assert.throws(() => loadConfig({ DESKGATE_PORT: '70000' }), /DESKGATE_PORT/);
  assert.throws(() => loadConfig({ DESKGATE_MAX_BODY_BYTES: '10' }), /DESKGATE_MAX_BODY_BYTES/);
});

test('the audit log redacts text by default and keeps 10,000 entries for 7 days', () => {
  assert.deepEqual(loadConfig({}).audit, { keepText: false, maxEntries: 10_000, ttlSeconds: 604_800 });
  const set = loadConfig({ DESKGATE_AUDIT_TEXT: 'true', DESKGATE_AUDIT_MAX_ENTRIES: '5', DESKGATE_AUDIT_TTL_SECONDS: '60' }).audit;
  assert.deepEqual(set, { keepText: true, maxEntries: 5, ttlSeconds: 60 });
  assert.equal(loadConfig({ DESKGATE_AUDIT_TEXT: 'false' }).audit.keepText, false);
  assert.throws(() => loadConfig({ DESKGATE_AUDIT_TEXT: 'maybe' }), /DESKGATE_AUDIT_TEXT/);
  assert.throws(() => loadConfig({ DESKGATE_AUDIT_MAX_ENTRIES: '0' }), /DESKGATE_AUDIT_MAX_ENTRIES/);
});

test('the desktop lock lease is 30 s by default and bounded to 0.5 s – 10 min', () => {
  assert.equal(loadConfig({}).lockLeaseMs, 30_000);
  assert.equal(loadConfig({ DESKGATE_LOCK_LEASE_MS: '1500' }).lockLeaseMs, 1500);
  for (const bad of ['499', '600001', 'soon', '1.5']) assert.throws(() => loadConfig({ DESKGATE_LOCK_LEASE_MS: bad }), /DESKGATE_LOCK_LEASE_MS/);
});

test('tenant quotas: 8 sessions and 100 calls per second by default; 0 calls per second is no limit', () => {
  assert.deepEqual(loadConfig({}).quotas, { maxSessions: 8, callsPerSecond: 100 });
  assert.deepEqual(loadConfig({ DESKGATE_TENANT_MAX_SESSIONS: '2', DESKGATE_TENANT_CALLS_PER_SECOND: '0' }).quotas, { maxSessions: 2, callsPerSecond: 0 });
  assert.throws(() => loadConfig({ DESKGATE_TENANT_MAX_SESSIONS: '0' }), /DESKGATE_TENANT_MAX_SESSIONS/);
  assert.throws(() => loadConfig({ DESKGATE_TENANT_CALLS_PER_SECOND: '-1' }), /DESKGATE_TENANT_CALLS_PER_SECOND/);
});

test('direct replies: on loopback at any free port by default; host:port, [v6]:port or off', () => {
  assert.deepEqual(loadConfig({}).directReplies, { host: '127.0.0.1', port: 0, advertise: undefined });
  assert.deepEqual(loadConfig({ DESKGATE_DIRECT_REPLIES: '0.0.0.0:7421', DESKGATE_DIRECT_REPLIES_ADVERTISE: '10.1.2.3' }).directReplies, { host: '0.0.0.0', port: 7421, advertise: '10.1.2.3' });
  assert.deepEqual(loadConfig({ DESKGATE_DIRECT_REPLIES: '[::]:7421' }).directReplies, { host: '::', port: 7421, advertise: undefined });
  assert.equal(loadConfig({ DESKGATE_DIRECT_REPLIES: 'off' }).directReplies, null);
  for (const bad of ['7421', 'localhost', 'host:70000', 'a b:1', '::1:7421', 'on']) {
    assert.throws(() => loadConfig({ DESKGATE_DIRECT_REPLIES: bad }), /DESKGATE_DIRECT_REPLIES.*expected host:port/s, bad);
  }
});
