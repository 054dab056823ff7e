import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import pino from 'pino';
import { ActionClient } from '../action-client.ts';
import { ActionServer, type HandledAction } from '../action-server.ts';
import { keys } from '../keys.ts';
import { createRedis } from '../redis-connection.ts';
import { usePrivateRedis } from '../test-support/private-redis.ts';
import { HANDSHAKE_TIMEOUT_MS, MAX_DIRECT_REPLY_BYTES, newNonce, proof } from './protocol.ts';
import { ReplyListener } from './reply-listener.ts';
import { ReplySender } from './reply-sender.ts';

const db = usePrivateRedis();
const log = pino({ level: 'silent' });

async function until(check: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A raw TCP client: what it received, and whether the other side closed it. */
async function rawClient(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise((resolve) => socket.once('connect', resolve));
  const state = { received: '', closed: false, socket };
  socket.on('data', (chunk) => (state.received += chunk.toString()));
  socket.on('error', () => undefined);
  socket.on('close', () => (state.closed = true));
  return state;
}

/** Runs the worker's side of the handshake by hand, knowing the secret or not. */
async function handshake(port: number, secret: string) {
  const client = await rawClient(port);
  client.socket.write(`${JSON.stringify({ v: 1, nonce: newNonce() })}\n`);
  await until(() => client.received.includes('\n') || client.closed);
  const { nonce } = JSON.parse(client.received) as { nonce: string };
  client.socket.write(`${JSON.stringify({ proof: proof(secret, 'worker', nonce) })}\n`);
  return client;
}

/** A gateway's action client taking direct replies, and a desktop's action server whose worker sends them: both real, on the private Redis. */
async function gatewayAndDesktop(d: string, answer: (id: string) => HandledAction) {
  await db.redis.set(keys.desktopAlive(d), '1');
  const client = new ActionClient(db.redis);
  const route = await client.listenForReplies({ host: '127.0.0.1', port: 0 }, log);
  const sender = new ReplySender(log);
  const main = createRedis(db.server.url, 'worker');
  const server = new ActionServer(main, main.duplicate(), d, async (request) => answer(request.id), (error) => assert.fail(String(error)), sender);
  return {
    client,
    route,
    sender,
    call: (tool: string) => client.send({ desktopId: d, tenant: 't', session: 's', tool, args: {}, timeoutMs: 10_000, controller: 'k' }),
    async close() {
      await server.close();
      main.disconnect();
      sender.close();
      await client.close();
    },
  };
}

test('replies go to the gateway directly once connected, through Redis before that and when they must follow writes', async () => {
  let replyFirst = true;
  const { client, route, sender, call: callTool, close } = await gatewayAndDesktop('direct-1', (id) => ({
    result: { content: [{ type: 'text', text: `ran ${id}` }] },
    timings: {},
    persist: (multi) => multi.set(`written-${id}`, '1'),
    replyFirst,
  }));
  const call = () => callTool('left_click');
  try {
    assert.equal(route.host, '127.0.0.1');
    // The first request opens the connection; its reply goes whichever way is ready.
    const first = await call();
    assert.match(first.result.content[0].text, /^ran /);
    assert.equal(client.settled.direct + client.settled.redis, 1);
    await until(() => sender.connected === 1);
    const before = { ...client.settled };
    for (let i = 0; i < 5; i++) {
      const reply = await call();
      assert.equal(reply.result.content[0].text, `ran ${reply.id}`);
      // The writes still happen, after the reply.
      await until(async () => (await db.redis.get(`written-${reply.id}`)) === '1');
    }
    assert.deepEqual(client.settled, { direct: before.direct + 5, redis: before.redis });
    // A reply that must follow its writes (the session's state changed) takes Redis, in their transaction.
    replyFirst = false;
    const ordered = await call();
    assert.equal(await db.redis.get(`written-${ordered.id}`), '1', 'written before the reply was read');
    assert.deepEqual(client.settled, { direct: before.direct + 5, redis: before.redis + 1 });
  } finally {
    await close();
  }
});

test('a reply over the direct bound goes through Redis', async () => {
  let size = 10;
  const { client, sender, call: callTool, close } = await gatewayAndDesktop('direct-big', () => ({ result: { content: [{ type: 'text', text: 'x'.repeat(size) }] }, timings: {}, replyFirst: true }));
  const call = () => callTool('zoom');
  try {
    await call();
    await until(() => sender.connected === 1);
    const before = { ...client.settled };
    await call();
    assert.deepEqual(client.settled, { direct: before.direct + 1, redis: before.redis });
    size = MAX_DIRECT_REPLY_BYTES + 1;
    const big = await call();
    assert.equal(big.result.content[0].text.length, size);
    assert.deepEqual(client.settled, { direct: before.direct + 1, redis: before.redis + 1 });
  } finally {
    await close();
  }
});

test('attacks on the listener: garbage, a wrong secret, silence, a line past the bound, too many connections', async () => {
  const delivered: string[] = [];
  const logged: string[] = [];
  const listener = new ReplyListener((line) => delivered.push(line.toString()), pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) }));
  const route = await listener.listen({ host: '127.0.0.1', port: 0, maxConnections: 3 });
  try {
    const garbage = await rawClient(route.port);
    garbage.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => garbage.closed);
    assert.equal(garbage.received, '', 'no answer to something that is not a worker');

    // A client that does not know the secret is answered the gateway's challenge, then dropped: its replies settle nothing.
    const forger = await handshake(route.port, 'not-the-secret-not-the-secret-not-the-secret');
    forger.socket.write(`${JSON.stringify({ id: 'a-call', result: { content: [] }, timings: {} })}\n`);
    await until(() => forger.closed);
    assert.deepEqual(delivered, []);
    // The gateway's proof is bound to the client's nonce: it reveals nothing reusable.
    assert.ok(!forger.received.includes(route.secret));

    const worker = await handshake(route.port, route.secret);
    worker.socket.write('{"id":"x","result":{"content":[]},"timings":{}}\n');
    await until(() => delivered.length === 1);
    assert.equal(worker.closed, false);
    // One line past the bound (no newline in it) drops the connection.
    worker.socket.write(Buffer.alloc(MAX_DIRECT_REPLY_BYTES + 1, 0x61));
    await until(() => worker.closed, 10_000);
    assert.equal(delivered.length, 1);

    // Over the cap: closed at once.
    const held = [await rawClient(route.port), await rawClient(route.port), await rawClient(route.port)];
    const extra = await rawClient(route.port);
    await until(() => extra.closed);
    assert.ok(held.every((c) => !c.closed));
    for (const c of held) c.socket.destroy();
    await until(() => listener.connections === 0);

    // Silence: dropped once the handshake time is over.
    const silent = await rawClient(route.port);
    const started = Date.now();
    await until(() => silent.closed, HANDSHAKE_TIMEOUT_MS + 3000);
    assert.ok(Date.now() - started >= HANDSHAKE_TIMEOUT_MS - 100);
    assert.ok(listener.refused >= 5);
    // A flood of refusals logs one line per REFUSAL_LOG_MS, not one each; none holds the secret.
    assert.equal(logged.length, 1, logged.join(''));
    assert.match(logged[0]!, /direct replies: connection refused/);
    assert.match(logged[0]!, /"remote":"127\.0\.0\.1:\d+"/);
    assert.ok(!logged[0]!.includes(route.secret));
  } finally {
    await listener.close();
  }
});

test('a listener that is not the gateway (it took the port) gets no reply: the worker checks its proof first', async () => {
  const heard: string[] = [];
  const impostor = net.createServer((socket) => {
    socket.on('data', (chunk) => {
      heard.push(chunk.toString());
      socket.write(`${JSON.stringify({ nonce: newNonce(), proof: 'A'.repeat(43) })}\n`);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
  const port = (impostor.address() as net.AddressInfo).port;
  const sender = new ReplySender(log);
  const fallbacks: string[] = [];
  const route = { host: '127.0.0.1', port, secret: 's'.repeat(43) };
  try {
    assert.equal(sender.send(route, '{"secret":"of a tenant"}', () => fallbacks.push('first')), false);
    await until(() => heard.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(sender.send(route, '{"secret":"of a tenant"}', () => fallbacks.push('second')), false, 'not dialled again at once');
    assert.equal(sender.connected, 0);
    assert.ok(heard.every((text) => !text.includes('of a tenant')), 'only the hello reached it');
    assert.ok(heard.every((text) => !text.includes(route.secret)), 'the secret never crossed the wire');
  } finally {
    sender.close();
    await new Promise((resolve) => impostor.close(resolve));
  }
});

test('replies written just before a connection breaks are sent again through Redis', async () => {
  const delivered: string[] = [];
  const listener = new ReplyListener((line) => delivered.push(line.toString()), log);
  const route = await listener.listen({ host: '127.0.0.1', port: 0 });
  const sender = new ReplySender(log);
  const fallbacks: string[] = [];
  try {
    sender.send(route, '{"n":0}', () => fallbacks.push('0'));
    await until(() => sender.connected === 1);
    assert.equal(sender.send(route, '{"n":1}', () => fallbacks.push('1')), true);
    await until(() => delivered.length === 1);
    await listener.close();
    await until(() => fallbacks.length === 1);
    assert.deepEqual(fallbacks, ['1']);
    // The route rests: the next reply goes through Redis without a dial.
    assert.equal(sender.send(route, '{"n":2}', () => fallbacks.push('2')), false);
    assert.equal(sender.connected, 0);
  } finally {
    sender.close();
  }
});
