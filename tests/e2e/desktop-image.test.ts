/**
 * The desktop image (images/linux-desktop) keeps its side of the container contract
 * (docs/containers.md): run exactly as the worker runs it — read-only root, every capability
 * dropped, no-new-privileges, no network, uid 1000, the run folder bind-mounted — it writes
 * ready.json with the screen's facts, serves both helpers on their sockets, turns healthy, can
 * start Chromium, writes `failed` and stops when openbox dies, and stops at once on SIGTERM.
 * Everything asserted is observable from outside (files, `docker exec`, `docker inspect`).
 *
 * Needs a Docker engine and the image: scripts/install.sh makes both (scripts/images.sh
 * rebuilds the image by hand). Every container started here is removed in `after`.
 */
import { execFile } from 'node:child_process';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';

const IMAGE = process.env.DESKGATE_DESKTOP_IMAGE ?? 'deskgate/linux-desktop:dev';
const READY_WITHIN_MS = 20_000;
const execFileAsync = promisify(execFile);

const started: { id: string; dir: string }[] = [];

async function docker(...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('docker', args, { maxBuffer: 16 << 20 });
  return stdout;
}

/** `docker exec` that resolves with the exit code and output instead of throwing. */
async function dockerExec(id: string, ...command: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await execFileAsync('docker', ['exec', id, ...command], { maxBuffer: 16 << 20 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

interface Desktop {
  id: string;
  dir: string;
  ready: { display: string; width: number; height: number; monitors: number; pids: { xvfb: number; wm: number; panel: number } };
  readyMs: number;
}

/** Runs the image the way docs/containers.md says the worker does; resolves on ready.json. */
async function startDesktop(monitors: number): Promise<Desktop> {
  // The run folder: the worker's, one per container, owned by the desktop user, private.
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-desktop-image-'));
  chownSync(dir, 1000, 1000);
  chmodSync(dir, 0o700);
  const t0 = Date.now();
  // prettier-ignore
  const id = (await docker(
    'run', '-d', '--init', '--user', '1000:1000', '--read-only',
    '--tmpfs', '/tmp:mode=1777', '--tmpfs', '/home/desktop:uid=1000,gid=1000,mode=0700',
    '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--network', 'none',
    '--memory', '1g', '--pids-limit', '512', '--label', 'deskgate.role=desktop-image-test',
    '-v', `${dir}:/run/deskgate`,
    '-e', 'DESKGATE_SCREEN=1280x800', '-e', `DESKGATE_MONITORS=${monitors}`, '-e', 'DESKGATE_PANEL=1',
    IMAGE,
  )).trim();
  started.push({ id, dir });
  const readyPath = join(dir, 'ready.json');
  await until(
    'ready.json',
    () => {
      if (existsSync(join(dir, 'failed'))) throw new Error(`the desktop failed to start: ${readFileSync(join(dir, 'failed'), 'utf8').trim()}`);
      return existsSync(readyPath);
    },
    READY_WITHIN_MS,
  ).catch(async (error: Error) => {
    const logs = await execFileAsync('docker', ['logs', '--tail', '30', id]).then(({ stdout, stderr }) => stdout + stderr, () => '');
    throw new Error(`${error.message}\n--- docker logs ---\n${logs}`);
  });
  const readyMs = Date.now() - t0;
  return { id, dir, ready: JSON.parse(readFileSync(readyPath, 'utf8')) as Desktop['ready'], readyMs };
}

/** One connection, one request, one reply (the framing of each helper). */
function exchange(path: string, request: Buffer, complete: (received: Buffer) => unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(path);
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete reply on ${path} within 5 s (got ${received.length} bytes)`));
    }, 5000);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const reply = complete(received);
      if (reply !== undefined) {
        clearTimeout(timer);
        socket.end();
        resolve(reply);
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Capture: 4-byte LE length + JSON; reply: LE header length, JSON header, LE payload length, payload. */
function capturePing(path: string): Promise<unknown> {
  const body = Buffer.from(JSON.stringify({ id: 1, op: 'ping' }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length);
  return exchange(path, Buffer.concat([length, body]), (got) => {
    if (got.length < 4) return undefined;
    const headerLength = got.readUInt32LE(0);
    if (got.length < 4 + headerLength + 4) return undefined;
    const payloadLength = got.readUInt32LE(4 + headerLength);
    if (got.length < 4 + headerLength + 4 + payloadLength) return undefined;
    return JSON.parse(got.subarray(4, 4 + headerLength).toString('utf8'));
  });
}

/** Input: one JSON line, answered by one JSON line. */
function inputCheck(path: string): Promise<unknown> {
  return exchange(path, Buffer.from(`${JSON.stringify({ id: 1, op: 'check' })}\n`), (got) => {
    const newline = got.indexOf(0x0a);
    return newline < 0 ? undefined : JSON.parse(got.subarray(0, newline).toString('utf8'));
  });
}

const status = (id: string, field: string) => docker('inspect', '-f', `{{${field}}}`, id).then((out) => out.trim());

let one: Desktop;
let two: Desktop;

before(async () => {
  await docker('image', 'inspect', IMAGE).catch(() => {
    throw new Error(`no ${IMAGE} in the Docker engine: run scripts/images.sh (or scripts/install.sh)`);
  });
  [one, two] = await Promise.all([startDesktop(1), startDesktop(2)]);
});

after(async () => {
  await Promise.all(started.map(({ id }) => execFileAsync('docker', ['rm', '-f', id]).catch(() => undefined)));
  for (const { dir } of started) rmSync(dir, { recursive: true, force: true });
});

test('ready.json: the display, the whole screen, one monitor, the pids', (t) => {
  t.diagnostic(`docker run -d → ready.json: ${one.readyMs} ms (two monitors: ${two.readyMs} ms)`);
  const { ready } = one;
  assert.equal(ready.display, ':0');
  assert.equal(ready.width, 1280);
  assert.equal(ready.height, 800);
  assert.equal(ready.monitors, 1);
  for (const name of ['xvfb', 'wm', 'panel'] as const) assert.ok(Number.isInteger(ready.pids[name]) && ready.pids[name] > 1, `pid of ${name}: ${ready.pids[name]}`);
  // The cookie is the desktop user's, private.
  const cookie = statSync(join(one.dir, 'xauthority'));
  assert.equal(cookie.uid, 1000);
  assert.equal(cookie.mode & 0o077, 0, 'xauthority readable by others');
});

test('hardened: no capabilities, no new privileges, uid 1000, read-only root, only loopback', async () => {
  const { out: proc } = await dockerExec(one.id, 'grep', '-E', '^(CapEff|NoNewPrivs):', '/proc/1/status', '/proc/self/status');
  for (const file of ['/proc/1/status', '/proc/self/status']) {
    assert.match(proc, new RegExp(`${file}:CapEff:\\s+0000000000000000`), proc);
    assert.match(proc, new RegExp(`${file}:NoNewPrivs:\\s+1`), proc);
  }
  assert.equal((await dockerExec(one.id, 'id', '-u')).out.trim(), '1000');
  // The session's own processes too (Xvfb, openbox, the helpers), not just exec'd ones.
  const owners = (await dockerExec(one.id, 'ps', '-eo', 'uid=')).out.split('\n').map((s) => s.trim()).filter(Boolean);
  assert.deepEqual([...new Set(owners)], ['1000']);
  const write = await dockerExec(one.id, 'touch', '/probe');
  assert.notEqual(write.code, 0);
  assert.match(write.out, /Read-only file system/);
  const { out: netdev } = await dockerExec(one.id, 'cat', '/proc/net/dev');
  const interfaces = netdev.split('\n').slice(2).map((line) => line.split(':')[0]!.trim()).filter(Boolean);
  assert.deepEqual(interfaces, ['lo']);
});

test('the health check turns healthy', async () => {
  await until('healthy', async () => (await status(one.id, '.State.Health.Status')) === 'healthy', 20_000);
});

test('both helpers answer on their sockets', async () => {
  const capture = (await capturePing(join(one.dir, 'capture.sock'))) as { id?: number; ok?: boolean };
  assert.equal(capture.id, 1, JSON.stringify(capture));
  const input = (await inputCheck(join(one.dir, 'input.sock'))) as { id?: number; ok?: boolean };
  assert.equal(input.ok, true, JSON.stringify(input));
  // One connection at a time, and the next is taken when the last one closed.
  assert.equal(((await capturePing(join(one.dir, 'capture.sock'))) as { id?: number }).id, 1);
  assert.equal(((await inputCheck(join(one.dir, 'input.sock'))) as { ok?: boolean }).ok, true);
});

test('Chromium starts as the desktop user (as desktop/share/applications/chromium.desktop runs it)', async () => {
  const exec = readFileSync(new URL('../../desktop/share/applications/chromium.desktop', import.meta.url), 'utf8').match(/^Exec=(.*)$/m)![1]!;
  const argv = exec.split(' ').filter((arg) => !arg.startsWith('%'));
  await docker('exec', '-d', one.id, ...argv, 'about:blank');
  await until(
    'a Chromium window',
    async () => {
      const { out } = await dockerExec(one.id, 'sh', '-c', 'for w in $(xprop -root _NET_CLIENT_LIST | grep -o "0x[0-9a-f]*"); do xprop -id $w WM_CLASS; done');
      return /"Chromium"/.test(out);
    },
    30_000,
  );
  assert.equal(await status(one.id, '.State.Running'), 'true');
});

test('two monitors: a screen twice as wide, split into two RandR monitors', async () => {
  assert.equal(two.ready.width, 2560);
  assert.equal(two.ready.height, 800);
  assert.equal(two.ready.monitors, 2);
  const { out } = await dockerExec(two.id, 'xrandr', '--listmonitors');
  assert.match(out, /^Monitors: 2$/m, out);
  assert.match(out, /\*DG-1 1280\/\d+x800\/\d+\+0\+0/, out);
  assert.match(out, /DG-2 1280\/\d+x800\/\d+\+1280\+0/, out);
});

test('openbox killed: `failed` says so and the container stops non-zero', async () => {
  await dockerExec(two.id, 'pkill', '-x', 'openbox');
  await until('the container to stop', async () => (await status(two.id, '.State.Running')) === 'false', 5000);
  assert.equal(await status(two.id, '.State.ExitCode'), '1');
  assert.match(readFileSync(join(two.dir, 'failed'), 'utf8'), /openbox stopped/);
});

test('SIGTERM (docker stop): exits 0 within a second', async (t) => {
  const t0 = Date.now();
  await docker('stop', '-t', '10', one.id);
  const ms = Date.now() - t0;
  t.diagnostic(`docker stop: ${ms} ms`);
  assert.equal(await status(one.id, '.State.ExitCode'), '0');
  assert.ok(ms < 1500, `docker stop took ${ms} ms`);
  assert.ok(!existsSync(join(one.dir, 'failed')), 'a clean stop writes no `failed`');
});
