/**
 * A worker in bare-metal mode (docs/macos.md), end to end. The "console" is an Xvfb with
 * openbox that the test starts and owns, with the Linux capture helper and input runtime
 * listening on Unix sockets beside it — standing in for a Mac's console and its Swift helper,
 * which speaks the same protocols. The worker starts none of it; the official MCP client drives
 * it through the gateway. Also: a session asking for macOS when only this linux worker exists
 * gets a clear error at once, and ending a session resets the console without tearing it down.
 * Last, a second console joins as a worker that says it is a Mac (DESKGATE_PLATFORM=macos, the
 * same stand-in helpers): sessions asking for macOS go to it and only to it, and its gates use
 * the seed's macOS shortcut list.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { CAPACITY_KEY } from '@deskgate/dispatch';
import { targetImageSize } from '@deskgate/computer-use';
import { startService, type ServiceProcess } from '../../scripts/lib/service-process.ts';
import { repoRoot, startStack, type Stack } from '../../scripts/lib/stack.ts';
import { closeTo, decodeImage, hex } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { Probe } from '../support/probe.ts';

const SIZE = { width: 1280, height: 800 };
const PROBE_COLOR = '#2a9d8f';
const CAPTURE_BIN = process.env.DESKGATE_CAPTURE_BIN ?? `${repoRoot}helpers/linux-capture/target/release/deskgate-capture`;

interface Console {
  display: string;
  xvfb: ChildProcess;
  openbox: ChildProcess;
  capture: ChildProcess;
  input: ChildProcess;
  captureSocket: string;
  inputSocket: string;
}

/** Xvfb on a display it picks itself (-displayfd), openbox, and both helpers on sockets. */
async function startConsole(dir: string): Promise<Console> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${SIZE.width}x${SIZE.height}x24`, '-nolisten', 'tcp', '-noreset'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const display = await new Promise<string>((resolve, reject) => {
    let text = '';
    xvfb.stdio[3]!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code})`)));
  });
  const env = { ...process.env, DISPLAY: display };
  const openbox = spawn('openbox', ['--config-file', join(repoRoot, 'desktop/openbox/rc.xml')], { env: { ...env, XDG_CONFIG_HOME: join(repoRoot, 'desktop') }, stdio: 'ignore' });
  const captureSocket = join(dir, 'capture.sock');
  const inputSocket = join(dir, 'input.sock');
  const capture = spawn(CAPTURE_BIN, ['--display', display, '--listen', captureSocket], { env, stdio: 'ignore' });
  const input = spawn('/usr/bin/python3', ['-m', 'deskgate_runtime', '--display', display, '--listen', inputSocket], {
    env: { ...env, PYTHONPATH: join(repoRoot, 'runtime'), PYTHONDONTWRITEBYTECODE: '1' },
    cwd: join(repoRoot, 'runtime'),
    stdio: 'ignore',
  });
  for (let i = 0; i < 200 && !(existsSync(captureSocket) && existsSync(inputSocket)); i++) await sleep(50);
  assert.ok(existsSync(captureSocket) && existsSync(inputSocket), 'both helpers listen');
  return { display, xvfb, openbox, capture, input, captureSocket, inputSocket };
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

let dir: string;
let consoleSession: Console;
let stack: Stack;
let redis: Redis;
let probe: Probe;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deskgate-bare-metal-'));
  consoleSession = await startConsole(dir);
  // An app that was on the console before any session: a reset must leave it running.
  probe = await Probe.start(consoleSession.display, { color: PROBE_COLOR });
  stack = await startStack({
    env: {
      REDIS_URL: '',
      DESKGATE_PORT: '0',
      DESKGATE_DESKTOP_PROVIDER: 'bare-metal',
      DESKGATE_BARE_METAL_DISPLAY: consoleSession.display,
      DESKGATE_BARE_METAL_CAPTURE_SOCKET: consoleSession.captureSocket,
      DESKGATE_BARE_METAL_INPUT_SOCKET: consoleSession.inputSocket,
      DESKGATE_DESKTOP_WAIT_SECONDS: '5',
    },
    logDir: join(dir, 'logs'),
  });
  redis = new Redis(stack.redisUrl);
});

after(async () => {
  redis?.disconnect();
  await stack?.stop();
  probe?.stop();
  for (const child of [consoleSession?.input, consoleSession?.capture, consoleSession?.openbox, consoleSession?.xvfb]) child?.kill('SIGTERM');
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${stack.mcpUrl.replace(/\/mcp$/, '')}${path}`, { ...init, headers: { authorization: `Bearer ${stack.operatorKey}`, ...(init.headers ?? {}) } });

async function desktopRecord(session: string): Promise<Record<string, string>> {
  const id = await redis.hget(`deskgate:session:${stack.tenant}:${session}`, 'desktopId');
  assert.ok(id, `session ${session} holds a desktop`);
  return redis.hgetall(`deskgate:desktop:${id}`);
}

test('the worker advertises its platform and capabilities, and runs one desktop', async () => {
  const record = JSON.parse((await redis.hget(CAPACITY_KEY, (await redis.hkeys(CAPACITY_KEY))[0]!))!) as { platform: string; capabilities: string[]; max: number };
  assert.equal(record.platform, 'linux');
  assert.equal(record.max, 1, 'one console, one desktop');
  for (const capability of ['bare_metal', 'console_session', 'capture', 'input']) assert.ok(record.capabilities.includes(capability), capability);
});

test('a session end to end on the console: screenshot pixels, a click that lands in the app', async () => {
  const mcp: McpConnection = await connect('2025-11-25', `${stack.mcpUrl}/bm-one`, stack.apiKey);
  try {
    assert.ok(!(await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'bare-metal test', clipboardRead: true, clipboardWrite: true })).isError);
    const shot = imageOf(await mcp.call('screenshot'));
    const image = decodeImage(shot.data);
    const expected = targetImageSize(SIZE);
    assert.deepEqual([image.width, image.height], [expected.width, expected.height]);
    const area = probe.ready.color_area;
    const cx = Math.round(((area.x + area.width / 2) * image.width) / SIZE.width);
    const cy = Math.round(((area.y + area.height / 2) * image.height) / SIZE.height);
    const pixel = image.pixel(cx, cy);
    assert.ok(closeTo(pixel, hex(PROBE_COLOR)), `the probe's colour in the screenshot, got ${pixel}`);

    const record = await desktopRecord('bm-one');
    assert.equal(record.provider, 'bare-metal');
    assert.equal(record.platform, 'linux');
    assert.equal(record.display, consoleSession.display);
    assert.equal(record.xvfbPid, '0', 'the worker started no X server');

    const { button } = probe.ready;
    const skip = probe.events().length;
    const click = await mcp.call('left_click', { coordinate: [((button.x + button.width / 2) * image.width) / SIZE.width, ((button.y + button.height / 2) * image.height) / SIZE.height] });
    assert.ok(!click.isError, textOf(click));
    const press = (await probe.waitFor((e) => e.type === 'press', 5000, skip)) as { x_root: number; y_root: number; button: number };
    assert.equal(press.button, 1);
    assert.ok(Math.abs(press.x_root - (button.x + button.width / 2)) <= 2 && Math.abs(press.y_root - (button.y + button.height / 2)) <= 2, JSON.stringify(press));
    await probe.waitFor((e) => e.type === 'button' && e.name === 'click_me', 5000, skip);

    // Left for the reset to clear: text on the clipboard.
    assert.ok(!(await mcp.call('write_clipboard', { text: 'secret of session one' })).isError);
    assert.equal(textOf(await mcp.call('read_clipboard')), 'secret of session one');
  } finally {
    await mcp.close();
  }
});

test('asking for macOS when only a linux worker exists fails at once with a clear error', async () => {
  const mcp = await connect('2025-11-25', `${stack.mcpUrl}/bm-mac?platform=macos`, stack.apiKey);
  try {
    const result = await mcp.call('screenshot');
    assert.equal(errorKind(result), 'desktop_unavailable');
    assert.match(textOf(result), /No worker offers macos desktops/);
    assert.match(textOf(result), /offers linux desktops/);
    assert.equal(await redis.exists(`deskgate:session:${stack.tenant}:bm-mac`), 0, 'no session was created');
  } finally {
    await mcp.close();
  }
  // An unknown platform is refused before MCP.
  const bad = await fetch(`${stack.mcpUrl}/bm-x?platform=windows`, { method: 'POST', headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /platform must be one of: linux, macos/);
  // A linux session asking for linux by name is served; asking a linux session for macOS is refused.
  const linux = await connect('2025-11-25', `${stack.mcpUrl}/bm-one?platform=linux`, stack.apiKey);
  try {
    assert.ok(!(await linux.call('screenshot')).isError);
  } finally {
    await linux.close();
  }
  const switched = await connect('2025-11-25', `${stack.mcpUrl}/bm-one?platform=macos`, stack.apiKey);
  try {
    const result = await switched.call('screenshot');
    assert.equal(errorKind(result), 'state_conflict');
    assert.match(textOf(result), /runs on a linux desktop, not macos/);
  } finally {
    await switched.close();
  }
});

test('ending a session resets the console and never tears it down; the next session gets it', async () => {
  const pids = { capture: consoleSession.capture.pid, input: consoleSession.input.pid };
  const ended = await api('/v1/sessions/bm-one', { method: 'DELETE' });
  assert.equal(ended.status, 200, await ended.text());
  const mcp = await connect('2025-11-25', `${stack.mcpUrl}/bm-two`, stack.apiKey);
  try {
    // The allocation waits for the released console (one desktop).
    assert.ok(!(await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'bare-metal test', clipboardRead: true })).isError);
    const read = await mcp.call('read_clipboard');
    assert.ok(!read.isError, textOf(read));
    assert.doesNotMatch(textOf(read), /secret of session one/, 'the reset emptied the clipboard');
    const shot = imageOf(await mcp.call('screenshot'));
    assert.ok(shot.data.length > 0);
  } finally {
    await mcp.close();
  }
  // The console lives on: the X server, the window manager, the app that was there, the helpers.
  for (const [name, child] of Object.entries({ xvfb: consoleSession.xvfb, openbox: consoleSession.openbox, capture: consoleSession.capture, input: consoleSession.input, probe: probe.process })) {
    assert.ok(alive(child), `${name} still runs`);
  }
  assert.deepEqual({ capture: consoleSession.capture.pid, input: consoleSession.input.pid }, pids);
});

test('a worker that offers macOS takes the sessions that ask for it, and its gates use the macOS shortcut list', async (t) => {
  const macDir = mkdtempSync(join(tmpdir(), 'deskgate-bare-metal-mac-'));
  const mac = await startConsole(macDir);
  let macProbe: Probe | undefined;
  let worker: ServiceProcess | undefined;
  t.after(async () => {
    await worker?.stop();
    macProbe?.stop();
    for (const child of [mac.input, mac.capture, mac.openbox, mac.xvfb]) child.kill('SIGTERM');
  });
  macProbe = await Probe.start(mac.display, { color: PROBE_COLOR });
  const started = await startService<true>({
    name: 'worker-mac',
    entry: `${repoRoot}services/worker/src/main.ts`,
    env: {
      ...process.env,
      REDIS_URL: stack.redisUrl,
      DESKGATE_WORKER_PORT: '0',
      DESKGATE_WORKER_ID: 'mac-stand-in',
      DESKGATE_DESKTOP_PROVIDER: 'bare-metal',
      DESKGATE_PLATFORM: 'macos',
      DESKGATE_BARE_METAL_DISPLAY: mac.display,
      DESKGATE_BARE_METAL_CAPTURE_SOCKET: mac.captureSocket,
      DESKGATE_BARE_METAL_INPUT_SOCKET: mac.inputSocket,
    },
    logFile: join(dir, 'logs', 'worker-mac.log'),
    readyWhen: (record) => record.msg === 'worker ready' || undefined,
  });
  worker = started.service;
  // Its room is published on its first heartbeat after start.
  let raw: string | null = null;
  for (let i = 0; i < 100 && !(raw = await redis.hget(CAPACITY_KEY, 'mac-stand-in')); i++) await sleep(100);
  assert.ok(raw, 'the macOS worker published its capacity');
  const record = JSON.parse(raw) as { platform: string; capabilities: string[] };
  assert.equal(record.platform, 'macos');
  assert.ok(record.capabilities.includes('screencapturekit'));

  const mcp = await connect('2025-11-25', `${stack.mcpUrl}/bm-mac2?platform=macos`, stack.apiKey);
  try {
    assert.ok(!(await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'bare-metal test' })).isError);
    const desktop = await desktopRecord('bm-mac2');
    assert.equal(desktop.workerId, 'mac-stand-in', 'placed on the macOS worker');
    assert.equal(desktop.platform, 'macos');
    assert.equal(desktop.display, mac.display);
    const shot = decodeImage(imageOf(await mcp.call('screenshot')).data);
    const { button } = macProbe.ready;
    const skip = macProbe.events().length;
    const at: [number, number] = [((button.x + button.width / 2) * shot.width) / SIZE.width, ((button.y + button.height / 2) * shot.height) / SIZE.height];
    assert.ok(!(await mcp.call('left_click', { coordinate: at })).isError);
    await macProbe.waitFor((e) => e.type === 'press', 5000, skip);
    // The seed's macOS list: cmd+q is a system shortcut; alt+tab and cmd+l are keys of the app.
    const quit = await mcp.call('key', { text: 'cmd+q' });
    assert.equal(errorKind(quit), 'blocked_key_combo');
    assert.match(textOf(quit), /meta\+q is a system shortcut \(quits the frontmost application\)/);
    for (const text of ['alt+tab', 'cmd+l']) {
      const result = await mcp.call('key', { text });
      assert.ok(!result.isError, `${text} on a macOS desktop: ${textOf(result)}`);
    }
  } finally {
    await mcp.close();
  }
  // The same keys on the linux console: alt+tab is the X session's window switcher there.
  const linux = await connect('2025-11-25', `${stack.mcpUrl}/bm-two`, stack.apiKey);
  try {
    assert.equal((await desktopRecord('bm-two')).platform, 'linux', 'a session that asked for nothing stayed on linux');
    assert.equal(errorKind(await linux.call('key', { text: 'alt+tab' })), 'blocked_key_combo');
  } finally {
    await linux.close();
  }
});
