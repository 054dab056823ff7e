import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { startPrivateRedis } from '../../../scripts/lib/redis-server.ts';
import { createRedis, isRedisUnavailable, RedisUnavailableError, type DeskgateRedis } from './redis-connection.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis((url) => {
  const redis = createRedis(url, 'gateway');
  redis.on('error', () => undefined);
  return redis;
});

const until = async (what: string, check: () => Promise<boolean>, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await sleep(50);
  }
};

test('a blocking command outlives the command timeout; a plain one answers', async () => {
  const reader = db.redis.duplicate();
  try {
    const started = performance.now();
    assert.equal(await reader.blpop('rc:nothing', 2), null);
    assert.ok(performance.now() - started >= 1900, 'BLPOP ran its own 2 s, past the 1 s command timeout');
    assert.equal(await db.redis.ping(), 'PONG');
  } finally {
    reader.disconnect();
  }
});

test('a command that gets no answer fails with RedisUnavailableError within its timeout', async () => {
  // A server that accepts connections and never answers (a hung Redis, a black-holed network).
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as AddressInfo).port;
  const stalled = createRedis(`redis://127.0.0.1:${port}`, 'gateway', { commandTimeoutMs: 200 });
  stalled.on('error', () => undefined);
  try {
    const started = performance.now();
    const error = await stalled.get('rc:k').then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof RedisUnavailableError, String(error));
    assert.ok(isRedisUnavailable(error));
    assert.match(error.message, /get got no answer within 200 ms/);
    assert.ok(performance.now() - started < 500);
  } finally {
    stalled.disconnect();
    silent.close();
  }
});

test('an answer that came in time is not lost to a stalled event loop (a busy CPU)', async () => {
  const busy = createRedis(db.server.url, 'worker', { commandTimeoutMs: 200 });
  busy.on('error', () => undefined);
  try {
    await busy.ping();
    const answer = busy.ping();
    // Redis answers within a millisecond, while this process is stuck for twice the deadline:
    // the timer and the reply are both due when the loop wakes; the reply must win.
    const until = performance.now() + 400;
    while (performance.now() < until);
    assert.equal(await answer, 'PONG');
  } finally {
    busy.disconnect();
  }
});

test('with Redis stopped, commands fail at once; after it is back, the same connections work and the data is kept (AOF)', async () => {
  const reader = db.redis.duplicate();
  reader.on('error', () => undefined);
  await db.redis.set('rc:kept', 'yes');
  await reader.ping();
  await db.server.stopServer();
  try {
    await until('the client noticing', async () => db.redis.status !== 'ready');
    const started = performance.now();
    const error = await db.redis.get('rc:kept').then(() => undefined, (e: unknown) => e);
    assert.ok(isRedisUnavailable(error), `an unavailable error, got ${String(error)}`);
    assert.ok(performance.now() - started < 100, 'fails at once, not after a queue');
    const blocking = await reader.blpop('rc:list', 1).then(() => 'answered', (e: unknown) => (isRedisUnavailable(e) ? 'unavailable' : String(e)));
    assert.equal(blocking, 'unavailable');
  } finally {
    await db.server.startAgain();
  }
  await until('the reconnect', async () => (await db.redis.get('rc:kept')) === 'yes', 3000);
  await until('the blocking reader reconnecting', async () => (await reader.ping()) === 'PONG', 3000);
  await db.redis.rpush('rc:list', 'after');
  assert.deepEqual(await reader.blpop('rc:list', 1), ['rc:list', 'after']);
  reader.disconnect();
});

test('a command that failed while Redis was down is never sent after the reconnect', async () => {
  const other = await startPrivateRedis();
  const probe = createRedis(other.url, 'gateway', { commandTimeoutMs: 150 });
  probe.on('error', () => undefined);
  try {
    await probe.ping();
    await other.stopServer();
    await until('the client noticing', async () => probe.status !== 'ready');
    // Offline queue back on, as for a client that never connected: the command waits, times out, and must be dropped.
    probe.options.enableOfflineQueue = true;
    const error = await probe.set('rc:dropped', 'ran').then(() => undefined, (e: unknown) => e);
    assert.ok(isRedisUnavailable(error), String(error));
    assert.notEqual((error as Partial<RedisUnavailableError>).maySucceedLate, true, 'it never left this process: "nothing was done" holds');
    await other.startAgain();
    await until('the reconnect', async () => (await probe.ping()) === 'PONG', 3000);
    await sleep(100);
    assert.equal(await probe.get('rc:dropped'), null, 'the timed-out SET never ran');
  } finally {
    probe.disconnect();
    await other.stop();
  }
});

test('BullMQ works on these connections and keeps working across a Redis restart', async () => {
  const prefix = `rc${Date.now()}`;
  // BullMQ leaves connections it was given open: they are closed here.
  const connections = [db.redis.duplicate(), db.redis.duplicate({ maxRetriesPerRequest: null }), db.redis.duplicate({ maxRetriesPerRequest: null })];
  const queue = new Queue('rc', { connection: connections[0]!, prefix });
  const events = new QueueEvents('rc', { connection: connections[1]!, prefix });
  const worker = new Worker('rc', async (job) => ({ doubled: (job.data as { n: number }).n * 2 }), { connection: connections[2]!, prefix, drainDelay: 1 });
  queue.on('error', () => undefined);
  events.on('error', () => undefined);
  worker.on('error', () => undefined);
  try {
    await events.waitUntilReady();
    const first = await queue.add('double', { n: 2 });
    assert.deepEqual(await first.waitUntilFinished(events, 5000), { doubled: 4 });
    // Several seconds of idle blocking fetches: none is cut by the 1 s command timeout.
    await sleep(2500);
    await db.server.restart();
    await until('the queue reconnecting', async () => (await queue.add('double', { n: 5 }), true), 5000);
    await until('the job running', async () => (await queue.getCompletedCount()) >= 2, 8000);
  } finally {
    await Promise.all([worker.close(true), queue.close(), events.close()]).catch(() => undefined);
    for (const connection of connections) connection.disconnect();
  }
});
