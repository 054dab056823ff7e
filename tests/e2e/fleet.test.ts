/**
 * A fleet: two gateways and two workers as real processes on one Redis, a probe app on the
 * desktops. Sessions churn across it without leaking; a session carries on when the gateway
 * that served it is killed; a gateway frozen past the lock lease has its stale actions refused
 * by epoch; a worker drained under load finishes its calls, takes nothing new and exits within
 * its bound (docs/architecture.md, "Drain and failover").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { CAPACITY_KEY, keys } from '@deskgate/dispatch';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import type { ServiceProcess } from '../../scripts/lib/service-process.ts';
import { desktopOf } from '../support/desktops.ts';
import { connect, errorKind, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { Probe } from '../support/probe.ts';

const TENANT = 'fleet';
const LEASE_MS = 1000;
const DRAIN_SECONDS = 6;
/** A worker's teardown after its drain (TEARDOWN_BOUND_MS in services/worker/src/main.ts). */
const WORKER_TEARDOWN_SECONDS = 5;
const MAX_DESKTOPS = 5;
/**
 * Sessions churned: 100 in the suite; DESKGATE_FLEET_SESSIONS=1000 for the full run.
 * Every session starts a real desktop (~1 s of CPU): on a 2-core host the fleet churns
 * ~1.9 sessions/s, so 1,000 take ~9 minutes, too long for every run of the suite.
 */
const CHURN_SESSIONS = Number(process.env.DESKGATE_FLEET_SESSIONS ?? 100);
const CHURN_PARALLEL = 8;

let stack: Stack;
let redis: Redis;
const closers: (() => unknown)[] = [];

const ok = (result: ToolResult) => assert.ok(!result.isError, textOf(result));
const kind = (result: ToolResult, expected: string) => assert.equal(errorKind(result), expected, textOf(result));
const settle = <T>(promise: Promise<T>) => promise.then((value) => ({ value, at: Date.now() }));
const baseOf = (mcpUrl: string) => mcpUrl.replace(/\/mcp$/, '');
/** Ends a session (as an operator: whoever holds its lock), so the next test has the room. */
async function endSession(session: string): Promise<void> {
  const response = await fetch(`${baseOf(stack.mcpUrls.at(-1)!)}/v1/sessions/${session}`, { method: 'DELETE', headers: { authorization: `Bearer ${stack.operatorKey}` } });
  assert.equal(response.status, 200, await response.text());
}

async function client(mcpUrl: string, session: string, controller?: string): Promise<McpConnection> {
  const connection = await connect('2026-07-28', `${mcpUrl}/${session}`, stack.apiKey, controller ? { 'Deskgate-Controller': controller } : {});
  closers.push(() => connection.close().catch(() => undefined));
  return connection;
}

async function startProbe(session: string): Promise<Probe> {
  const probe = await Probe.start(await desktopOf(redis, TENANT, session), { geometry: '400x300+100+100' });
  closers.push(() => probe.stop());
  return probe;
}

const centre = (rect: { x: number; y: number; width: number; height: number }): [number, number] => [Math.round(rect.x + rect.width / 2), Math.round(rect.y + rect.height / 2)];

/** The worker's id, from its log (every line carries it). */
function workerIdOf(worker: ServiceProcess): string {
  for (const line of readFileSync(worker.logFile, 'utf8').split('\n')) {
    const match = /"worker":"([^"]+)"/.exec(line);
    if (match) return match[1]!;
  }
  throw new Error(`no worker id in ${worker.logFile}`);
}

interface Proc {
  pid: number;
  ppid: number;
  user: string;
  comm: string;
}

function processes(): Proc[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,ppid=,user:48=,stat=,comm='])
    .toString()
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, , , stat]) => !stat!.startsWith('Z'))
    .map(([pid, ppid, user, , comm]) => ({ pid: Number(pid), ppid: Number(ppid), user: user!, comm: comm! }));
}

function descendants(rows: Proc[], roots: number[]): Proc[] {
  const found = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) if (found.has(row.ppid) && !found.has(row.pid)) (found.add(row.pid), (grew = true));
  }
  return rows.filter((row) => found.has(row.pid) && !roots.includes(row.pid));
}

/** What the live workers run: their Xvfbs, and every process of a desktop user under them. */
function desktopsRunning() {
  const rows = processes();
  const live = stack.workers.filter((worker) => worker.process.exitCode === null && worker.process.signalCode === null).map((worker) => worker.process.pid!);
  const under = descendants(rows, live);
  return { xvfb: under.filter((row) => row.comm === 'Xvfb').length, users: new Set(under.filter((row) => row.user.startsWith('deskgate-desktop')).map((row) => row.user)).size };
}

/** Processes of desktop users that no running worker owns (orphans), not counting those seen before the test. */
function strayDesktopProcesses(seenBefore: Set<number>): Proc[] {
  const rows = processes();
  const workers = rows.filter((row) => row.comm === 'node' || row.comm === 'MainThread').map((row) => row.pid);
  const owned = new Set(descendants(rows, workers).map((row) => row.pid));
  return rows.filter((row) => row.user.startsWith('deskgate-desktop') && !owned.has(row.pid) && !seenBefore.has(row.pid));
}

/** Desktop, session and lock keys: what must return to where it started. */
async function stateKeys(): Promise<string[]> {
  const found = new Set<string>();
  for (const pattern of ['deskgate:desktop:*', 'deskgate:session:*', `deskgate:tenant:${TENANT}:*`]) {
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) found.add(key);
    } while (cursor !== '0');
  }
  return [...found].sort();
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

before(async () => {
  stack = await startStack({
    gateways: 2,
    workers: 2,
    tenant: TENANT,
    logDir: mkdtempSync(join(tmpdir(), 'deskgate-fleet-')),
    env: {
      REDIS_URL: '',
      DESKGATE_PORT: '0',
      DESKGATE_LOCK_LEASE_MS: String(LEASE_MS),
      DESKGATE_MAX_DESKTOPS: String(MAX_DESKTOPS),
      DESKGATE_WARM_DESKTOPS: '1',
      DESKGATE_DRAIN_SECONDS: String(DRAIN_SECONDS),
      DESKGATE_TENANT_MAX_SESSIONS: '100',
      DESKGATE_TENANT_CALLS_PER_SECOND: '0',
      DESKGATE_DESKTOP_WAIT_SECONDS: '30',
      // Apps granted on start: a session's first call can be a screenshot.
      DESKGATE_POLICY_PROFILE: 'sandbox',
    },
  });
  redis = new Redis(stack.redisUrl);
});

after(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  redis?.disconnect();
  await stack?.stop();
});

test(`${CHURN_SESSIONS} sessions opened and closed across the fleet leak no desktop, process or Redis key`, async (t) => {
  await waitFor(() => desktopsRunning().xvfb === 2, 'both workers’ warm spares');
  const keysBefore = await stateKeys();
  const seenBefore = new Set(processes().map((row) => row.pid));
  const perWorker = new Map<string, number>();
  const started = performance.now();
  let next = 0;
  const failures: string[] = [];
  const base = stack.mcpUrls.map(baseOf);
  const one = async (i: number) => {
    const session = `churn-${i}`;
    const gateway = i % stack.mcpUrls.length;
    const connection = await connect('2026-07-28', `${stack.mcpUrls[gateway]}/${session}`, stack.apiKey);
    try {
      const first = await connection.call('screenshot');
      if (first.isError) failures.push(`${session}: ${textOf(first)}`);
      else {
        const workerId = (await redis.hget(keys.desktop((await redis.hget(keys.session(TENANT, session), 'desktopId'))!), 'workerId'))!;
        perWorker.set(workerId, (perWorker.get(workerId) ?? 0) + 1);
      }
    } finally {
      await connection.close().catch(() => undefined);
    }
    // Ended through the other gateway: any gateway serves any session.
    const ended = await fetch(`${base[(gateway + 1) % base.length]}/v1/sessions/${session}`, { method: 'DELETE', headers: { authorization: `Bearer ${stack.apiKey}` } });
    if (ended.status !== 200) failures.push(`${session}: DELETE answered ${ended.status} ${await ended.text()}`);
  };
  await Promise.all(
    Array.from({ length: CHURN_PARALLEL }, async () => {
      while (next < CHURN_SESSIONS) await one(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  t.diagnostic(`${CHURN_SESSIONS} sessions in ${seconds.toFixed(1)} s (${(CHURN_SESSIONS / seconds).toFixed(1)}/s, ${CHURN_PARALLEL} at a time); per worker: ${JSON.stringify(Object.fromEntries(perWorker))}`);
  if (failures.length > 0) t.diagnostic(`calls that failed: ${failures.join(' / ')}`);

  // Releases finish asynchronously: everything returns to the spares within a few seconds.
  await waitFor(async () => JSON.stringify(await stateKeys()) === JSON.stringify(keysBefore), 'the desktop, session and lock keys to return to the starting set').catch(async (error) => {
    assert.deepEqual(await stateKeys(), keysBefore, String(error));
  });
  await waitFor(() => desktopsRunning().xvfb === 2, 'only the warm spares’ X servers').catch(() => assert.equal(desktopsRunning().xvfb, 2, 'X servers beyond the two warm spares'));
  const running = desktopsRunning();
  assert.equal(running.users, 2, 'only the two spares’ desktop users run processes');
  assert.deepEqual(strayDesktopProcesses(seenBefore), [], 'no process of a desktop user outlives its desktop');
  const audit = (await redis.keys(`deskgate:audit:${TENANT}:churn-*`)).length;
  t.diagnostic(`kept by design: ${audit} audit streams (DESKGATE_AUDIT_TTL_SECONDS)`);
  // Checked last, so a failed call never hides a leak.
  assert.deepEqual(failures, [], 'every session’s first call and DELETE succeeded');
  assert.equal(perWorker.size, 2, 'both workers served sessions');
});

test('a gateway killed with SIGKILL: the same session carries on through the other gateway, on the same desktop', async () => {
  const [first, second] = stack.mcpUrls;
  const viaFirst = await client(first!, 'survivor');
  ok(await viaFirst.call('request_access', { apps: ['DeskgateProbe'], reason: 'fleet test' }));
  const probe = await startProbe('survivor');
  ok(await viaFirst.call('screenshot'));
  const before = await desktopOf(redis, TENANT, 'survivor');

  const killed = stack.gateways[0]!;
  process.kill(-killed.process.pid!, 'SIGKILL');
  await killed.exited;

  const viaSecond = await client(second!, 'survivor');
  ok(await viaSecond.call('screenshot'));
  const skip = probe.events().length;
  ok(await viaSecond.call('left_click', { coordinate: centre(probe.ready.button) }));
  await probe.waitFor((event) => event.type === 'press', 3000, skip);
  assert.equal((await desktopOf(redis, TENANT, 'survivor')).id, before.id, 'the same desktop');
  // A replacement, for the tests that follow.
  await stack.startGateway();
  await endSession('survivor');
});

test('a gateway frozen (SIGSTOP) past the lock lease: after SIGCONT its stale actions are refused by epoch and never reach the app', async (t) => {
  const frozen = stack.gateways[1]!;
  const frozenUrl = stack.mcpUrls[1]!;
  const otherUrl = stack.mcpUrls[2]!;
  const x = await client(frozenUrl, 'frozen', 'x');
  const xLate = await client(frozenUrl, 'frozen', 'x');
  const y = await client(otherUrl, 'frozen', 'y');
  ok(await x.call('request_access', { apps: ['DeskgateProbe'], reason: 'fleet test' }));
  const probe = await startProbe('frozen');
  ok(await x.call('screenshot'));
  const target = centre(probe.ready.button);
  const desktop = await desktopOf(redis, TENANT, 'frozen');
  const epochBefore = Number(await redis.get(keys.desktopEpoch(desktop.id)));
  const skip = probe.events().length;

  // x: a wait running, and a click queued behind it under x's epoch; then its gateway freezes.
  const waiting = settle(x.call('wait', { duration: 3 }));
  await sleep(200);
  const queuedClick = settle(x.call('left_click', { coordinate: target }));
  await sleep(300);
  assert.equal(await redis.llen(keys.desktopActions(desktop.id)), 1, 'x’s click is queued behind its wait');
  process.kill(frozen.process.pid!, 'SIGSTOP');
  const stoppedAt = Date.now();
  try {
    // x's lease lapses (its gateway no longer renews it): y takes the desktop, under a new epoch.
    let yShot: Promise<ToolResult> | undefined;
    while (Date.now() - stoppedAt < 1700) {
      const pending = y.call('screenshot');
      const early = await Promise.race([pending, sleep(150).then(() => undefined)]);
      // Not answered at once: queued behind x's wait if the lock is y's now — or only slow (a
      // loaded machine), and then its answer is the refusal.
      if (early === undefined && (await redis.get(keys.desktopLock(desktop.id)))?.endsWith('/y')) {
        yShot = pending;
        break;
      }
      kind(early ?? (await pending), 'lock_held');
      await sleep(50);
    }
    assert.ok(yShot, 'y took the desktop once x’s lease lapsed');
    const lock = await redis.get(keys.desktopLock(desktop.id));
    assert.match(lock ?? '', /\|/, 'the lock is held');
    assert.ok(Number(lock!.split('|')[0]) > epochBefore, `a new epoch was taken while x's gateway was frozen: ${lock}`);
    // A request sent to the frozen gateway: it reads it only once it runs again.
    const lateClick = settle(xLate.call('left_click', { coordinate: target }));
    // y keeps acting, so it holds the lock when x's gateway wakes.
    const yWaiting = settle(y.call('wait', { duration: 2 }));
    await sleep(Math.max(0, 1800 - (Date.now() - stoppedAt)));
    process.kill(frozen.process.pid!, 'SIGCONT');
    t.diagnostic(`x's gateway was frozen for ${Date.now() - stoppedAt} ms (lease ${LEASE_MS} ms)`);

    const late = (await lateClick).value;
    kind(late, 'lock_held');
    const stale = (await queuedClick).value;
    kind(stale, 'stale_epoch');
    ok((await waiting).value);
    ok(await yShot);
    ok((await yWaiting).value);
    await sleep(500);
    assert.deepEqual(
      probe.since(skip).filter((event) => event.type === 'press' || event.type === 'button'),
      [],
      'nothing of x’s clicks reached the probe',
    );
    await endSession('frozen');
  } finally {
    try {
      process.kill(frozen.process.pid!, 'SIGCONT');
    } catch {
      // gone
    }
  }
});

test('a worker drained (SIGTERM) under load: calls in flight complete, nothing new lands there, its sessions move on, it exits within its bound', async (t) => {
  const urls = stack.mcpUrls.slice(1);
  const names = ['d1', 'd2', 'd3', 'd4'];
  const clients = new Map<string, McpConnection>();
  for (const [i, name] of names.entries()) {
    const connection = await client(urls[i % urls.length]!, name);
    clients.set(name, connection);
    ok(await connection.call('screenshot'));
  }
  const workerOf = async (name: string) => (await desktopOf(redis, TENANT, name)).workerId;
  const placed = new Map<string, string>();
  for (const name of names) placed.set(name, await workerOf(name));
  // Drain the worker with the most of these sessions.
  const drained = stack.workers.find((worker) => worker.process.exitCode === null && [...placed.values()].filter((id) => id === workerIdOf(worker)).length >= 2);
  assert.ok(drained, `a worker holds two of the sessions: ${JSON.stringify(Object.fromEntries(placed))}`);
  const drainedId = workerIdOf(drained);
  const onDrained = names.filter((name) => placed.get(name) === drainedId);
  const elsewhere = names.filter((name) => placed.get(name) !== drainedId);
  const [busy, idle] = onDrained as [string, string];
  const desktopsBefore = new Set((await redis.keys('deskgate:desktop:*')).filter((key) => /^deskgate:desktop:[^:]+$/.test(key)));

  // Load: a 3 s wait in flight on the drained worker; screenshots back to back on the others.
  const inFlight = settle(clients.get(busy)!.call('wait', { duration: 3 }));
  let loading = true;
  const load = Promise.all(
    elsewhere.map(async (name) => {
      let calls = 0;
      while (loading) (ok(await clients.get(name)!.call('screenshot')), calls++);
      return calls;
    }),
  );
  await sleep(500);
  const signalled = Date.now();
  process.kill(drained.process.pid!, 'SIGTERM');

  // Its room is withdrawn at once.
  await waitFor(async () => (await redis.hexists(CAPACITY_KEY, drainedId)) === 0, 'the drained worker’s capacity to be withdrawn', 1000);
  // Watch the desktop registry for anything new on the drained worker while it drains.
  const landed: string[] = [];
  let watching = true;
  const watch = (async () => {
    while (watching) {
      for (const key of await redis.keys('deskgate:desktop:*')) {
        if (!/^deskgate:desktop:[^:]+$/.test(key) || desktopsBefore.has(key)) continue;
        if ((await redis.hget(key, 'workerId')) === drainedId) landed.push(key);
      }
      await sleep(50);
    }
  })();

  // A new session during the drain goes to the other worker.
  const newcomer = await client(urls[0]!, 'd-new');
  ok(await newcomer.call('screenshot'));
  assert.notEqual(await workerOf('d-new'), drainedId, 'a session started during the drain is not placed on the draining worker');
  // An idle session of the drained worker: a clear error now, a fresh desktop on the other worker next.
  const told = await clients.get(idle)!.call('screenshot');
  kind(told, 'worker_lost');
  assert.match(textOf(told), /shutting down|gone/);
  ok(await clients.get(idle)!.call('screenshot'));
  assert.notEqual(await workerOf(idle), drainedId, 'it moved to the other worker');

  // The call in flight completes.
  const finished = await inFlight;
  ok(finished.value);
  t.diagnostic(`the wait in flight completed ${finished.at - signalled} ms after SIGTERM`);

  // Its bound: the drain, then at most the teardown's (services/worker/src/main.ts).
  const boundMs = (DRAIN_SECONDS + WORKER_TEARDOWN_SECONDS) * 1000;
  const code = await Promise.race([drained.exited, sleep(boundMs + 3000).then(() => 'still running')]);
  const exitMs = Date.now() - signalled;
  t.diagnostic(`the drained worker exited ${exitMs} ms after SIGTERM (code ${code}); bound ${boundMs / 1000} s`);
  assert.equal(code, 0);
  assert.ok(exitMs < boundMs, `exited within its bound: ${exitMs} ms`);
  watching = false;
  await watch;
  loading = false;
  const calls = await load;
  t.diagnostic(`screenshots on the other worker during the drain: ${calls.join(', ')}`);
  assert.deepEqual(landed, [], 'no desktop was started on the draining worker');

  // The busy session: told once that its desktop is gone, then a fresh one elsewhere.
  const after = await clients.get(busy)!.call('screenshot');
  kind(after, 'worker_lost');
  ok(await clients.get(busy)!.call('screenshot'));
  assert.notEqual(await workerOf(busy), drainedId);
  const log = readFileSync(drained.logFile, 'utf8');
  assert.match(log, /drain: every running call finished/);
});
