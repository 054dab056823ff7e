import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { keys } from './keys.ts';
import { SCRIPT_FILES, scriptDefinitions, scriptsOf, type ScriptName } from './scripts.ts';
import { commandCalls } from './test-support/command-calls.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis();


test('the table is the lua/ directory: every script is listed once, its key count read from its name', () => {
  const onDisk = readdirSync(new URL('./lua/', import.meta.url)).filter((file) => file.endsWith('.lua'));
  assert.deepEqual([...SCRIPT_FILES].sort(), onDisk.sort());
  const byName = Object.fromEntries(scriptDefinitions().map((d) => [d.name, d.numberOfKeys]));
  assert.equal(byName.enqueueAction, 5);
  assert.equal(byName.claimAction, 3);
  assert.equal(byName.markSessionCreator, 1);
});

test('the lock include is inlined, once, into every script that reads the lock, and no @include line reaches Redis', () => {
  const readsLock: ScriptName[] = ['enqueueAction', 'claimAction', 'claimLock', 'renewLock', 'releaseLock'];
  for (const { name, lua } of scriptDefinitions()) {
    assert.doesNotMatch(lua, /@include/, `${name}: include lines are replaced`);
    const copies = lua.match(/local function parseLock\(/g)?.length ?? 0;
    assert.equal(copies, readsLock.includes(name) ? 1 : 0, `${name}: parseLock inlined ${copies} times`);
    // No script parses the lock by hand any more.
    if (readsLock.includes(name)) assert.equal(lua.match(/string\.find\([^)]*'\|'/g)?.length ?? 0, name === 'claimAction' ? 3 : 1, `${name}: one place splits at "|"`);
  }
});

test('the call-rate include is inlined once where calls are counted: the quota script and the enqueue', () => {
  for (const { name, lua } of scriptDefinitions()) {
    const copies = lua.match(/local function countCall\(/g)?.length ?? 0;
    assert.equal(copies, name === 'countCall' || name === 'enqueueAction' ? 1 : 0, `${name}: countCall inlined ${copies} times`);
  }
});

test('the enqueue counts an agent\'s call against its tenant\'s rate in the same step: over it, nothing is queued and the lock is not touched', async () => {
  const scripts = scriptsOf(db.redis);
  const d = 'scripts-rate';
  const tenant = 'rate-tenant';
  const enqueue = (controller: string, limit: number) =>
    scripts.enqueueAction(keys.desktopAlive(d), keys.desktopActions(d), keys.desktopLock(d), keys.desktopEpoch(d), keys.tenantCalls(tenant), '{"id":"r"}', controller, 5000, 60_000, limit, 1000);
  assert.deepEqual(await enqueue('k1', 2), [0], 'a desktop that is gone: not queued');
  assert.equal(await db.redis.exists(keys.tenantCalls(tenant)), 0, 'and not counted (its caller routes it again and counts it then)');
  await db.redis.set(keys.desktopAlive(d), '1');
  assert.deepEqual(await enqueue('k1', 0), [1, 1], 'limit 0 (a person at the console): queued');
  assert.equal(await db.redis.exists(keys.tenantCalls(tenant)), 0, 'and not counted');
  assert.deepEqual(await enqueue('k1', 2), [1, 1]);
  assert.deepEqual(await enqueue('k1', 2), [1, 1]);
  await db.redis.del(keys.desktopLock(d));
  const [refused, count, leftMs] = (await enqueue('k2', 2)) as number[];
  assert.equal(refused, -2, 'the third call in the window is over the rate');
  assert.equal(count, 3);
  assert.ok(leftMs! > 0 && leftMs! <= 1000, `ms left in the window: ${leftMs}`);
  assert.equal(await db.redis.llen(keys.desktopActions(d)), 3, 'nothing more queued');
  assert.equal(await db.redis.exists(keys.desktopLock(d)), 0, 'the free lock was not taken');
  const ttl = await db.redis.pttl(keys.tenantCalls(tenant));
  assert.ok(ttl > 0 && ttl <= 1000, `the counter lapses with its window (${ttl} ms)`);
});

test('every script runs by SHA, and still runs after Redis lost its scripts (SCRIPT FLUSH): ioredis sends the source again', async () => {
  const connection = new Redis(db.server.url);
  try {
    const scripts = scriptsOf(connection);
    const d = 'scripts-sha';
    await connection.set(keys.desktopAlive(d), '1');
    await connection.hset(keys.session('t', 's'), 'desktop', d);
    let received = 0;
    const calls: Record<ScriptName, () => Promise<unknown>> = {
      enqueueAction: () => scripts.enqueueAction(keys.desktopAlive(d), keys.desktopActions(d), keys.desktopLock(d), keys.desktopEpoch(d), keys.tenantCalls('t'), '{"id":"x"}', 'k1', 5000, 60_000, 0, 1000),
      claimAction: async () => {
        const claim = (await scripts.claimAction(keys.desktopActions(d), keys.desktopLock(d), keys.desktopClaimed(d), received, 60_000)) as number[];
        if (claim[0] !== 0) received = claim.at(-1)!;
        return claim;
      },
      claimLock: () => scripts.claimLock(keys.desktopLock(d), keys.desktopEpoch(d), 'k1', 5000, 60_000),
      renewLock: () => scripts.renewLock(keys.desktopLock(d), 1, 'k1', 5000),
      releaseLock: () => scripts.releaseLock(keys.desktopLock(d), 'k1'),
      countCall: () => scripts.countCall(keys.tenantCalls('t'), 10, 1000),
      reserveSession: () => scripts.reserveSession(keys.sessionsOfTenant('t'), keys.tenantSessionReservations('t'), 's', 8, Date.now(), 60_000),
      markSessionCreator: () => scripts.markSessionCreator(keys.session('t', 's'), 'k1'),
      detachDesktop: () => scripts.detachDesktop(keys.session('t', 's'), 'no-such-desktop', 'test'),
      saveSession: () => scripts.saveSession(keys.session('t', 's'), 'no-such-desktop', Date.now(), ''),
      recordAudit: () => scripts.recordAudit(keys.audit('t', 's'), 10, 60, keys.consoleEvents('t'), '{"type":"session","session":"s"}', 'tool', 'screenshot'),
    };
    assert.deepEqual(Object.keys(calls).sort(), scriptDefinitions().map((s) => s.name).sort());
    // The first call on a connection carries the source (and loads it); every later call only the SHA.
    for (const call of Object.values(calls)) await call();
    for (const { name, lua } of scriptDefinitions()) {
      const sha = (await import('node:crypto')).createHash('sha1').update(lua).digest('hex');
      assert.deepEqual(await connection.script('EXISTS', sha), [1], `${name} is loaded`);
    }
    const before = await commandCalls(connection);
    const outcomes: Record<string, unknown> = {};
    for (const [name, call] of Object.entries(calls)) outcomes[name] = await call();
    const afterCalls = await commandCalls(connection);
    assert.equal((afterCalls.evalsha ?? 0) - (before.evalsha ?? 0), SCRIPT_FILES.length, 'one EVALSHA per call');
    assert.equal((afterCalls.eval ?? 0) - (before.eval ?? 0), 0, 'no call sent its source');
    // The first round ended with releaseLock, so this enqueue took the lock again, at epoch 2.
    assert.deepEqual(outcomes.claimAction, [1, '{"id":"x"}', 2, 2], 'the queued entry is claimed under the current epoch, as the second claim');

    await connection.script('FLUSH');
    const flushed = await commandCalls(connection);
    for (const [name, call] of Object.entries(calls)) await assert.doesNotReject(call(), `${name} after SCRIPT FLUSH`);
    const reloaded = await commandCalls(connection);
    assert.equal((reloaded.eval ?? 0) - (flushed.eval ?? 0), SCRIPT_FILES.length, 'each script was sent once more after NOSCRIPT');
  } finally {
    connection.disconnect();
  }
});

test('the enqueue keeps the epoch out of the request: the request is stored as sent, a controller or argument holding quotes, pipes or JSON changes nothing', async () => {
  const scripts = scriptsOf(db.redis);
  const d = 'scripts-splice';
  await db.redis.set(keys.desktopAlive(d), '1');
  const controller = 'k1/x"}|{"epoch":999,"tool":"key"';
  const request = JSON.stringify({ id: 'r1', tool: 'type', args: { text: '","epoch":7}|{"epoch":8} \\" \u2028 ünï' }, epoch: 'not mine' });
  const queued = await scripts.enqueueAction(keys.desktopAlive(d), keys.desktopActions(d), keys.desktopLock(d), keys.desktopEpoch(d), keys.tenantCalls('t'), request, controller, 5000, 60_000, 0, 1000);
  assert.deepEqual(queued, [1, 1]);
  assert.deepEqual(await db.redis.lrange(keys.desktopActions(d), 0, -1), [`1|${request}`], 'the entry is "<epoch>|" then the request, byte for byte');
  assert.equal(await db.redis.get(keys.desktopLock(d)), `1|${controller}`);
  // The same controller (pipes and all) is recognised as the holder: the lock is parsed at its first "|".
  assert.deepEqual(await scripts.enqueueAction(keys.desktopAlive(d), keys.desktopActions(d), keys.desktopLock(d), keys.desktopEpoch(d), keys.tenantCalls('t'), request, controller, 5000, 60_000, 0, 1000), [1, 1]);
  const [, holder] = (await scripts.enqueueAction(keys.desktopAlive(d), keys.desktopActions(d), keys.desktopLock(d), keys.desktopEpoch(d), keys.tenantCalls('t'), request, 'k1/x"}', 5000, 60_000, 0, 1000)) as [number, string];
  assert.equal(holder, controller, 'a controller that is a prefix of the holder is another controller');
  const claimed = await scripts.claimAction(keys.desktopActions(d), keys.desktopLock(d), keys.desktopClaimed(d), 0, 60_000);
  assert.deepEqual(claimed, [1, request, 1, 1], 'claimed as sent, with the epoch beside it');
  assert.equal(await scripts.renewLock(keys.desktopLock(d), 1, controller, 5000), 1);
  assert.equal(await scripts.renewLock(keys.desktopLock(d), 1, 'k1/x"}', 5000), 0);
  assert.equal(await scripts.releaseLock(keys.desktopLock(d), controller), 1);
});

test('the claim pops and fences in one step: a stale entry, a lapsed lease, the older format and an unreadable entry', async () => {
  const scripts = scriptsOf(db.redis);
  const d = 'scripts-claim';
  const list = keys.desktopActions(d);
  const lock = keys.desktopLock(d);
  const claim = (received: number) => scripts.claimAction(list, lock, keys.desktopClaimed(d), received, 60_000);
  assert.deepEqual(await claim(0), [0]);
  await db.redis.set(lock, '5|k1');
  await db.redis.rpush(list, '4|{"id":"old"}', '5|{"id":"now"}', JSON.stringify({ id: 'legacy', epoch: 5 }), JSON.stringify({ id: 'legacy-old', epoch: 3 }), 'garbage');
  assert.deepEqual(await claim(0), [-1, '{"id":"old"}', 4, 5, 1]);
  assert.deepEqual(await claim(1), [1, '{"id":"now"}', 5, 2]);
  assert.deepEqual(await claim(2), [1, '{"id":"legacy","epoch":5}', 5, 3]);
  await db.redis.del(lock);
  assert.deepEqual(await claim(3), [-1, '{"id":"legacy-old","epoch":3}', 3, 0, 4], 'nobody holds the lock: refused');
  assert.deepEqual(await claim(4), [-2, 'garbage', 5]);
  assert.equal(await db.redis.llen(list), 0, 'every entry was popped exactly once');
  assert.deepEqual(await claim(5), [0]);
});

test('a pop whose answer never reached the worker is handed over by the next claim, once; nothing else is', async () => {
  const scripts = scriptsOf(db.redis);
  const d = 'scripts-claim-lost';
  const list = keys.desktopActions(d);
  const lock = keys.desktopLock(d);
  const claim = (received: number) => scripts.claimAction(list, lock, keys.desktopClaimed(d), received, 60_000);
  await db.redis.set(lock, '1|k1');
  await db.redis.rpush(list, '1|{"id":"a"}', '1|{"id":"b"}');
  assert.deepEqual(await claim(0), [1, '{"id":"a"}', 1, 1]);
  // Its answer was lost: the worker still says it received nothing.
  assert.deepEqual(await claim(0), [1, '{"id":"a"}', 1, 1], 'the lost pop, handed over again');
  assert.deepEqual(await db.redis.lrange(list, 0, -1), ['1|{"id":"b"}'], 'and not popped twice');
  assert.deepEqual(await claim(1), [1, '{"id":"b"}', 1, 2], 'received: the next entry');
  assert.deepEqual(await claim(2), [0], 'a pop already received is never handed over again');
  // The record expired (a desktop idle past it): numbering goes on from what the worker received.
  await db.redis.del(keys.desktopClaimed(d));
  await db.redis.rpush(list, '1|{"id":"c"}');
  assert.deepEqual(await claim(2), [1, '{"id":"c"}', 1, 3]);
  assert.ok((await db.redis.pttl(keys.desktopClaimed(d))) > 0, 'the record is kept for a bounded time');
});
