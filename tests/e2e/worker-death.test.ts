/**
 * Desktops die with their worker, and at most once under a crash (issue 12, items 2 and 4):
 * two workers on one host, a probe app started on a desktop as its desktop user
 * (open_application), the first worker killed with SIGKILL while it types 20,000 characters.
 * The caller gets a clear error, the probe saw the text at most once, nothing of the dead
 * worker's desktop runs any more (by its user's uid and the display's pids) and its files are
 * gone, the other worker's desktop was never touched, and the session's next call, once a new
 * worker is up, works on a fresh desktop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { keys, readWorkerCapacities, workerQueueName } from '@deskgate/dispatch';
import { repoRoot, startStack, type Stack } from '../../scripts/lib/stack.ts';
import type { ServiceProcess } from '../../scripts/lib/service-process.ts';
import { processesOf } from '../../services/worker/src/desktops/desktop-users.ts';
import { desktopOf } from '../support/desktops.ts';
import { connect, errorKind, textOf, type McpConnection } from '../support/mcp-clients.ts';

// The longest text one call may type: the kill must land while it is being typed, however fast typing got.
const TEXT = Array.from({ length: 20_000 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz0123456789'[(i * 7) % 36]).join('');
const root = process.getuid?.() === 0;

let stack: Stack;
let redis: Redis;
let victim: McpConnection;
let bystander: McpConnection;
const eventsDir = mkdtempSync(join(tmpdir(), 'deskgate-death-'));
const eventsFile = join(eventsDir, 'events.jsonl');

interface Events {
  type: string;
  value?: string;
}
const events = (): Events[] =>
  existsSync(eventsFile)
    ? readFileSync(eventsFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Events)
    : [];

const alive = (pid: number) => {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
};
const uidOf = (user: string) => Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
const gidOf = (user: string) => Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());

/** The desktop's record, with the pids of its display and its user's uid. */
async function facts(session: string) {
  const desktop = await desktopOf(redis, stack.tenant, session);
  const record = await redis.hgetall(keys.desktop(desktop.id));
  const pids = ['xvfbPid', 'wmPid', 'panelPid', 'capturePid', 'inputPid'].map((field) => Number(record[field])).filter((pid) => pid > 0);
  return { ...desktop, pids, user: record.desktopUser!, uid: uidOf(record.desktopUser!), gid: gidOf(record.desktopUser!), root: dirname(record.xauthority!) };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

before(async () => {
  chmodSync(eventsDir, 0o777);
  writeFileSync(eventsFile, '', { mode: 0o666 });
  chmodSync(eventsFile, 0o666);
  // The app runs as a desktop user: a copy beside the events file, since the checkout may sit
  // in a folder only root can enter (a mktemp -d one).
  const probeApp = join(eventsDir, 'probe_app.py');
  copyFileSync(`${repoRoot}tests/probe/probe_app.py`, probeApp);
  chmodSync(probeApp, 0o644);
  const probe = ['/usr/bin/python3', probeApp, '--events', eventsFile, '--geometry', '800x600+100+80', '--class', 'DeskgateProbe', '--steady-caret'];
  stack = await startStack({
    env: {
      REDIS_URL: '',
      DESKGATE_PORT: '0',
      // One desktop per worker, no spares: the second session lands on the second worker.
      DESKGATE_MAX_DESKTOPS: '1',
      DESKGATE_WARM_DESKTOPS: '0',
      DESKGATE_LAUNCH_EXTRA: JSON.stringify({ DeskgateProbe: probe }),
    },
    logDir: mkdtempSync(join(tmpdir(), 'deskgate-death-logs-')),
  });
  redis = new Redis(stack.redisUrl);
  victim = await connect('2026-07-28', `${stack.mcpUrl}/victim`, stack.apiKey);
  bystander = await connect('2026-07-28', `${stack.mcpUrl}/bystander`, stack.apiKey);
});
after(async () => {
  await victim?.close();
  await bystander?.close();
  redis?.disconnect();
  await stack?.stop();
  // World-writable for the desktop user's probe: not left behind in /tmp.
  rmSync(eventsDir, { recursive: true, force: true });
});

const ok = (result: Awaited<ReturnType<McpConnection['call']>>, what: string) => assert.ok(!result.isError, `${what}: ${textOf(result)}`);

test('a worker killed mid-type: a clear error, the text at most once, nothing of its desktop left, the other worker untouched, a fresh desktop next', { skip: !root && 'needs root (desktop users)' }, async () => {
  ok(await victim.call('request_access', { apps: ['DeskgateProbe'], reason: 'test' }), 'request_access');
  ok(await victim.call('open_application', { app: 'DeskgateProbe' }), 'open_application');
  const ready = await (async () => {
    await until('the probe to be ready', () => events().some((event) => event.type === 'ready'), 15_000);
    return events().find((event) => event.type === 'ready') as unknown as { text: { x: number; y: number; width: number; height: number } };
  })();
  ok(await victim.call('screenshot'), 'screenshot');
  const dead = await facts('victim');
  const app = processesOf(dead.uid).pids.filter((pid) => !dead.pids.includes(pid));
  assert.ok(app.length > 0, 'the probe runs as the desktop user');
  ok(await victim.call('left_click', { coordinate: [ready.text.x + ready.text.width / 2, ready.text.y + ready.text.height / 2] }), 'focus the text box');

  // The second worker, and a session on it (the first worker has no room left).
  const second: ServiceProcess = await stack.startWorker();
  ok(await bystander.call('request_access', { apps: ['DeskgateProbe'], reason: 'test' }), 'bystander request_access');
  ok(await bystander.call('screenshot'), 'bystander screenshot');
  const other = await facts('bystander');
  assert.notEqual(other.workerId, dead.workerId, 'the bystander is on the other worker');
  assert.notEqual(other.uid, dead.uid, 'one desktop user per desktop');

  const typed = () => events().filter((event) => event.type === 'text').map((event) => event.value ?? '');
  const started = Date.now();
  const typing = victim.call('type', { text: TEXT });
  await until('the probe to receive some of the text', () => events().some((event) => event.type === 'text' && (event.value?.length ?? 0) >= 20), 20_000);
  // Every process of the desktop's user as the worker dies (the slot may be another desktop's soon after the sweep).
  const ofTheDeadDesktop = processesOf(dead.uid).pids;
  // Its X socket, by inode: once removed, the display number is free for another Xvfb.
  const deadSocket = `/tmp/.X11-unix/X${dead.display.slice(1)}`;
  const deadSocketInode = statSync(deadSocket).ino;
  process.kill(stack.worker.process.pid!, 'SIGKILL');

  const answer = await typing;
  const elapsed = Date.now() - started;
  assert.equal(errorKind(answer), 'worker_lost', textOf(answer));
  assert.match(textOf(answer), /not retried/);
  assert.ok(elapsed < 12_000, `the error came after ${elapsed} ms`);

  // At most once: every state of the text box is a prefix of the text, never more.
  const seen = typed();
  assert.ok(seen.length > 0);
  for (const value of seen) assert.ok(TEXT.startsWith(value.replace(/\n$/, '')), `the text box held ${value.length} characters that are not a prefix of the text`);
  const longest = Math.max(...seen.map((value) => value.length));
  assert.ok(longest < TEXT.length, `the worker died mid-type (${longest} of ${TEXT.length} typed)`);

  // Nothing of the dead worker's desktop is left: pdeathsig kills the display and the app at
  // once, its watchdog sweeps the user and removes the files. The sweep is a node process the
  // watchdog starts (with tsx), which a loaded machine — CI builds images beside this — can take
  // several seconds to start: the bound is on "never left", not on speed. Once swept, the slot's
  // user is free for another desktop (another test file's, beside this one): only the processes
  // the dead desktop ran are looked for.
  await until('the dead desktop to be gone', () => !dead.pids.some(alive) && !app.some(alive) && !ofTheDeadDesktop.some(alive), 15_000);
  const socketGone = () => {
    try {
      return statSync(deadSocket).ino !== deadSocketInode; // another desktop's, made since
    } catch {
      return true;
    }
  };
  await until("the dead desktop's files to be removed", () => !existsSync(dead.root) && socketGone(), 5000);

  // The other worker's desktop was never touched.
  const still = await facts('bystander');
  assert.equal(still.id, other.id);
  assert.ok(other.pids.every(alive), "the other worker's display and helpers still run");
  ok(await bystander.call('screenshot'), 'bystander screenshot after the reaping');

  // The session's next call works on a fresh desktop, on a worker started now.
  const third = await stack.startWorker();
  // The grants survive: the fresh desktop's first answer works and says the screen was reset.
  const fresh = await victim.call('screenshot');
  ok(fresh, 'screenshot on the fresh desktop');
  assert.match(textOf(fresh), /desktop was lost \(its worker stopped\).*grants were kept/);
  const granted = await victim.call('list_granted_applications');
  ok(granted, 'list_granted_applications');
  assert.match(textOf(granted), /DeskgateProbe/i);
  assert.doesNotMatch(textOf(granted), /desktop was lost/, 'the notice is given once');
  const now = await facts('victim');
  assert.notEqual(now.id, dead.id, 'the session moved to a new desktop');
  // The probe did not come back: nothing replayed the type on the fresh desktop.
  await sleep(500);
  assert.ok(Math.max(...typed().map((value) => value.length)) === longest, 'no more text arrived after the crash');
  assert.ok(alive(second.process.pid!) && alive(third.process.pid!));
});

test("ending a session whose worker died: nothing is queued for the dead worker, and the desktop's record goes", { skip: !root && 'needs root (desktop users)' }, async () => {
  // A worker with room for the one session; then it dies.
  const doomed = await stack.startWorker();
  const orphan = await connect('2026-07-28', `${stack.mcpUrl}/orphan`, stack.apiKey);
  try {
    ok(await orphan.call('request_access', { apps: ['DeskgateProbe'], reason: 'test' }), 'request_access');
  } finally {
    await orphan.close();
  }
  const desktop = await desktopOf(redis, stack.tenant, 'orphan');
  process.kill(doomed.process.pid!, 'SIGKILL');
  // Its desktop's heartbeat lapses, and its room record grows stale (CAPACITY_FRESH_MS).
  await until('the dead worker to count as gone', async () => (await redis.exists(keys.desktopAlive(desktop.id))) === 0 && !(await readWorkerCapacities(redis)).has(desktop.workerId), 20_000);

  const ended = await fetch(`${stack.mcpUrl.replace(/\/mcp$/, '')}/v1/sessions/orphan`, { method: 'DELETE', headers: { authorization: `Bearer ${stack.apiKey}` } });
  assert.equal(ended.status, 200, await ended.clone().text());
  assert.deepEqual(await ended.json(), { ended: 'orphan' });
  // The dead consumer's own bookkeeping (meta, stalled-check) stays until a starting worker
  // sweeps it (dead-worker-queues.test.ts); no release job was queued beside it.
  const queued = (await redis.keys(`${keys.bullPrefix()}:${workerQueueName(desktop.workerId)}:*`)).filter((key) => !/:(meta|stalled-check)$/.test(key));
  assert.deepEqual(queued, [], 'no release job was queued for a worker that is gone');
  assert.equal(await redis.exists(keys.desktop(desktop.id)), 0, "the dead desktop's record was removed");
  assert.equal(await redis.exists(keys.session(stack.tenant, 'orphan')), 0, 'the session is gone');
});
