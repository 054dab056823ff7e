import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { ActionClient } from './action-client.ts';
import type { ActionRequest } from './action-protocol.ts';
import { ActionServer } from './action-server.ts';
import { keys } from './keys.ts';
import { createRedis } from './redis-connection.ts';
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

async function worker(desktopId: string, handled: ActionRequest[]) {
  const main = createRedis(db.server.url, 'worker');
  const reader = main.duplicate();
  await Promise.all([main.ping(), reader.ping()]);
  const actionServer = new ActionServer(main, reader, desktopId, async (request) => {
    handled.push(request);
    return { result: { content: [{ type: 'text', text: `ran ${request.id}` }] }, timings: {} };
  }, (error) => assert.fail(String(error)));
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
