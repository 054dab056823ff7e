/**
 * The attacks that once got through the gates, replayed with only an agent's key and MCP calls
 * against the real stack under the seed's tiers. Each test shows the refusal AND that nothing
 * happened: the probe apps record every event they receive, and the desktop's windows are
 * listed before and after.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { ApiKeyStore } from '../../services/gateway/src/auth/api-keys.ts';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf, environOf } from '../support/desktops.ts';
import { connect, errorKind, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { Probe, type Rect } from '../support/probe.ts';
import { topLevelWindows } from '../support/x11.ts';

const dir = mkdtempSync(join(tmpdir(), 'deskgate-attacks-'));
const policyFile = join(dir, 'policy.json');
writeFileSync(policyFile, JSON.stringify({ profile: 'seed', tenants: { denies: { apps: { deny: ['xterm'] } } } }));

let stack: Stack;
let redis: Redis;
let mcp: McpConnection;
let display: string;
let xauthority: string | undefined;
const probes: Record<string, Probe> = {};
const centre = (r: Rect): [number, number] => [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)];
const INPUT = ['press', 'release', 'key', 'key_release', 'button', 'text', 'motion_drag'];
const marks = () => Object.fromEntries(Object.entries(probes).map(([name, probe]) => [name, probe.events().length]));
const nothingSince = async (mark: Record<string, number>) => {
  await sleep(250);
  for (const [name, probe] of Object.entries(probes)) {
    assert.deepEqual(probe.since(mark[name] ?? 0).filter((e) => INPUT.includes(e.type)), [], `${name} received nothing`);
  }
};
/**
 * A click that must land before what follows is marked: the call can answer before the probe
 * has logged the button's release, so the release is waited for (after this click, not any
 * earlier one).
 */
async function clickInto(probe: Probe, coordinate: [number, number]): Promise<void> {
  const skip = probe.events().length;
  ok(await mcp.call('left_click', { coordinate }));
  await probe.waitFor((e) => e.type === 'release' && e.button === 1, 5000, skip);
}
const refused = (result: ToolResult, kind: string) => assert.equal(errorKind(result), kind, textOf(result));
const ok = (result: ToolResult) => assert.ok(!result.isError, textOf(result));
const windows = () => topLevelWindows(display, xauthority);

before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_POLICY_FILE: policyFile }, tenant: 'attacks', logDir: dir });
  redis = new Redis(stack.redisUrl);
  mcp = await connect('2026-07-28', `${stack.mcpUrl}/attacks`, stack.apiKey);
  refused(await mcp.call('screenshot'), 'allowlist_empty');
  ({ display, xauthority } = await desktopOf(redis, 'attacks', 'attacks'));
  probes.app = await Probe.start(display, { geometry: '400x300+20+40', color: '#3366cc', wmClass: 'DeskgateProbe', xauthority });
  probes.terminal = await Probe.start(display, { geometry: '400x300+460+40', color: '#33cc66', wmClass: 'XTerm', xauthority });
  probes.browser = await Probe.start(display, { geometry: '400x300+20+420', color: '#cc9933', wmClass: 'firefox-esr', xauthority });
  ok(await mcp.call('request_access', { apps: ['DeskgateProbe', 'xterm', 'firefox-esr'], reason: 'attack replay' }));
  ok(await mcp.call('screenshot'));
});
after(async () => {
  for (const probe of Object.values(probes)) probe.stop();
  await mcp?.close();
  redis?.disconnect();
  await stack?.stop();
});

test('the root-shell path: a click on the desktop background is refused and no menu maps', async () => {
  const before = await windows();
  const mark = marks();
  const background: [number, number] = [1200, 760];
  for (const tool of ['right_click', 'middle_click', 'left_click', 'double_click']) {
    const result = await mcp.call(tool, { coordinate: background });
    refused(result, 'no_app_window');
    assert.match(textOf(result), /desktop background/);
  }
  refused(await mcp.call('scroll', { coordinate: background, scroll_direction: 'down', scroll_amount: 3 }), 'no_app_window');
  refused(await mcp.call('mouse_move', { coordinate: background }), 'no_app_window');
  await nothingSince(mark);
  await sleep(200);
  assert.deepEqual(await windows(), before, 'no window (menu, terminal) appeared');
});

test("a window's title bar is the window manager's, not the app's", async () => {
  const bar: [number, number] = [probes.app!.ready.window.x + 60, probes.app!.ready.window.y - 8];
  const mark = marks();
  const before = await windows();
  refused(await mcp.call('right_click', { coordinate: bar }), 'no_app_window');
  refused(await mcp.call('left_click_drag', { start_coordinate: bar, coordinate: [bar[0] + 200, bar[1] + 200] }), 'no_app_window');
  await nothingSince(mark);
  assert.deepEqual(await windows(), before);
});

test('keys need a granted app holding the real focus: the click-tier terminal in front gets no keystroke', async () => {
  await clickInto(probes.terminal!, centre(probes.terminal!.ready.color_area));
  const mark = marks();
  refused(await mcp.call('type', { text: 'id > /tmp/x\n' }), 'tier_insufficient');
  refused(await mcp.call('key', { text: 'Return' }), 'tier_insufficient');
  await nothingSince(mark);
});

test('separators the parsers used to split differently, and keysym aliases, are refused before anything is pressed', async () => {
  await clickInto(probes.app!, centre(probes.app!.ready.text));
  const before = await windows();
  const mark = marks();
  refused(await mcp.call('key', { text: 'shift\u001calt+f4' }), 'bad_args');
  refused(await mcp.call('hold_key', { text: 'x\u0085alt+f4', duration: 0.1 }), 'bad_args');
  refused(await mcp.call('key', { text: 'alt\u00a0f4' }), 'bad_args');
  refused(await mcp.call('key', { text: 'ctrl+alt+L1' }), 'blocked_key_combo');
  refused(await mcp.call('key', { text: 'Meta_L+F4' }), 'blocked_key_combo');
  refused(await mcp.call('hold_key', { text: 'alt f4', duration: 0.1 }), 'blocked_key_combo');
  refused(await mcp.call('key', { text: 'XF86Switch_VT_1' }), 'blocked_key_combo');
  await nothingSince(mark);
  assert.deepEqual(await windows(), before, 'every window is still there');
});

test('an interpreter is never granted by name, and a window is never matched by its interpreter', async () => {
  const result = await mcp.call('request_access', { apps: ['python3.11', 'python3', 'bash', '/usr/bin/python3'], reason: 'scripts' });
  const data = result.structuredContent as { granted: unknown[]; policyDenied: { app: string; reason: string }[] };
  assert.deepEqual(data.granted, []);
  assert.deepEqual(data.policyDenied.map((d) => d.app).sort(), ['/usr/bin/python3', 'bash', 'python3', 'python3.11'].sort());
  assert.match(data.policyDenied[0]!.reason, /interpreter/);
  // The probes are python3 processes: the XTerm-class one stays at click, whatever else is granted.
  await clickInto(probes.terminal!, centre(probes.terminal!.ready.color_area));
  const mark = marks();
  refused(await mcp.call('type', { text: 'x' }), 'tier_insufficient');
  await nothingSince(mark);
});

test('mouse down and up are hit-tested and tier-checked where the pointer is', async () => {
  const browser = centre(probes.browser!.ready.color_area);
  ok(await mcp.call('mouse_move', { coordinate: browser }));
  const mark = marks();
  refused(await mcp.call('left_mouse_down'), 'tier_insufficient');
  await nothingSince(mark);
  // Pressed in the app, dragged onto the read-tier browser: the move there is refused, nothing is dropped.
  ok(await mcp.call('mouse_move', { coordinate: centre(probes.app!.ready.color_area) }));
  ok(await mcp.call('left_mouse_down'));
  const mark2 = marks();
  refused(await mcp.call('mouse_move', { coordinate: browser }), 'tier_insufficient');
  ok(await mcp.call('left_mouse_up'));
  assert.deepEqual(probes.browser!.since(mark2.browser!).filter((e) => INPUT.includes(e.type)), []);
  refused(await mcp.call('left_click_drag', { start_coordinate: centre(probes.app!.ready.color_area), coordinate: browser }), 'tier_insufficient');
});

test("the policy's deny list catches every spelling, at request time and at gate time", async () => {
  const { key } = await new ApiKeyStore(redis).create('denies');
  const denied = await connect('2026-07-28', `${stack.mcpUrl}/denies`, key);
  try {
    const result = await denied.call('request_access', { apps: ['xterm.desktop', 'XTerm', 'org.example.xterm', 'DeskgateProbe'], reason: 'suffix' });
    const data = result.structuredContent as { granted: { app: string }[]; policyDenied: { app: string }[] };
    assert.deepEqual(data.granted.map((g) => g.app), ['DeskgateProbe']);
    assert.deepEqual(data.policyDenied.map((d) => d.app), ['xterm.desktop', 'XTerm', 'org.example.xterm']);
  } finally {
    await denied.close();
  }
});

test('huge durations are bad_args, and nothing runs', async () => {
  const mark = marks();
  refused(await mcp.call('wait', { duration: 1e7 }), 'bad_args');
  refused(await mcp.call('hold_key', { text: 'a', duration: 1e7 }), 'bad_args');
  const computer = await connect('2026-07-28', `${stack.mcpUrl.replace(/\/mcp$/, '/computer')}/attacks`, stack.apiKey);
  try {
    refused(await computer.call('computer', { action: 'left_click', coordinate: centre(probes.app!.ready.color_area), duration: 1e7 }), 'bad_args');
    refused(await computer.call('computer', { action: 'wait', duration: 1e7 }), 'bad_args');
  } finally {
    await computer.close();
  }
  await nothingSince(mark);
});

test('the kill switch stops a running batch within half a second, and the worker keeps refusing', async () => {
  const api = (body: unknown) =>
    fetch(`${stack.mcpUrl.replace(/\/mcp$/, '')}/v1/killswitch`, { method: 'PUT', headers: { authorization: `Bearer ${stack.operatorKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const at = centre(probes.app!.ready.color_area);
  const started = Date.now();
  const batch = mcp.call('computer_batch', { actions: [{ action: 'wait', duration: 3 }, { action: 'left_click', coordinate: at }] });
  await sleep(300);
  const mark = marks();
  assert.equal((await api({ on: true })).status, 200);
  const switchedAt = Date.now();
  const result = await batch;
  const stoppedAfter = Date.now() - switchedAt;
  try {
    refused(result, 'disabled');
    assert.ok(stoppedAfter < 500 + 150, `stopped ${stoppedAfter} ms after the switch (call took ${Date.now() - started} ms)`);
    await nothingSince(mark);
  } finally {
    assert.equal((await api({ on: false })).status, 200);
    await sleep(600);
  }
  ok(await mcp.call('screenshot'));
});

test('a file manager is read tier: a desktop entry that a full-tier editor could save is not started by clicks in it', { timeout: 60_000 }, async () => {
  // The path a seed-profile agent with a click-only terminal took to a shell: mousepad (full)
  // saved ~/run.desktop, and a double-click on it in pcmanfm (then full) ran its Exec line.
  const granted = await mcp.call('request_access', { apps: ['pcmanfm', 'mousepad'], reason: 'files' });
  const tiers = Object.fromEntries((granted.structuredContent as { granted: { app: string; tier: string }[] }).granted.map((g) => [g.app, g.tier]));
  assert.deepEqual([tiers.pcmanfm, tiers.mousepad], ['read', 'full'], textOf(granted));

  const { inputPid } = await desktopOf(redis, 'attacks', 'attacks');
  const home = environOf(inputPid).get('HOME')!;
  const { uid, gid } = statSync(home);
  const marker = join(home, 'ran-from-the-file-manager');
  const entry = join(home, 'run.desktop');
  writeFileSync(entry, `[Desktop Entry]\nType=Application\nName=run\nExec=touch ${marker}\n`, { mode: 0o755 });
  chownSync(entry, uid, gid);

  const opened = await mcp.call('open_application', { app: 'pcmanfm' });
  ok(opened);
  const pid = Number((opened.structuredContent as { pid: number }).pid);
  try {
    const xdotool = (...args: string[]) => execFileSync('xdotool', args, { env: { ...process.env, DISPLAY: display, ...(xauthority ? { XAUTHORITY: xauthority } : {}) }, timeout: 20_000 }).toString();
    const window = xdotool('search', '--sync', '--onlyvisible', '--pid', String(pid)).trim().split('\n')[0]!;
    const geometry = Object.fromEntries(xdotool('getwindowgeometry', '--shell', window).trim().split('\n').map((line) => line.split('=') as [string, string]));
    const inside: [number, number] = [Number(geometry.X) + Math.round(Number(geometry.WIDTH) / 2), Number(geometry.Y) + Math.round(Number(geometry.HEIGHT) / 2)];
    ok(await mcp.call('screenshot'));
    for (const tool of ['double_click', 'left_click', 'triple_click', 'right_click', 'middle_click']) {
      const result = await mcp.call(tool, { coordinate: inside });
      refused(result, 'tier_insufficient');
      assert.match(textOf(result), /pcmanfm/);
    }
    refused(await mcp.call('scroll', { coordinate: inside, scroll_direction: 'down', scroll_amount: 2 }), 'tier_insufficient');
    await sleep(1000);
    assert.equal(existsSync(marker), false, 'the desktop entry never ran');
  } finally {
    process.kill(pid, 'SIGKILL');
    rmSync(entry, { force: true });
  }
});
