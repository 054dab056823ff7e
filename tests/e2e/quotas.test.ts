/**
 * Limits on the real stack: what one tenant can make the service store or hold.
 * - Calls refused before a session exists are counted, never stored: 1,000 of them on
 *   never-created session names leave no Redis key behind.
 * - A tenant at its session quota is refused (quota_exceeded) while another tenant still gets
 *   a desktop; a tenant over its call rate is refused with when to retry.
 * - A failed allocation reaches the client without the worker's id, paths or pids.
 * - A Redis that refuses writes while typed text and clipboard contents are in flight puts none
 *   of them in any log file (ioredis errors carry the failed command's arguments).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ApiKeyStore } from '../../services/gateway/src/auth/api-keys.ts';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { connect, errorKind, retryHintOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';

const WORKER_ID = 'w-quota-internal-7f3a';
const CALLS_PER_SECOND = 50;
const ok = (result: ToolResult) => assert.ok(!result.isError, textOf(result));
const refused = (result: ToolResult, kind: string) => assert.equal(errorKind(result), kind, textOf(result));
const api = (stack: Stack, path: string, key: string, init: RequestInit = {}) =>
  fetch(`${stack.mcpUrl.replace(/\/mcp$/, '')}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });
/** Every key but BullMQ's own bookkeeping (its stalled-job checks come and go on their own). */
const keysOf = async (redis: Redis) => new Set((await redis.keys('*')).filter((key) => !key.startsWith('deskgate:bull:')));
/** What a client must never be shown: the worker's id, an absolute path, a pid. */
function assertNothingInternal(message: string) {
  assert.ok(!message.includes(WORKER_ID), `names the worker: ${message}`);
  assert.doesNotMatch(message, /\/(home|root|tmp|usr|var|work|opt|proc|run|etc|srv|mnt|dev)\//, `carries a path: ${message}`);
  assert.doesNotMatch(message, /\bpid\b/i, `carries a pid: ${message}`);
}
async function waitFor(check: () => Promise<boolean>, what: string, ms = 10_000) {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) if (await check()) return;
  assert.fail(`timed out waiting for ${what}`);
}

describe('tenant quotas', () => {
  let stack: Stack;
  let redis: Redis;
  let keyB: string;
  const clients: McpConnection[] = [];
  const open = async (session: string, key?: string) => {
    const client = await connect('2026-07-28', `${stack.mcpUrl}/${session}`, key ?? stack.apiKey);
    clients.push(client);
    return client;
  };

  before(async () => {
    stack = await startStack({
      env: {
        REDIS_URL: '',
        DESKGATE_PORT: '0',
        DESKGATE_WORKER_ID: WORKER_ID,
        DESKGATE_MAX_DESKTOPS: '3',
        DESKGATE_WARM_DESKTOPS: '1',
        DESKGATE_TENANT_MAX_SESSIONS: '2',
        DESKGATE_TENANT_CALLS_PER_SECOND: String(CALLS_PER_SECOND),
        // A session finding every desktop in use waits this long for one (tests/e2e/capacity.test.ts covers the wait).
        DESKGATE_DESKTOP_WAIT_SECONDS: '1',
      },
      tenant: 'tenant-a',
      logDir: mkdtempSync(join(tmpdir(), 'deskgate-quotas-')),
    });
    redis = new Redis(stack.redisUrl);
    keyB = (await new ApiKeyStore(redis).create('tenant-b')).key;
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    redis?.disconnect();
    await stack?.stop();
  });

  test('1,000 refused calls on never-created session names are counted and logged, and leave no Redis key', async () => {
    const before = await keysOf(redis);
    const kinds = new Map<string, number>();
    for (let i = 0; i < 1000; i++) {
      const ghost = await connect('2026-07-28', `${stack.mcpUrl}/ghost-${i}`, stack.apiKey);
      try {
        const result = i % 2 === 0 ? await ghost.call(`no_such_tool_${i}`, { text: 'x'.repeat(100) }) : await ghost.call('left_click', { coordinate: 'here' });
        const kind = errorKind(result) ?? 'ok';
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      } finally {
        await ghost.close();
      }
    }
    assert.deepEqual([...kinds.keys()].filter((kind) => kind !== 'bad_args' && kind !== 'quota_exceeded'), [], `every call was refused: ${JSON.stringify([...kinds])}`);
    assert.ok((kinds.get('bad_args') ?? 0) >= CALLS_PER_SECOND, 'most were refused as unknown tools and bad arguments');
    await sleep(1200); // the call-rate counter lapses with its window
    const after = await keysOf(redis);
    assert.deepEqual([...after].filter((key) => !before.has(key)), [], 'no new Redis key');
    assert.deepEqual(await redis.keys('*ghost-*'), []);

    const metrics = await (await api(stack, '/metrics', stack.operatorKey)).text();
    const count = (reason: string) => Number(new RegExp(`deskgate_gateway_refused_calls_total\\{reason="${reason}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    assert.ok(count('unknown_tool') > 0 && count('bad_args') > 0, metrics.split('\n').filter((l) => l.includes('refused')).join('\n'));
    assert.equal(count('unknown_tool') + count('bad_args') + count('quota_exceeded'), 1000);
    const log = readFileSync(`${stack.logDir}/gateway.log`, 'utf8');
    assert.ok(log.split('\n').some((line) => line.includes('"session":"ghost-999"') && line.includes('"audited":false')), 'each is logged');
  });

  test('a tenant at its session quota is refused a new session, and nothing is started; another tenant still gets a desktop', async () => {
    await sleep(1100);
    const [s1, s2, s3] = [await open('s1'), await open('s2'), await open('s3')];
    ok(await s1.call('list_granted_applications'));
    ok(await s2.call('list_granted_applications'));
    const desktopsBefore = (await redis.keys('deskgate:desktop:*:alive')).length;
    const over = await s3.call('list_granted_applications');
    refused(over, 'quota_exceeded');
    assert.match(textOf(over), /already has 2 sessions, its limit of concurrent sessions is 2, so session "s3" was not started\. Nothing was done: end a session .* and retry/);
    assertNothingInternal(textOf(over));
    assert.equal(over.structuredContent?.error?.retryAfterMs, undefined, 'no retry time: it depends on a session ending');
    assert.equal(await redis.exists('deskgate:session:tenant-a:s3'), 0);
    assert.equal((await redis.keys('deskgate:desktop:*:alive')).length, desktopsBefore, 'no desktop was started');
    assert.equal(await redis.exists('deskgate:audit:tenant-a:s3'), 0, 'the refusal is not stored under the new name');

    const b1 = await open('b1', keyB);
    ok(await b1.call('list_granted_applications'));

    // Ending one of A's sessions makes room for another.
    assert.equal((await api(stack, '/v1/sessions/s1', stack.apiKey, { method: 'DELETE' })).status, 200);
    await waitFor(async () => !(await redis.exists('deskgate:session:tenant-a:s1')), 's1 to end');
    let again: ToolResult | undefined;
    await waitFor(async () => !(again = await s3.call('list_granted_applications')).isError, 'a desktop for s3');
    ok(again!);
  });

  test('a failed allocation names no worker id, path or pid; the cause is in the gateway log', async () => {
    // A holds s2 and s3 and B holds b1: the worker's three desktops are taken.
    const b2 = await open('b2', keyB);
    const result = await b2.call('list_granted_applications');
    refused(result, 'desktop_unavailable');
    assert.match(textOf(result), /All 3 desktops are in use, so session "b2" could not start \(it waited 1 s for one\)\. Nothing was done; retry in ~\d+ s/);
    assert.ok(retryHintOf(result) >= 1000, 'the retry hint is in the structured error too');
    assertNothingInternal(textOf(result));
    assertNothingInternal(JSON.stringify(result));
    assert.equal(await redis.exists('deskgate:session:tenant-b:b2'), 0);
    assert.equal(await redis.exists('deskgate:tenant:tenant-b:starting'), 0, 'its place in the quota is given back');
    await sleep(200);
    const log = readFileSync(`${stack.logDir}/gateway.log`, 'utf8');
    const cause = log.split('\n').find((line) => line.includes('no desktop could be allocated') && line.includes('"session":"b2"'));
    assert.ok(cause && (JSON.parse(cause) as { err: { message: string } }).err.message.length > 0, 'the operator still sees why, in the gateway log');
  });

  test('a tenant over its call rate is refused with when to retry, and the refusals are not stored; the next second it is served', async () => {
    await sleep(1100);
    const s2 = clients[1]!;
    const auditBefore = await redis.xlen('deskgate:audit:tenant-a:s2');
    // Calls the gateway answers itself (an unknown tool on an existing session), so a burst is quick.
    const results = await Promise.all(Array.from({ length: CALLS_PER_SECOND * 5 }, () => s2.call('no_such_tool')));
    const over = results.filter((r) => errorKind(r) === 'quota_exceeded');
    // Each window lets CALLS_PER_SECOND through; the burst spans a window or two.
    assert.ok(over.length >= CALLS_PER_SECOND * 2, `${over.length} refused for the rate`);
    assert.match(textOf(over[0]!), new RegExp(`over its limit of ${CALLS_PER_SECOND} tool calls per second\\. Nothing was done; retry in (0\\.\\d|1) s\\.`));
    assertNothingInternal(textOf(over[0]!));
    for (const refusal of over) {
      const hint = retryHintOf(refusal);
      assert.ok(hint >= 100 && hint <= 1000, `retryAfterMs within the window: ${hint}`);
    }
    assert.ok(results.every((r) => ['quota_exceeded', 'bad_args'].includes(errorKind(r)!)));
    await sleep(300);
    assert.equal(await redis.xlen('deskgate:audit:tenant-a:s2'), auditBefore + results.length - over.length, 'refusals for the rate are not stored');
    await sleep(1100);
    ok(await s2.call('list_granted_applications'));
  });

  test('calls to a live desktop are counted by their enqueue: over the rate they are refused before they reach the desktop', async () => {
    await sleep(1100);
    const s2 = clients[1]!;
    const auditBefore = await redis.xlen('deskgate:audit:tenant-a:s2');
    // A call the session's worker answers (the gateway has no copy of the grants).
    const results = await Promise.all(Array.from({ length: CALLS_PER_SECOND * 5 }, () => s2.call('list_granted_applications')));
    const over = results.filter((r) => errorKind(r) === 'quota_exceeded');
    const ran = results.filter((r) => !r.isError);
    assert.ok(over.length >= CALLS_PER_SECOND * 2, `${over.length} refused for the rate`);
    const others = results.filter((r) => r.isError && errorKind(r) !== 'quota_exceeded').map((r) => `${errorKind(r)}: ${textOf(r)}`);
    assert.deepEqual(others, [], 'each call either ran or was refused for the rate');
    assert.match(textOf(over[0]!), new RegExp(`over its limit of ${CALLS_PER_SECOND} tool calls per second\\. Nothing was done; retry in (0\\.\\d|1) s\\.`));
    assert.ok(over.every((refusal) => retryHintOf(refusal) <= 1000), 'each refusal says when to retry, within the window');
    await sleep(300);
    assert.equal(await redis.xlen('deskgate:audit:tenant-a:s2'), auditBefore + ran.length, 'only the calls that ran are in the audit log');
    await sleep(1100);
    ok(await s2.call('list_granted_applications'));
  });
});

describe('a Redis that refuses writes leaks no typed text or clipboard contents into any log', () => {
  const SECRETS = { clipboard: 'clipboard-secret-9d1e', typed: 'typed-secret-51c0', batch: 'batch-secret-2b77', read: 'read-back-secret-c4a8' };
  let stack: Stack;
  let redis: Redis;
  let mcp: McpConnection;
  const logs = () => readdirSync(stack.logDir).map((name) => readFileSync(join(stack.logDir, name), 'utf8')).join('\n');
  const outOfMemory = async (on: boolean) => {
    if (on) await redis.config('SET', 'maxmemory-policy', 'noeviction');
    await redis.config('SET', 'maxmemory', on ? '1' : '0');
  };

  before(async () => {
    // No call-rate limit (its counter would be the first write refused), text kept in the audit
    // log (so the failed audit write carries it too), clipboard flags granted on start, a short
    // action timeout for the call whose reply is lost, and every reply through Redis (a direct
    // reply never meets a Redis that refuses writes).
    stack = await startStack({
      env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_TENANT_CALLS_PER_SECOND: '0', DESKGATE_AUDIT_TEXT: 'true', DESKGATE_POLICY_PROFILE: 'sandbox', DESKGATE_ACTION_TIMEOUT_SECONDS: '3', DESKGATE_DIRECT_REPLIES: 'off' },
      tenant: 'leaky',
      logDir: mkdtempSync(join(tmpdir(), 'deskgate-oom-')),
    });
    redis = new Redis(stack.redisUrl);
    mcp = await connect('2026-07-28', `${stack.mcpUrl}/oom`, stack.apiKey);
    ok(await mcp.call('list_granted_applications'));
  });
  after(async () => {
    await outOfMemory(false).catch(() => undefined);
    await mcp?.close();
    redis?.disconnect();
    await stack?.stop();
  });

  test('the gateway: actions whose enqueue Redis refuses are logged by command name, without the text they carried', async () => {
    // With the desktop's lock free, the enqueue's first write is taking it, which Redis refuses.
    assert.equal((await api(stack, '/v1/sessions/oom/lock', stack.apiKey, { method: 'DELETE' })).status, 200);
    await outOfMemory(true);
    let results: ToolResult[];
    try {
      results = [
        await mcp.call('write_clipboard', { text: SECRETS.clipboard }),
        await mcp.call('type', { text: SECRETS.typed }),
        await mcp.call('computer_batch', { actions: [{ action: 'type', text: SECRETS.batch }] }),
      ];
      await sleep(100); // the audit writes, after the replies
    } finally {
      await outOfMemory(false);
    }
    for (const result of results) {
      refused(result, 'executor_failed');
      assertNothingInternal(textOf(result));
    }
    ok(await mcp.call('list_granted_applications'));
    await sleep(300);
    const all = logs();
    assert.match(all, /"msg":"tool call failed inside the gateway"/);
    assert.match(all, /"redisCommand":"evalsha?"/, 'the failed enqueue is logged by its command name');
    assert.match(all, /OOM command not allowed/);
    assert.match(all, /"msg":"audit entry not recorded"/);
    for (const secret of [SECRETS.clipboard, SECRETS.typed, SECRETS.batch]) assert.ok(!all.includes(secret), `"${secret}" is in a log file`);
  });

  test('the worker: a reply Redis refuses is logged without the clipboard contents it carried', async () => {
    ok(await mcp.call('write_clipboard', { text: SECRETS.read }));
    await outOfMemory(true);
    let reading: Promise<ToolResult>;
    try {
      // The lock is ours, so the enqueue goes through; the worker's reply is what Redis refuses.
      reading = mcp.call('read_clipboard');
      await waitFor(async () => logs().includes('"msg":"action channel error"'), 'the worker to fail writing its reply', 3000);
    } finally {
      await outOfMemory(false);
    }
    const result = await reading;
    assert.ok(result.isError, 'the reply was lost, so the call fails');
    assertNothingInternal(textOf(result));
    await sleep(300);
    const worker = readFileSync(join(stack.logDir, 'worker.log'), 'utf8');
    assert.match(worker, /"previousErrors":\["OOM command not allowed/);
    for (const secret of Object.values(SECRETS)) assert.ok(!logs().includes(secret), `"${secret}" is in a log file`);
  });
});
