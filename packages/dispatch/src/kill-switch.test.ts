import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from '../../../scripts/lib/free-port.ts';
import { KillSwitch, type KillSwitchActor } from './kill-switch.ts';
import { keys } from './keys.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis();
const OPERATOR: KillSwitchActor = { keyId: 'k_op', role: 'operator', via: 'api' };
const CLI: KillSwitchActor = { keyId: null, role: null, via: 'cli' };

test('a tenant switch and the global switch each turn a tenant off; off again lifts it', async () => {
  const killSwitch = new KillSwitch(db.redis, { cacheMs: 0 });
  assert.equal(await killSwitch.read('acme'), 'off');
  assert.equal(await killSwitch.refusal('acme'), undefined);
  await killSwitch.set('acme', true, OPERATOR);
  assert.equal(await killSwitch.read('acme'), 'on');
  assert.equal(await killSwitch.read('other'), 'off', 'a tenant switch is that tenant\'s only');
  assert.equal((await killSwitch.refusal('acme'))?.kind, 'disabled');
  await killSwitch.set('acme', false, OPERATOR);
  await killSwitch.set(null, true, CLI);
  const other = await killSwitch.state('other');
  assert.deepEqual([other.global, other.tenant], [true, false]);
  assert.equal(await killSwitch.isOnOrUnknown('other'), true);
  await killSwitch.set(null, false, CLI);
  assert.equal(await killSwitch.isOnOrUnknown('other'), false);
});

test('a reading is remembered for cacheMs; another process\'s flip is seen after that', async () => {
  const killSwitch = new KillSwitch(db.redis, { cacheMs: 100 });
  assert.equal(await killSwitch.read('cached'), 'off');
  await new KillSwitch(db.redis).set('cached', true, OPERATOR);
  assert.equal(await killSwitch.read('cached'), 'off');
  await sleep(120);
  assert.equal(await killSwitch.read('cached'), 'on');
  await killSwitch.set('cached', false, OPERATOR);
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

test('every flip records who made it (a key id, never a key) and when, with the switch itself', async () => {
  const killSwitch = new KillSwitch(db.redis, { cacheMs: 0 });
  assert.equal((await killSwitch.state('flips')).lastFlip, null, 'never flipped: no record');
  const flip = await killSwitch.set('flips', true, { keyId: 'k_rest', role: 'admin', via: 'api' }, 1_700_000_000_000);
  assert.deepEqual(flip, { on: true, keyId: 'k_rest', role: 'admin', via: 'api', at: 1_700_000_000_000 });
  const state = await killSwitch.state('flips');
  assert.equal(state.tenant, true);
  assert.deepEqual(state.lastFlip, flip);
  assert.notEqual(state.globalLastFlip?.keyId, 'k_rest', 'a tenant flip is not the global switch\'s');
  // Another way in (the console) replaces the record; the time is the flip's own.
  const before = Date.now();
  await killSwitch.set('flips', false, { keyId: 'k_console', role: 'operator', via: 'console' });
  const off = (await killSwitch.state('flips')).lastFlip!;
  assert.equal(off.on, false);
  assert.equal(off.keyId, 'k_console');
  assert.equal(off.via, 'console');
  assert.ok(off.at >= before && off.at <= Date.now(), `at ${off.at}`);
  // The global switch keeps its own record.
  await killSwitch.set(null, true, CLI);
  assert.deepEqual({ ...(await killSwitch.state('flips')).globalLastFlip, at: 0 }, { on: true, keyId: null, role: null, via: 'cli', at: 0 });
  await killSwitch.set(null, false, CLI);
});

test('a switch set without a record of its flip (set before flips were recorded) shows none rather than a wrong one', async () => {
  const killSwitch = new KillSwitch(db.redis, { cacheMs: 0 });
  await killSwitch.set('legacy', false, OPERATOR);
  await db.redis.set(keys.tenantKillSwitch('legacy'), '1');
  const state = await killSwitch.state('legacy');
  assert.equal(state.tenant, true);
  assert.equal(state.lastFlip, null, 'the recorded flip (off) did not set it on');
  await killSwitch.set('legacy', false, OPERATOR);
});
