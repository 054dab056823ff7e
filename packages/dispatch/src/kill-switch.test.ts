import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from '../../../scripts/lib/free-port.ts';
import { KillSwitch } from './kill-switch.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis();

test('a tenant switch and the global switch each turn a tenant off; off again lifts it', async () => {
  const killSwitch = new KillSwitch(db.redis, { cacheMs: 0 });
  assert.equal(await killSwitch.read('acme'), 'off');
  assert.equal(await killSwitch.refusal('acme'), undefined);
  await killSwitch.set('acme', true);
  assert.equal(await killSwitch.read('acme'), 'on');
  assert.equal(await killSwitch.read('other'), 'off', 'a tenant switch is that tenant\'s only');
  assert.equal((await killSwitch.refusal('acme'))?.kind, 'disabled');
  await killSwitch.set('acme', false);
  await killSwitch.set(null, true);
  assert.deepEqual(await killSwitch.state('other'), { global: true, tenant: false });
  assert.equal(await killSwitch.isOnOrUnknown('other'), true);
  await killSwitch.set(null, false);
  assert.equal(await killSwitch.isOnOrUnknown('other'), false);
});

test('a reading is remembered for cacheMs; another process\'s flip is seen after that', async () => {
  const killSwitch = new KillSwitch(db.redis, { cacheMs: 100 });
  assert.equal(await killSwitch.read('cached'), 'off');
  await new KillSwitch(db.redis).set('cached', true);
  assert.equal(await killSwitch.read('cached'), 'off');
  await sleep(120);
  assert.equal(await killSwitch.read('cached'), 'on');
  await killSwitch.set('cached', false);
});

test('fails closed: an unreachable Redis reads as unknown, and unknown refuses', async () => {
  const port = await freePort();
  // As the services connect: commands wait (queued) for a connection that never comes.
  const queued = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: null, retryStrategy: () => 50 });
  // And a client that gives up at once.
  const failing = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
  for (const client of [queued, failing]) client.on('error', () => undefined);
  try {
    for (const client of [queued, failing]) {
      const killSwitch = new KillSwitch(client, { readTimeoutMs: 200 });
      const started = performance.now();
      assert.equal(await killSwitch.read('acme'), 'unknown');
      assert.ok(performance.now() - started < 1000, 'a hung read is given up on');
      assert.equal(await killSwitch.isOnOrUnknown('acme'), true);
      const refusal = await killSwitch.refusal('acme');
      assert.equal(refusal?.kind, 'unavailable');
      assert.match(refusal!.message, /kill switch state is unknown.*cannot be reached/);
    }
  } finally {
    queued.disconnect();
    failing.disconnect();
  }
});
