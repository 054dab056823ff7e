/**
 * The desktop as part of the sandbox, on the real stack, tried the way an attacker with an
 * agent key would: nothing of a session's desktop runs as root; its display refuses clients
 * without its cookie; the window manager offers no menu, no launcher and no exit to clicks
 * and keys; a window manager that dies takes its desktop with it (a clear error, then a fresh
 * desktop); open_application starts only the desktop's apps, within the process cap; the
 * browser, the editor and the file manager open; desktops cannot reach this host's services.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { STATE_ROOT } from '../../scripts/lib/state-dir.ts';
import { environOf } from '../support/desktops.ts';
import { closeTo, decodeImage, hex } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';

const MAX_PROCESSES = 256;
const ok = (result: ToolResult) => (assert.ok(!result.isError, textOf(result)), result);
const refused = (result: ToolResult, kind: string, pattern?: RegExp) => {
  assert.equal(errorKind(result), kind, textOf(result));
  if (pattern) assert.match(textOf(result), pattern);
};

interface DesktopRecord {
  id: string;
  display: string;
  user: string;
  xauthority: string;
  pids: Record<'xvfb' | 'wm' | 'panel' | 'capture' | 'input', number>;
}

async function desktopOf(redis: Redis, tenant: string, session: string): Promise<DesktopRecord> {
  const id = await redis.hget(keys.session(tenant, session), 'desktopId');
  if (!id) throw new Error(`session ${session} holds no desktop`);
  const r = await redis.hgetall(keys.desktop(id));
  const pids = { xvfb: Number(r.xvfbPid), wm: Number(r.wmPid), panel: Number(r.panelPid), capture: Number(r.capturePid), input: Number(r.inputPid) };
  return { id, display: r.display!, user: r.desktopUser!, xauthority: r.xauthority!, pids };
}

/** Real, effective, saved and filesystem uids of a process, and whether it may gain privileges. */
function credentials(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { uids: /^Uid:\s+(.*)$/m.exec(status)![1]!.split(/\s+/).map(Number), noNewPrivs: /^NoNewPrivs:\s+1$/m.test(status) };
}
const uidOf = (user: string) => Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));

/** Runs a command as another user (setpriv), without the desktop's cookie unless given one. */
const gidOf = (user: string) => Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
const runAs = (user: string, command: string[], env: Record<string, string> = {}) =>
  spawnSync('setpriv', [`--reuid=${user}`, `--regid=${gidOf(user)}`, '--init-groups', '--', 'env', '-i', 'PATH=/usr/bin:/bin', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...command], { encoding: 'utf8' });

/**
 * The attacker's hands: XTest clicks and key chords on the desktop, and what is mapped on it
 * (the root's viewable children and the window manager's client list), from python3-xlib.
 */
const X_SCRIPT = String.raw`
import json, sys, time
from Xlib import X, XK, display
from Xlib.ext import xtest
d = display.Display(sys.argv[1]); root = d.screen().root
def state():
    viewable = [c.id for c in root.query_tree().children if c.get_attributes().map_state == X.IsViewable]
    clients = root.get_full_property(d.intern_atom('_NET_CLIENT_LIST'), X.AnyPropertyType)
    return {'viewable': viewable, 'clients': list(clients.value) if clients else []}
def settle():
    d.sync(); time.sleep(0.4)
for step in json.loads(sys.argv[2]):
    if step[0] == 'click':
        _, x, y, button = step
        xtest.fake_input(d, X.MotionNotify, x=x, y=y); xtest.fake_input(d, X.ButtonPress, button); xtest.fake_input(d, X.ButtonRelease, button); settle()
    elif step[0] == 'keys':
        codes = [d.keysym_to_keycode(XK.string_to_keysym(name)) for name in step[1]]
        for code in codes: xtest.fake_input(d, X.KeyPress, code)
        d.sync(); time.sleep(0.2)
        for code in reversed(codes): xtest.fake_input(d, X.KeyRelease, code)
        settle()
    elif step[0] == 'escape':
        code = d.keysym_to_keycode(XK.string_to_keysym('Escape')); xtest.fake_input(d, X.KeyPress, code); xtest.fake_input(d, X.KeyRelease, code); settle()
print(json.dumps(state()))
`;
const x11 = (display: string, steps: unknown[] = []) => JSON.parse(execFileSync('/usr/bin/python3', ['-c', X_SCRIPT, display, JSON.stringify(steps)], { encoding: 'utf8' })) as { viewable: number[]; clients: number[] };

async function until<T>(check: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('the desktop as part of the sandbox', () => {
  let stack: Stack;
  let redis: Redis;
  const sessions: McpConnection[] = [];
  const session = async (name: string, apps: string[]) => {
    // A keep-alive socket the gateway closed while the previous test drove X for a while can
    // fail the first request ("fetch failed"): connect again once.
    const mcp = await connect('2026-07-28', `${stack.mcpUrl}/${name}`, stack.apiKey).catch(() => connect('2026-07-28', `${stack.mcpUrl}/${name}`, stack.apiKey));
    sessions.push(mcp);
    ok(await mcp.call('request_access', { apps: apps.length ? apps : ['xterm'], reason: 'desktop sandbox e2e' }));
    return { mcp, desktop: await desktopOf(redis, stack.tenant, name) };
  };

  before(async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'deskgate-desktop-sandbox-'));
    stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_MAX_DESKTOPS: '12', DESKGATE_WARM_DESKTOPS: '0', DESKGATE_DESKTOP_MAX_PROCESSES: String(MAX_PROCESSES) }, logDir });
    redis = new Redis(stack.redisUrl);
  });
  after(async () => {
    for (const mcp of sessions) await mcp.close().catch(() => undefined);
    redis?.disconnect();
    await stack?.stop();
  });

  test('nothing of a desktop runs as root: Xvfb, openbox, the panel, both helpers and a launched app run as its own user', async () => {
    const { mcp, desktop } = await session('least-privilege', ['xterm']);
    const launched = ok(await mcp.call('open_application', { app: 'xterm' }));
    const appPid = Number((launched.structuredContent as { pid?: number }).pid);
    assert.match(desktop.user, /^deskgate-desktop-\d+$/);
    const uid = uidOf(desktop.user);
    for (const [name, pid] of Object.entries({ ...desktop.pids, app: appPid })) {
      assert.ok(pid > 0, `${name} has a pid`);
      const { uids, noNewPrivs } = credentials(pid);
      assert.deepEqual(uids, [uid, uid, uid, uid], `${name} (${pid}) runs as ${desktop.user}`);
      assert.ok(noNewPrivs, `${name} cannot gain privileges`);
      assert.match(readFileSync(`/proc/${pid}/limits`, 'utf8'), new RegExp(`Max processes\\s+${MAX_PROCESSES}\\s+${MAX_PROCESSES}`), `${name} is under the process cap`);
    }
    // Its own HOME in a private folder; nothing of the worker's environment.
    const env = environOf(desktop.pids.input);
    const home = env.get('HOME')!;
    const folder = statSync(dirname(home));
    assert.equal(folder.uid, uid);
    assert.equal(folder.mode & 0o777, 0o700);
    assert.equal(environOf(appPid).get('HOME'), home);
    for (const name of ['REDIS_URL', 'DESKGATE_API_KEY']) assert.equal(env.has(name) || environOf(appPid).has(name), false, `${name} stays in the worker`);
    // Another session: another user.
    const other = await session('least-privilege-2', []);
    assert.notEqual(other.desktop.user, desktop.user);
  });

  test('the display refuses clients without its cookie, and lets them in with it', async () => {
    const { desktop } = await session('cookie', []);
    const other = await desktopOf(redis, stack.tenant, 'least-privilege-2');
    const empty = join(mkdtempSync(join(tmpdir(), 'deskgate-cookie-')), 'empty');
    writeFileSync(empty, '');
    chmodSync(dirname(empty), 0o755);
    chmodSync(empty, 0o644);
    for (const user of ['nobody', other.user]) {
      const denied = runAs(user, ['xdpyinfo', '-display', desktop.display], { XAUTHORITY: empty });
      assert.notEqual(denied.status, 0, `${user} connected without the cookie`);
      assert.match(denied.stderr, /Authorization required|unable to open display/);
    }
    // Another session's desktop user cannot read this desktop's cookie file either.
    assert.notEqual(runAs(other.user, ['cat', desktop.xauthority]).status, 0);
    const copy = join(dirname(empty), 'cookie');
    copyFileSync(desktop.xauthority, copy);
    chmodSync(copy, 0o644);
    const allowed = runAs('nobody', ['xdpyinfo', '-display', desktop.display], { XAUTHORITY: copy });
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.match(allowed.stdout, /name of display/);
  });

  test('clicks and keys reach no menu, launcher or exit of the window manager', async () => {
    const { mcp, desktop } = await session('window-manager', ['xterm']);
    ok(await mcp.call('open_application', { app: 'xterm' }));
    const start = x11(desktop.display);
    const xterm = start.clients.at(-1)!;
    const geometry = execFileSync('xwininfo', ['-display', desktop.display, '-id', String(xterm)], { encoding: 'utf8' });
    const left = Number(/Absolute upper-left X:\s+(\d+)/.exec(geometry)![1]);
    const top = Number(/Absolute upper-left Y:\s+(\d+)/.exec(geometry)![1]);
    const width = Number(/Width:\s+(\d+)/.exec(geometry)![1]);
    const titlebar = [left + Math.round(width / 3), top - 8];
    const background = [20, 20];
    const attacks: [string, unknown[]][] = [
      ['right-click on the background', [['click', ...background, 3]]],
      ['middle-click on the background', [['click', ...background, 2]]],
      ['left-click on the background', [['click', ...background, 1]]],
      ['scroll on the background', [['click', ...background, 4], ['click', ...background, 5]]],
      ['right-click on the title bar', [['click', ...titlebar, 3]]],
      ['middle-click on the title bar', [['click', ...titlebar, 2]]],
      // The panel (tint2, 30 px along the bottom of the 1280×800 screen): a taskbar and a clock only.
      ['right-click on the panel', [['click', 700, 785, 3]]],
      ['middle-click on the panel', [['click', 700, 785, 2]]],
      ['left-click on the panel', [['click', 700, 785, 1]]],
      ['clicks on the clock', [['click', 1260, 785, 1], ['click', 1260, 785, 3], ['click', 1260, 785, 2]]],
      ['alt+F4', [['keys', ['Alt_L', 'F4']]]],
      ['ctrl+alt+T', [['keys', ['Control_L', 'Alt_L', 't']]]],
      ['alt+F2', [['keys', ['Alt_L', 'F2']]]],
      ['alt+tab', [['keys', ['Alt_L', 'Tab']]]],
      ['super', [['keys', ['Super_L']]]],
      ['ctrl+alt+Delete', [['keys', ['Control_L', 'Alt_L', 'Delete']]]],
    ];
    for (const [what, steps] of attacks) {
      const seen = x11(desktop.display, steps);
      assert.deepEqual(seen.viewable.filter((window) => !start.viewable.includes(window)), [], `${what} mapped a window`);
      assert.deepEqual(seen.clients, start.clients, `${what} changed the clients`);
      assert.ok(alive(desktop.pids.wm), `openbox survived ${what}`);
    }
  });

  test('a window manager that dies takes its desktop with it: one clear error, then a fresh desktop with a window manager', async () => {
    const { mcp, desktop } = await session('wm-dies', []);
    const home = dirname(environOf(desktop.pids.input).get('HOME')!);
    process.kill(desktop.pids.wm, 'SIGKILL');
    await until(() => !existsSync(home), 'the broken desktop to be torn down');
    for (const pid of Object.values(desktop.pids)) assert.equal(alive(pid), false, `${pid} ended with its desktop`);
    refused(await mcp.call('screenshot'), 'desktop_failed', /window manager stopped.*request access/);
    // The session starts over on a new desktop.
    ok(await mcp.call('request_access', { apps: ['xterm'], reason: 'desktop sandbox e2e' }));
    const image = decodeImage(imageOf(ok(await mcp.call('screenshot'))).data);
    const fresh = await desktopOf(redis, stack.tenant, 'wm-dies');
    assert.notEqual(fresh.id, desktop.id);
    assert.ok(alive(fresh.pids.wm));
    assert.match(execFileSync('xprop', ['-display', fresh.display, '-root', '_NET_SUPPORTING_WM_CHECK'], { encoding: 'utf8' }), /window id/);
    // Not a black screen: the background colour, and the panel along the bottom.
    assert.ok(closeTo(image.pixel(10, 10), hex('#3b4d61')), `background ${image.pixel(10, 10)}`);
  });

  test('open_application starts only the desktop’s apps: no bare executables, shells or interpreters', async () => {
    const names = ['yes', 'killall5', 'reboot', 'sh', 'python3', 'bash', 'openbox', 'python3.11', 'vim'];
    const { mcp, desktop } = await session('launch-rules', names);
    for (const app of names) {
      const result = await mcp.call('open_application', { app });
      assert.ok(result.isError, `${app} was started: ${textOf(result)}`);
      // The seed's policy already refuses to grant shells and interpreters; whatever it grants
      // still has to be an app of the desktop.
      assert.match(errorKind(result)!, /^(bad_args|app_not_granted)$/, textOf(result));
    }
    for (const app of ['yes', 'killall5', 'reboot']) {
      refused(await mcp.call('open_application', { app }), 'bad_args', new RegExp(`no \\.desktop entry or executable named "${app}" among this desktop's apps \\(it offers chromium, mousepad, pcmanfm, xterm\\)`));
    }
    refused(await mcp.call('open_application', { app: 'openbox' }), 'bad_args', /part of the desktop itself/);
    refused(await mcp.call('open_application', { app: 'vim' }), 'bad_args', /Terminal=true/);
    const uid = uidOf(desktop.user);
    const running = execFileSync('ps', ['-o', 'comm=', '-u', String(uid)], { encoding: 'utf8' });
    for (const app of ['yes', 'killall5', 'reboot', 'sh', 'bash', 'vim']) assert.doesNotMatch(running, new RegExp(`^${app}$`, 'm'));
  });

  test('no launch beyond the process cap; the cap counts every process and thread of the desktop user', async () => {
    const { mcp, desktop } = await session('process-cap', ['mousepad']);
    const uid = uidOf(desktop.user);
    // Another program of the desktop's user fills the cap with threads.
    const filler = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '/usr/bin/python3', '-c',
      `import threading, time\nfor _ in range(${MAX_PROCESSES}): threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\nprint('full', flush=True)\ntime.sleep(600)`], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((resolve) => filler.stdout!.once('data', resolve));
    refused(await mcp.call('open_application', { app: 'mousepad' }), 'quota_exceeded', new RegExp(`limit is ${MAX_PROCESSES}`));
    filler.kill('SIGKILL');
    await until(() => !alive(filler.pid!), 'the filler to end');
    assert.match(textOf(ok(await mcp.call('open_application', { app: 'mousepad' }))), /Started mousepad/);
  });

  test('the browser, the text editor and the file manager open and show a window', { timeout: 90_000 }, async () => {
    const { mcp, desktop } = await session('apps', ['chromium', 'mousepad', 'pcmanfm']);
    const uid = uidOf(desktop.user);
    for (const app of ['chromium', 'mousepad', 'pcmanfm']) {
      const result = ok(await mcp.call('open_application', { app }));
      assert.match(textOf(result), new RegExp(`^Started ${app} \\(${app}\\.desktop\\); its window`));
      const pid = Number((result.structuredContent as { pid?: number }).pid);
      assert.equal(credentials(pid).uids[0], uid, `${app} runs as the desktop user`);
    }
    const { clients } = x11(desktop.display);
    const classes = clients.map((window) => execFileSync('xprop', ['-display', desktop.display, '-id', String(window), 'WM_CLASS'], { encoding: 'utf8' }));
    for (const klass of ['"chromium"', '"mousepad"', '"pcmanfm"', '"tint2"']) assert.ok(classes.some((line) => line.includes(klass)), `a ${klass} window: ${classes.join(' ')}`);
  });

  test("desktops cannot reach this host's services (Redis)", async () => {
    // A session's quota is 8 per tenant here: the cookie test's desktop will do.
    const desktop = await desktopOf(redis, stack.tenant, 'cookie');
    const port = new URL(stack.redisUrl).port;
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    const attempt = runAs(desktop.user, ['bash', '-c', probe]);
    assert.notEqual(attempt.status, 0, `the desktop user reached Redis: ${attempt.stdout}`);
    const root = spawnSync('bash', ['-c', probe], { encoding: 'utf8' });
    assert.match(root.stdout, /connected/, 'the worker can');
  });

  test("desktops cannot read this host's deskgate state: the private Redis's files, the logs", async () => {
    // A security review read another session's typed text and screenshots from the private
    // Redis's append-only file, world-readable under .deskgate/redis/<port>.
    const desktop = await desktopOf(redis, stack.tenant, 'cookie');
    const dataDir = `${STATE_ROOT}redis/${new URL(stack.redisUrl).port}`;
    assert.ok(readdirSync(`${dataDir}/appendonlydir`).some((name) => name.endsWith('.aof')), 'root sees the append-only files');
    for (const path of [STATE_ROOT, dataDir, `${dataDir}/appendonlydir`, stack.logDir]) {
      const listed = runAs(desktop.user, ['ls', path]);
      assert.notEqual(listed.status, 0, `the desktop user listed ${path}: ${listed.stdout}`);
      assert.match(listed.stderr, /Permission denied/, path);
    }
    const read = runAs(desktop.user, ['bash', '-c', `cat ${dataDir}/appendonlydir/*.aof`]);
    assert.notEqual(read.status, 0, `the desktop user read the append-only file: ${read.stdout.slice(0, 200)}`);
  });
});
