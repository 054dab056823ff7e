/**
 * A gateway drained (SIGTERM) with a client's kept-alive connection open: the listener closes
 * at once, but a request the client sends on that connection is still answered — with
 * `Connection: close`, so its next request opens a new connection — instead of the connection
 * being closed under it between two requests (a failed request without an answer). The
 * gateway exits within its drain.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';

const DRAIN_SECONDS = 4;
let stack: Stack;

before(async () => {
  stack = await startStack({
    env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_DRAIN_SECONDS: String(DRAIN_SECONDS) },
    tenant: 'drain',
    logDir: mkdtempSync(join(tmpdir(), 'deskgate-gateway-drain-')),
  });
});

after(async () => {
  await stack?.stop();
});

interface Answer {
  status: number;
  connection: string | undefined;
  keepAlive: string | string[] | undefined;
  reusedSocket: boolean;
  body: string;
}

function get(url: URL, agent: http.Agent | false, key: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, keepAlive: response.headers['keep-alive'], reusedSocket: request.reusedSocket, body }));
    });
    request.on('error', reject);
  });
}

/** Whether a new connection to the gateway is refused (its listener is closed). */
function refusesNewConnections(url: URL): Promise<boolean> {
  return get(url, false, stack.operatorKey).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
  );
}

/** Runs `use` with one kept-alive connection to the gateway, opened by an answered GET /v1/sessions. */
async function overKeptAliveConnection(use: (again: () => Promise<Answer>, first: Answer) => Promise<void>): Promise<void> {
  const sessions = new URL('/v1/sessions', stack.mcpUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await get(sessions, agent, stack.operatorKey);
    assert.equal(first.status, 200, first.body);
    await use(() => get(sessions, agent, stack.operatorKey), first);
  } finally {
    agent.destroy();
  }
}

test('an idle kept-alive connection stays open 65 s, longer than the proxies in front keep theirs (Node closes at 5 s)', () =>
  overKeptAliveConnection(async (again, first) => {
    assert.equal(first.keepAlive, 'timeout=65');
    await sleep(6000);
    const later = await again();
    assert.ok(later.reusedSocket, 'the connection left idle for 6 s was closed');
    assert.equal(later.status, 200, later.body);
  }));

test('a request on a kept-alive connection during the drain is answered, then its connection closed', () =>
  overKeptAliveConnection(async (again, first) => {
    const sessions = new URL('/v1/sessions', stack.mcpUrl);
    assert.notEqual(first.connection, 'close');

    const signalled = Date.now();
    process.kill(stack.gateway.process.pid!, 'SIGTERM');
    const deadline = Date.now() + 5000;
    while (!(await refusesNewConnections(sessions))) {
      assert.ok(Date.now() < deadline, 'the draining gateway still accepts new connections after 5 s');
      await sleep(20);
    }

    // The connection opened before the drain carries one more request: answered, then closed.
    const during = await again();
    assert.ok(during.reusedSocket, 'the request went over the connection opened before the drain');
    assert.equal(during.status, 200, during.body);
    assert.equal(during.connection, 'close');
    assert.ok(Array.isArray(JSON.parse(during.body).sessions), during.body);

    const code = await stack.gateway.exited;
    const exitMs = Date.now() - signalled;
    assert.ok(exitMs < (DRAIN_SECONDS + 3) * 1000, `the gateway exited ${exitMs} ms after SIGTERM; its bound is the drain (${DRAIN_SECONDS} s) + 3 s`);
    assert.equal(code, 0);
  }));
