import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { ActionClient } from './action-client.ts';
import type { ActionRequest } from './action-protocol.ts';
import { ActionServer } from './action-server.ts';
import { keys } from './keys.ts';
import { createRedis, RedisUnavailableError } from './redis-connection.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis();

/** Counts the writes a connection makes to its socket: each write is one round trip's request. */
function countWrites(connection: Redis): { count: () => number } {
  const stream = (connection as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
  let writes = 0;
  const write = stream.write.bind(stream);
  stream.write = (...args: unknown[]) => {
    writes++;
    return write(...args);
  };
  return { count: () => writes };
}

async function worker(desktopId: string, handled: ActionRequest[], onError: (error: unknown) => void = (error) => assert.fail(String(error))) {
  const main = createRedis(db.server.url, 'worker');
  const reader = main.duplicate();
  await Promise.all([main.ping(), reader.ping()]);
  const actionServer = new ActionServer(main, reader, desktopId, async (request) => {
    handled.push(request);
    return { result: { content: [{ type: 'text', text: `ran ${request.id}` }] }, timings: {} };
  }, onError);
  return { main, reader, actionServer };
}

const textOf = (reply: { result: { content: { text?: string }[] } }) => reply.result.content[0]?.text ?? '';

test('a call goes through the channel: the request arrives as sent, with the epoch the enqueue took, and runs once', async () => {
  const d = 'srv-1';
  await db.redis.set(keys.desktopAlive(d), '1');
  const handled: ActionRequest[] = [];
  const w = await worker(d, handled);
  const client = new ActionClient(db.redis);
  try {
    const args = { text: '"},"epoch":99,"x":{"' };
    const reply = await client.send({ desktopId: d, tenant: 't', session: 's', tool: 'type', args, timeoutMs: 5000, controller: 'k1/a|b"c' });
    assert.equal(textOf(reply), `ran ${handled[0]!.id}`);
    assert.equal(handled.length, 1);
    assert.deepEqual(handled[0]!.args, args);
    assert.equal(handled[0]!.epoch, 1);
    const again = await client.send({ desktopId: d, tenant: 't', session: 's', tool: 'type', args, timeoutMs: 5000, controller: 'k1/a|b"c' });
    assert.ok(textOf(again).startsWith('ran '));
    assert.equal(handled.length, 2);
    assert.equal(handled[1]!.epoch, 1, 'the holder keeps its epoch');
  } finally {
    await client.close();
    await w.actionServer.close();
    w.main.disconnect();
  }
});

test('a stale epoch is refused by the claim itself: no read of the lock of its own, one round trip to claim, the handler never called', async () => {
  const d = 'srv-stale';
  const handled: ActionRequest[] = [];
  const w = await worker(d, handled);
  const replyTo = 'deskgate:test:replies:stale';
  const send = async (entry: string) => {
    await db.redis.rpush(keys.desktopActions(d), entry);
    const popped = await db.redis.blpop(replyTo, 5);
    assert.ok(popped, 'the worker answered');
    return JSON.parse(popped[1]) as { id: string; result: { isError?: boolean; content: { text: string }[] } };
  };
  const request = (id: string) => JSON.stringify({ id, replyTo, tenant: 't', session: 's', tool: 'left_click', args: {}, deadline: Date.now() + 5000, sentAt: Date.now() });
  try {
    await db.redis.set(keys.desktopLock(d), '7|k_other');
    await new Promise((resolve) => setTimeout(resolve, 50)); // the worker is waiting
    const mainWrites = countWrites(w.main);
    const readerWrites = countWrites(w.reader);
    const stale = await send(`6|${request('stale')}`);
    assert.equal(stale.id, 'stale');
    assert.equal(stale.result.isError, true);
    assert.match(stale.result.content[0]!.text, /stale_epoch|epoch 6.*since \(epoch 7\).*not run/s);
    assert.equal(handled.length, 0, 'a stale action is never run');
    // The reply is the worker's only write on its main connection (before: a GET of the lock, then the reply).
    assert.equal(mainWrites.count(), 1, 'no read of the lock between claim and reply');
    // The claim already on the wire (the wait, with the claim right behind it) took the request:
    // at most one write, when an idle wait had just ended.
    assert.ok(readerWrites.count() <= 1, `claimed with ${readerWrites.count()} write(s) after the push`);

    await db.redis.del(keys.desktopLock(d));
    const lapsed = await send(`7|${request('lapsed')}`);
    assert.match(lapsed.result.content[0]!.text, /lease lapsed.*not run/);
    await db.redis.set(keys.desktopLock(d), '7|k_other');
    const current = await send(`7|${request('current')}`);
    assert.equal(current.result.content[0]!.text, 'ran current');
    const legacy = await send(JSON.stringify({ ...JSON.parse(request('legacy')), epoch: 7 }));
    assert.equal(legacy.result.content[0]!.text, 'ran legacy', 'an entry in the older format (epoch inside the JSON) is still served');
    assert.deepEqual(handled.map((r) => r.id), ['current', 'legacy'], 'each ran once, nothing stale ran');
    assert.equal(await db.redis.llen(keys.desktopActions(d)), 0);
  } finally {
    await w.actionServer.close();
    w.main.disconnect();
  }
});

test('actions queued faster than they run are each claimed once, in order, none twice', async () => {
  const d = 'srv-burst';
  await db.redis.set(keys.desktopAlive(d), '1');
  const handled: ActionRequest[] = [];
  const w = await worker(d, handled);
  const client = new ActionClient(db.redis);
  try {
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => client.send({ desktopId: d, tenant: 't', session: 's', tool: 'key', args: { i }, timeoutMs: 10_000, controller: 'k1' })),
    );
    assert.equal(replies.length, 200);
    assert.equal(handled.length, 200);
    assert.deepEqual(handled.map((r) => (r.args as { i: number }).i), Array.from({ length: 200 }, (_, i) => i));
    assert.equal(new Set(handled.map((r) => r.id)).size, 200);
  } finally {
    await client.close();
    await w.actionServer.close();
    w.main.disconnect();
  }
});

/** Holds every write command (scripts and blocking pops included) for `ms`: Redis answers late, then runs them all. */
const pauseWrites = (ms: number) => db.redis.call('CLIENT', 'PAUSE', String(ms), 'WRITE');

test('a claim answered past its deadline (Redis held up) loses nothing: the next claim hands the popped request over, and it runs once', async () => {
  const d = 'srv-late-claim';
  const replyTo = 'deskgate:test:replies:late-claim';
  const entry = JSON.stringify({ id: 'late', replyTo, tenant: 't', session: 's', tool: 'left_click', args: {}, deadline: Date.now() + 10_000, sentAt: Date.now() });
  await db.redis.set(keys.desktopLock(d), '1|k1');
  await db.redis.rpush(keys.desktopActions(d), `1|${entry}`);
  const handled: string[] = [];
  const errors: unknown[] = [];
  const main = createRedis(db.server.url, 'worker');
  const reader = main.duplicate();
  await Promise.all([main.ping(), reader.ping()]);
  // The worker's first claim is sent while Redis holds writes for 1.5 s: it pops the entry, but
  // its answer arrives after the 1 s command deadline.
  await pauseWrites(1500);
  const server = new ActionServer(main, reader, d, async (request) => {
    handled.push(request.id);
    return { result: { content: [{ type: 'text', text: 'ran' }] }, timings: {} };
  }, (error) => errors.push(error));
  try {
    const popped = await db.redis.blpop(replyTo, 10);
    assert.ok(popped, 'the request was answered');
    assert.equal((JSON.parse(popped[1]) as { id: string }).id, 'late');
    await new Promise((resolve) => setTimeout(resolve, 1200)); // more claims: nothing is handed over twice
    assert.deepEqual(handled, ['late'], 'run once');
    assert.equal(await db.redis.llen(keys.desktopActions(d)), 0);
    assert.ok(errors.some((error) => error instanceof RedisUnavailableError && /got no answer within/.test(error.message)), 'the late claim was reported');
  } finally {
    await server.close();
    main.disconnect();
  }
});

test('an enqueue answered past its deadline is not reported as "nothing was done": the call waits for the reply the worker sends', async () => {
  const d = 'srv-late-enqueue';
  await db.redis.set(keys.desktopAlive(d), '1');
  const handled: ActionRequest[] = [];
  // The worker's own claim is held up too: a late claim is expected, nothing else.
  const w = await worker(d, handled, (error) => assert.ok(error instanceof RedisUnavailableError, String(error)));
  const gateway = createRedis(db.server.url, 'gateway');
  const client = new ActionClient(gateway);
  try {
    await new Promise((resolve) => setTimeout(resolve, 100)); // the worker is waiting
    await pauseWrites(1500);
    const reply = await client.send({ desktopId: d, tenant: 't', session: 's', tool: 'key', args: {}, timeoutMs: 10_000, controller: 'k1' });
    assert.equal(textOf(reply), `ran ${handled[0]!.id}`);
    assert.equal(handled.length, 1, 'run once');
  } finally {
    await client.close();
    gateway.disconnect();
    await w.actionServer.close();
    w.main.disconnect();
  }
});
