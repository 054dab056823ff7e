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
