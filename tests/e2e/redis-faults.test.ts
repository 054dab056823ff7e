/**
 * Redis faults on the real stack (issue 12, "Redis faults"): two gateways and two workers as
 * real processes on a private Redis that persists like a production one (AOF, docs/redis.md).
 *
 * - While Redis is down: an MCP tool call fails within 2 s with `unavailable`, /readyz is 503
 *   within 1 s on both gateways (/healthz stays 200: it is liveness only), a REST call with an
 *   operator key is a 503 `unavailable`. Nothing hangs.
 * - Redis started again on the same port and data, no service restarted: /readyz is 200 again,
 *   the same API keys work, the same session continues on the same desktop (a screenshot works),
 *   a kill switch that was on is still on (tenant B) and one that was off is still off (tenant
 *   A), and a new session gets a desktop through the other gateway (the workers' BullMQ
 *   consumers came back too), and both workers publish their room again (the fleet demand
 *   route counts two).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { SessionStore } from '@deskgate/dispatch';
import { ApiKeyStore } from '../../services/gateway/src/auth/api-keys.ts';
import { startPrivateRedis, type PrivateRedis } from '../../scripts/lib/redis-server.ts';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';

const TENANT_A = 'faults-a';
const TENANT_B = 'faults-b';
const SESSION = 'survivor';

const ok = (result: ToolResult) => assert.ok(!result.isError, textOf(result));
const base = (stack: Stack, gateway = 0) => stack.mcpUrls[gateway]!.replace(/\/mcp$/, '');
const FLEET_TOKEN = 'redis-faults-fleet-token-0123456789';
const api = (stack: Stack, path: string, key: string, init: RequestInit = {}) =>
  fetch(`${base(stack)}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });

/** Runs `call` and returns what it gave (or threw) and how long it took. */
async function timed<T>(call: () => Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> {
  const started = performance.now();
  try {
    const value = await call();
    return { value, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = performance.now();
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) if (await check().catch(() => false)) return performance.now() - started;
  assert.fail(`timed out after ${ms} ms waiting for ${what}`);
}

describe('Redis faults', () => {
  let redisServer: PrivateRedis;
  let dataDir: string;
  let stack: Stack;
  let redis: Redis;
  let agentB: string;
  let operatorB: string;
  const clients: McpConnection[] = [];
  const open = async (session: string, key: string) => {
    const client = await connect('2026-07-28', `${stack.mcpUrl}/${session}`, key);
    clients.push(client);
    return client;
  };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskgate-redis-faults-'));
    redisServer = await startPrivateRedis({ dataDir: join(dataDir, 'redis') });
    stack = await startStack({
      // The sandbox profile grants the desktop's apps on start, so a screenshot works at once.
      env: { REDIS_URL: redisServer.url, DESKGATE_PORT: '0', DESKGATE_MAX_DESKTOPS: '2', DESKGATE_WARM_DESKTOPS: '1', DESKGATE_POLICY_PROFILE: 'sandbox', DESKGATE_FLEET_TOKEN: FLEET_TOKEN },
      gateways: 2,
      workers: 2,
      tenant: TENANT_A,
      logDir: join(dataDir, 'logs'),
    });
    // The test's own connection: plain ioredis, it only sets up and inspects.
    redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    redis.on('error', () => undefined);
    await redis.connect();
    const keys = new ApiKeyStore(redis);
    agentB = (await keys.create(TENANT_B, 'faults agent', 'agent')).key;
    operatorB = (await keys.create(TENANT_B, 'faults operator', 'operator')).key;
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    redis?.disconnect();
    await stack?.stop();
    await redisServer?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('Redis down: calls fail fast with unavailable; Redis back: everything resumes and nothing was lost', async () => {
    // A working session on tenant A; tenant B's kill switch on.
    const agent = await open(SESSION, stack.apiKey);
    const first = await agent.call('screenshot');
    ok(first);
    assert.equal(imageOf(first).mimeType.startsWith('image/'), true);
    const desktopBefore = await new SessionStore(redis).desktopOf({ tenant: TENANT_A, name: SESSION });
    assert.ok(desktopBefore, 'the session has a desktop');
    const switched = await api(stack, '/v1/killswitch', operatorB, { method: 'PUT', body: JSON.stringify({ on: true }) });
    assert.equal(switched.status, 200);
    const flipped = (await switched.json()) as { global: boolean; tenant: boolean; lastFlip: { on: boolean; via: string } | null };
    assert.deepEqual({ global: flipped.global, tenant: flipped.tenant }, { global: false, tenant: true });
    assert.deepEqual({ on: flipped.lastFlip?.on, via: flipped.lastFlip?.via }, { on: true, via: 'api' }, 'the flip is recorded with it');
    const agentOfB = await open('b-session', agentB);
    assert.equal(errorKind(await agentOfB.call('screenshot')), 'disabled');
    // Past the append-only file's once-a-second fsync: even a crash would keep these.
    await sleep(1100);

    await redisServer.stopServer();

    for (const gateway of [0, 1]) {
      const readyz = await timed(() => fetch(`${base(stack, gateway)}/readyz`));
      assert.equal(readyz.value?.status, 503, `gateway ${gateway}'s /readyz while Redis is down: ${readyz.value?.status ?? String(readyz.error)}`);
      assert.ok(readyz.ms < 1000, `gateway ${gateway}'s /readyz answered in ${Math.round(readyz.ms)} ms`);
      assert.deepEqual(await readyz.value!.json(), { ready: false, redis: false });
    }
    const healthz = await fetch(`${base(stack)}/healthz`);
    assert.equal(healthz.status, 200, '/healthz is liveness only');

    // The MCP call: its key cannot be checked (fail closed: 503 unavailable), or, within the key
    // cache's half second, the call itself is refused (tool error `unavailable`).
    const call = await timed(() => agent.call('screenshot'));
    assert.ok(call.ms < 2000, `the tool call failed in ${Math.round(call.ms)} ms`);
    if (call.value) {
      assert.equal(errorKind(call.value), 'unavailable', textOf(call.value));
      assert.match(textOf(call.value), /state store \(Redis\) cannot be reached.*retry in a few seconds/i);
    } else {
      // The client's HTTP error carries the status and the body (the gateway's ApiError shape).
      const error = call.error as Error & { data?: { status?: number; text?: string } };
      assert.equal(error.data?.status, 503, error.message);
      assert.equal((JSON.parse(error.data?.text ?? '{}') as { error?: string }).error, 'unavailable', error.message);
    }

    const rest = await timed(() => api(stack, '/v1/sessions', stack.operatorKey));
    assert.ok(rest.ms < 2000, `the REST call answered in ${Math.round(rest.ms)} ms`);
    assert.equal(rest.value?.status, 503);
    assert.equal(rest.value!.headers.get('retry-after'), '2');
    const body = (await rest.value!.json()) as { error: string; message: string };
    assert.equal(body.error, 'unavailable');
    assert.match(body.message, /state store \(Redis\) cannot be reached/);

    // A fresh MCP client cannot even connect-and-call: still 503, still fast.
    const fresh = await timed(async () => {
      const client = await open('while-down', stack.apiKey);
      return client.call('screenshot');
    });
    assert.ok(fresh.ms < 2000, `a new client was refused in ${Math.round(fresh.ms)} ms`);
    assert.ok(fresh.error || errorKind(fresh.value!) === 'unavailable', 'no call succeeds while Redis is down');

    // Same port, same data; no service is restarted.
    await redisServer.startAgain();
    for (const gateway of [0, 1]) {
      const backMs = await waitFor(`gateway ${gateway}'s /readyz to be 200`, async () => (await fetch(`${base(stack, gateway)}/readyz`)).status === 200, 10_000);
      assert.ok(backMs < 5000, `gateway ${gateway} ready again ${Math.round(backMs)} ms after Redis was`);
    }

    // The same keys work.
    const sessions = await api(stack, '/v1/sessions', stack.operatorKey);
    assert.equal(sessions.status, 200, await sessions.clone().text());
    // The same session continues on the same desktop (the worker's action loop reconnected).
    const again = await agent.call('screenshot');
    ok(again);
    assert.equal(await new SessionStore(redis).desktopOf({ tenant: TENANT_A, name: SESSION }), desktopBefore, 'same desktop');
    // The kill switches are as they were: B's on, A's off.
    assert.equal(errorKind(await agentOfB.call('screenshot')), 'disabled');
    const stateB = await api(stack, '/v1/killswitch', operatorB);
    // The switch and its record of who flipped it both survive the restart (AOF); the other tenant's is untouched.
    const afterB = (await stateB.json()) as typeof flipped;
    assert.deepEqual({ global: afterB.global, tenant: afterB.tenant, lastFlip: afterB.lastFlip }, { global: false, tenant: true, lastFlip: flipped.lastFlip });
    const stateA = await api(stack, '/v1/killswitch', stack.operatorKey);
    const afterA = (await stateA.json()) as typeof flipped;
    assert.deepEqual({ global: afterA.global, tenant: afterA.tenant, lastFlip: afterA.lastFlip }, { global: false, tenant: false, lastFlip: null });
    // A new session gets a desktop through the other gateway: the workers' BullMQ consumers and the gateways' queues came back.
    const newcomer = await connect('2026-07-28', `${stack.mcpUrls[1]}/after-restart`, stack.apiKey);
    clients.push(newcomer);
    ok(await newcomer.call('screenshot'));
    // Both workers publish their room again (each on its next heartbeat).
    await waitFor(
      'both workers to publish their room again',
      async () => ((await (await fetch(`${base(stack, 1)}/v1/fleet/demand`, { headers: { authorization: `Bearer ${FLEET_TOKEN}` } })).json()) as { workers: number }).workers === 2,
      15_000,
    );
  });
});
