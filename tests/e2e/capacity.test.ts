/**
 * Capacity on the real stack: a worker of two desktops (DESKGATE_MAX_DESKTOPS=2, no spare),
 * a 5 s wait for a desktop and a 10 s idle timeout.
 * - When every desktop is in use, a new session's first call waits, and is served as soon as
 *   another session ends (the waiting allocation is taken within moments of the release,
 *   not on a poll).
 * - When none is released within the bound, it fails with desktop_unavailable saying how many
 *   desktops there are and when to retry, naming no worker or path; nothing stays queued.
 *   With DESKGATE_DESKTOP_WAIT_SECONDS=0 (a second gateway), it fails at once.
 * - Idle reaping follows activity: a session kept busy with screenshots, and one with a call
 *   running longer than the idle timeout, keep their desktops; an idle one loses its desktop,
 *   and its next call gets a new one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { keys, LIFECYCLE_QUEUE } from '@deskgate/dispatch';
import { repoRoot, startStack, type Stack } from '../../scripts/lib/stack.ts';
import { startService } from '../../scripts/lib/service-process.ts';
import { connect, errorKind, retryHintOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';

const WORKER_ID = 'w-capacity-internal-4c1d';
const TENANT = 'cap';
const WAIT_SECONDS = 5;
const IDLE_SECONDS = 10;
const ok = (result: ToolResult) => assert.ok(!result.isError, textOf(result));
const api = (stack: Stack, path: string, key: string, init: RequestInit = {}) =>
  fetch(`${stack.mcpUrl.replace(/\/mcp$/, '')}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });

async function waitFor(check: () => Promise<boolean>, what: string, ms = 10_000) {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) if (await check()) return;
  assert.fail(`timed out waiting for ${what}`);
}

/** Calls `tool` on `client` back to back, `gapMs` apart, until stopped; every answer must be a success. */
function keepBusy(client: McpConnection, gapMs: number, tool = 'screenshot') {
  let running = true;
  const results: ToolResult[] = [];
  const done = (async () => {
    while (running) {
      const result = await client.call(tool);
      results.push(result);
      if (result.isError) break;
      await sleep(gapMs);
    }
  })();
  return {
    results,
    async stop() {
      running = false;
      await done;
      for (const result of results) ok(result);
    },
  };
}

describe('capacity: waiting for a desktop, and idle reaping by activity', { timeout: 180_000 }, () => {
  let stack: Stack;
  let redis: Redis;
  const clients = new Map<string, McpConnection>();
  const open = async (session: string) => {
    const client = await connect('2026-07-28', `${stack.mcpUrl}/${session}`, stack.apiKey);
    clients.set(session, client);
    return client;
  };
  /** A session's first call: the one that needs a desktop. */
  const start = (client: McpConnection) => client.call('request_access', { apps: ['xterm'], reason: 'capacity test' });
  const desktopOf = (session: string) => redis.hget(keys.session(TENANT, session), 'desktopId');
  /** The lifecycle queue's BullMQ records, read as they are stored. */
  const bull = (suffix: string) => `${keys.bullPrefix()}:${LIFECYCLE_QUEUE}:${suffix}`;
  async function completedAllocation(session: string): Promise<{ timestamp: number; processedOn: number } | undefined> {
    for (const id of await redis.zrange(bull('completed'), "0", "-1")) {
      const job = await redis.hgetall(bull(id));
      if (job.data && (JSON.parse(job.data) as { session: string }).session === session) return { timestamp: Number(job.timestamp), processedOn: Number(job.processedOn) };
    }
    return undefined;
  }

  before(async () => {
    stack = await startStack({
      env: {
        REDIS_URL: '',
        DESKGATE_PORT: '0',
        DESKGATE_WORKER_ID: WORKER_ID,
        DESKGATE_MAX_DESKTOPS: '2',
        DESKGATE_WARM_DESKTOPS: '0',
        DESKGATE_DESKTOP_WAIT_SECONDS: String(WAIT_SECONDS),
        DESKGATE_SESSION_IDLE_SECONDS: String(IDLE_SECONDS),
      },
      tenant: TENANT,
      logDir: mkdtempSync(join(tmpdir(), 'deskgate-capacity-')),
    });
    redis = new Redis(stack.redisUrl);
  });
  after(async () => {
    for (const client of clients.values()) await client.close().catch(() => undefined);
    redis?.disconnect();
    await stack?.stop();
  });

  test('a new session finding every desktop in use waits, and is served as soon as another session ends', async (t) => {
    ok(await start(await open('a1')));
    ok(await start(await open('a2')));
    const b = await open('b');
    const asked = Date.now();
    let answeredAt = 0;
    const first = start(b).then((result) => ((answeredAt = Date.now()), result));
    await sleep(2000);
    assert.equal(answeredAt, 0, 'b waits while both desktops are held');
    assert.equal(await desktopOf('b'), null);

    const ended = await api(stack, '/v1/sessions/a1', stack.operatorKey, { method: 'DELETE' });
    assert.equal(ended.status, 200);
    const endedAt = Date.now();
    const result = await first;
    ok(result);
    assert.ok(answeredAt - asked >= 2000 && answeredAt - asked < WAIT_SECONDS * 1000 + 3000, `served within the bound: ${answeredAt - asked} ms`);
    assert.ok(await desktopOf('b'), 'b holds a desktop');

    // The waiting allocation was taken at once when a1's desktop was released (not on a poll).
    const job = await completedAllocation('b');
    assert.ok(job?.processedOn, 'b’s allocation job is there');
    const pickupMs = job.processedOn - endedAt;
    t.diagnostic(`waited ${answeredAt - asked} ms; the allocation was taken ${pickupMs} ms after the session ended, served ${answeredAt - endedAt} ms after`);
    assert.ok(pickupMs < 1000, `taken ${pickupMs} ms after the session ended`);
    // Measured from when b asked, not from the job's own timestamp: under load the gateway may
    // queue the job a little after the call arrived, which says nothing about the wait.
    assert.ok(job.processedOn - asked >= 2000, `it stayed queued while the worker was full (taken ${job.processedOn - asked} ms after b asked)`);
  });

  test('after the bound, the first call fails with desktop_unavailable saying how many desktops there are and when to retry', async (t) => {
    // a2 and b hold both desktops, and stay busy.
    const busy = [keepBusy(clients.get('a2')!, 500), keepBusy(clients.get('b')!, 500)];
    const c = await open('c');
    const started = Date.now();
    const result = await start(c);
    const tookMs = Date.now() - started;
    for (const each of busy) await each.stop();

    assert.equal(errorKind(result), 'desktop_unavailable', textOf(result));
    const message = textOf(result);
    t.diagnostic(`after ${tookMs} ms: ${message}`);
    const match = /^All 2 desktops are in use, so session "c" could not start \(it waited 5 s for one\)\. Nothing was done; retry in ~(\d+) s, or end a session you no longer need\.$/.exec(message);
    assert.ok(match, message);
    // Both sessions are active: the soonest either could be reaped is the idle timeout plus a reaper round away.
    assert.ok(Number(match[1]) >= 1 && Number(match[1]) <= IDLE_SECONDS + 3, message);
    assert.equal(retryHintOf(result), Number(match[1]) * 1000, 'and as retryAfterMs in the structured error');
    assert.ok(!message.includes(WORKER_ID) && !/\/(tmp|run|work|root|home)\//.test(message), `names nothing internal: ${message}`);
    assert.ok(tookMs >= WAIT_SECONDS * 1000 && tookMs < WAIT_SECONDS * 1000 + 3000, `failed after the ${WAIT_SECONDS} s bound: ${tookMs} ms`);

    assert.equal(await redis.exists(keys.session(TENANT, 'c')), 0, 'no session was made');
    assert.equal(await redis.exists(keys.tenantSessionReservations(TENANT)), 0, 'its place in the quota is given back');
    assert.equal(await redis.llen(bull('wait')), 0, 'its allocation was withdrawn from the queue');
    await sleep(500);
    assert.equal(await desktopOf('c'), null, 'and no worker took it afterwards');
    const log = readFileSync(`${stack.logDir}/gateway.log`, 'utf8');
    assert.ok(log.split('\n').some((line) => line.includes('no desktop could be allocated') && line.includes('"session":"c"')), 'the gateway logs why');
  });

  test('with DESKGATE_DESKTOP_WAIT_SECONDS=0 the first call fails at once when every desktop is in use', async () => {
    const gateway = await startService<string>({
      name: 'gateway-no-wait',
      entry: `${repoRoot}services/gateway/src/main.ts`,
      env: { ...process.env, REDIS_URL: stack.redisUrl, DESKGATE_PORT: '0', DESKGATE_DESKTOP_WAIT_SECONDS: '0' },
      logFile: `${stack.logDir}/gateway-no-wait.log`,
      readyWhen: (record) => (record.msg === 'gateway listening' ? (record.url as string) : undefined),
    });
    try {
      const client = await connect('2026-07-28', `${gateway.ready}/d`, stack.apiKey);
      const started = Date.now();
      const result = await start(client);
      const tookMs = Date.now() - started;
      await client.close();
      assert.equal(errorKind(result), 'desktop_unavailable', textOf(result));
      assert.match(textOf(result), /^All 2 desktops are in use, so session "d" could not start\. Nothing was done; retry in ~\d+ s/);
      assert.ok(retryHintOf(result) >= 1000);
      assert.ok(tookMs < 1000, `at once: ${tookMs} ms`);
      assert.equal(await redis.llen(bull('wait')), 0, 'nothing was queued');
    } finally {
      await gateway.service.stop();
    }
  });

  test('idle reaping follows activity: sessions screenshotted, or with a call running past the idle time, keep their desktops; an idle one is reaped', async (t) => {
    const [a2, b] = [clients.get('a2')!, clients.get('b')!];
    const a2Desktop = await desktopOf('a2');
    const bDesktop = await desktopOf('b');
    assert.ok(a2Desktop && bDesktop);
    // a2: screenshots every 2 s (read-only calls); b: one wait longer than the idle timeout, then nothing.
    const screenshots = keepBusy(a2, 2000);
    const longCall = b.call('wait', { duration: IDLE_SECONDS + 4 });
    ok(await longCall);
    assert.equal(await desktopOf('b'), bDesktop, 'b kept its desktop through a call longer than the idle timeout');

    // From now on b is idle: it is reaped within the idle time and a reaper round.
    const idleSince = Date.now();
    await waitFor(async () => (await redis.exists(keys.session(TENANT, 'b'))) === 0, 'the idle session to be reaped', (IDLE_SECONDS + 6) * 1000);
    const reapedAfter = Date.now() - idleSince;
    t.diagnostic(`the idle session was reaped ${reapedAfter} ms after its last call`);
    assert.ok(reapedAfter >= IDLE_SECONDS * 1000 - 500, `reaped after ${reapedAfter} ms idle, not before the idle time`);
    await waitFor(async () => (await redis.exists(keys.desktopAlive(bDesktop))) === 0, 'its desktop to be gone');
    await screenshots.stop();
    assert.ok(screenshots.results.length >= 10, `a2 was screenshotted throughout (${screenshots.results.length} calls)`);
    assert.equal(await desktopOf('a2'), a2Desktop, 'the session being screenshotted kept its desktop');

    const log = readFileSync(`${stack.logDir}/worker.log`, 'utf8').split('\n');
    const reaped = log.filter((line) => line.includes('releasing idle session'));
    assert.ok(reaped.some((line) => line.includes('"session":"b"')), 'b was released as idle');
    assert.ok(!reaped.some((line) => line.includes('"session":"a2"')), 'a2 never was');

    // The reaped session's next call gets a fresh desktop.
    ok(await start(b));
    const fresh = await desktopOf('b');
    assert.ok(fresh && fresh !== bDesktop, 'a new desktop for b');
  });
});
