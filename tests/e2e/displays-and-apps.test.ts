/**
 * Several monitors, open_application and the normalized coordinate mode on the real stack: a
 * two-monitor desktop (DESKGATE_DESKTOP_MONITORS=2) shows each monitor on request and clicks
 * land on the monitor shown; open_application starts a real xterm and brings it back to the
 * front; a one-monitor desktop refuses switch_display; a session opened with
 * ?coordinate_mode=normalized_0_100 hits the same target with percentages as a pixels session
 * with screenshot pixels.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { closeTo, decodeImage, hex } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { Probe, type Rect } from '../support/probe.ts';

const WIDTH = 1280;
const HEIGHT = 800;
const LEFT_COLOR = '#3366cc';
const RIGHT_COLOR = '#cc6633';
const centre = (r: Rect) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
const ok = (result: ToolResult) => (assert.ok(!result.isError, textOf(result)), result);
const refused = (result: ToolResult, kind: string) => assert.equal(errorKind(result), kind, textOf(result));
const x11 = (display: string, command: string, ...args: string[]) => execFileSync(command, args, { env: { ...process.env, DISPLAY: display }, encoding: 'utf8' }).trim();
const activeWindow = (display: string) => Number.parseInt(x11(display, 'xprop', '-root', '_NET_ACTIVE_WINDOW').split('#')[1]!.trim(), 16);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function until(check: () => boolean, what: string, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('a desktop with two monitors', () => {
  let stack: Stack;
  let redis: Redis;
  let mcp: McpConnection;
  let display: string;
  const probes: Probe[] = [];
  let left: Probe;
  let right: Probe;

  before(async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'deskgate-displays-'));
    stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_DESKTOP_SIZE: `${WIDTH}x${HEIGHT}`, DESKGATE_DESKTOP_MONITORS: '2' }, logDir });
    redis = new Redis(stack.redisUrl);
    mcp = await connect('2026-07-28', `${stack.mcpUrl}/multi`, stack.apiKey);
    ok(await mcp.call('request_access', { apps: ['DeskgateProbe', 'xterm'], reason: 'displays and apps e2e' }));
    ({ display } = await desktopOf(redis, stack.tenant, 'multi'));
    left = await Probe.start(display, { geometry: '400x300+100+100', color: LEFT_COLOR });
    right = await Probe.start(display, { geometry: `400x300+${WIDTH + 200}+150`, color: RIGHT_COLOR });
    probes.push(left, right);
  });
  after(async () => {
    for (const probe of probes) probe.stop();
    await mcp?.close();
    redis?.disconnect();
    await stack?.stop();
  });

  test('RandR reports the monitors the worker defined, the first primary', () => {
    const listed = x11(display, 'xrandr', '--listmonitors');
    assert.match(listed, /Monitors: 2/);
    assert.match(listed, /\*DG-1 1280\/\d+x800\/\d+\+0\+0/);
    assert.match(listed, /DG-2 1280\/\d+x800\/\d+\+1280\+0/);
  });

  test('a screenshot shows the primary monitor and names both', async () => {
    const result = ok(await mcp.call('screenshot'));
    assert.match(textOf(result), /DG-1 \(1280×800, shown\), DG-2 \(1280×800\)/);
    const image = decodeImage(imageOf(result).data);
    assert.deepEqual([image.width, image.height], [WIDTH, HEIGHT]);
    const { x, y } = centre(left.ready.color_area);
    assert.ok(closeTo(image.pixel(x, y), hex(LEFT_COLOR)), `saw rgb(${image.pixel(x, y).join(',')})`);
  });

  test('switch_display DG-2: the screenshot shows monitor 2 and a click lands there', async () => {
    ok(await mcp.call('switch_display', { display: 'DG-2' }));
    const result = ok(await mcp.call('screenshot'));
    assert.match(textOf(result), /DG-2 \(1280×800, shown\)/);
    const target = centre(right.ready.color_area);
    const inImage = { x: target.x - WIDTH, y: target.y };
    const image = decodeImage(imageOf(result).data);
    assert.ok(closeTo(image.pixel(inImage.x, inImage.y), hex(RIGHT_COLOR)), `saw rgb(${image.pixel(inImage.x, inImage.y).join(',')})`);

    const skip = right.events().length;
    ok(await mcp.call('left_click', { coordinate: [inImage.x, inImage.y] }));
    const press = await right.waitFor((e) => e.type === 'press', 5000, skip);
    assert.ok(press.x_root! > WIDTH, `x_root ${press.x_root}`);
    assert.ok(Math.abs(press.x_root! - target.x) <= 1 && Math.abs(press.y_root! - target.y) <= 1, JSON.stringify(press));
    assert.equal(textOf(ok(await mcp.call('cursor_position'))), `(${Math.round(inImage.x)}, ${Math.round(inImage.y)})`);
  });

  test('an unknown display is bad_args naming the ones there are; auto goes back to the primary', async () => {
    const unknown = await mcp.call('switch_display', { display: 'HDMI-1' });
    refused(unknown, 'bad_args');
    assert.match(textOf(unknown), /DG-1, DG-2/);
    ok(await mcp.call('switch_display', { display: 'auto' }));
    const result = ok(await mcp.call('screenshot'));
    assert.match(textOf(result), /DG-1 \(1280×800, shown\)/);
    const { x, y } = centre(left.ready.color_area);
    assert.ok(closeTo(decodeImage(imageOf(result).data).pixel(x, y), hex(LEFT_COLOR)));
    assert.match(textOf(ok(await mcp.call('cursor_position'))), /pointer is on DG-2, not on DG-1/);
  });

  test('open_application refuses an app not granted and one that does not exist', async () => {
    refused(await mcp.call('open_application', { app: 'firefox-esr' }), 'app_not_granted');
    ok(await mcp.call('request_access', { apps: ['no-such-app-here'], reason: 'e2e' }));
    const missing = await mcp.call('open_application', { app: 'no-such-app-here' });
    refused(missing, 'bad_args');
    assert.match(textOf(missing), /no \.desktop entry or executable named "no-such-app-here"/);
  });

  let xtermPid = 0;
  test('open_application starts xterm and brings it to the front', async () => {
    const result = ok(await mcp.call('open_application', { app: 'xterm' }));
    assert.match(textOf(result), /^Started xterm \(.*\); its window ".*" is in front\./);
    const [xterm] = x11(display, 'xdotool', 'search', '--onlyvisible', '--class', 'xterm').split('\n').map(Number);
    assert.ok(xterm, 'an xterm window is mapped');
    assert.equal(activeWindow(display), xterm);
    xtermPid = Number(x11(display, 'xdotool', 'getwindowpid', String(xterm)));
    assert.ok(alive(xtermPid));

    // Put the probe in front, then ask again: the running xterm comes back, nothing new starts.
    const probeWindow = Number(x11(display, 'xdotool', 'search', '--onlyvisible', '--class', 'DeskgateProbe').split('\n')[0]);
    x11(display, 'xdotool', 'windowactivate', String(probeWindow));
    await until(() => activeWindow(display) !== xterm, 'the probe to come to the front');
    assert.match(textOf(ok(await mcp.call('open_application', { app: 'xterm' }))), /^Brought xterm to the front/);
    assert.equal(activeWindow(display), xterm);
    assert.equal(x11(display, 'xdotool', 'search', '--class', 'xterm').split('\n').length, 1, 'still one xterm');
  });

  test('ending the session ends the apps it started', async () => {
    assert.ok(xtermPid > 0);
    const base = stack.mcpUrl.replace(/\/mcp$/, '');
    const ended = await fetch(`${base}/v1/sessions/multi`, { method: 'DELETE', headers: { authorization: `Bearer ${stack.apiKey}` } }).catch((error: Error) => {
      throw new Error(`DELETE ${base}/v1/sessions/multi: ${error.message} (${String(error.cause)})`);
    });
    assert.equal(ended.status, 200);
    await until(() => !alive(xtermPid), `xterm ${xtermPid} to end`, 10_000);
  });
});

describe('a desktop with one monitor, and the normalized coordinate mode', () => {
  let stack: Stack;
  let redis: Redis;
  const closers: (() => unknown)[] = [];

  before(async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'deskgate-displays-'));
    stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_DESKTOP_SIZE: `${WIDTH}x${HEIGHT}` }, logDir });
    redis = new Redis(stack.redisUrl);
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
    redis?.disconnect();
    await stack?.stop();
  });

  async function session(name: string, query = '') {
    const mcp = await connect('2026-07-28', `${stack.mcpUrl}/${name}${query}`, stack.apiKey);
    closers.push(() => mcp.close());
    ok(await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'e2e' }));
    const { display } = await desktopOf(redis, stack.tenant, name);
    const probe = await Probe.start(display, { geometry: '600x400+200+150' });
    closers.push(() => probe.stop());
    ok(await mcp.call('screenshot'));
    return { mcp, probe };
  }

  test('switch_display on a single display is display_error', async () => {
    const { mcp } = await session('single');
    const result = await mcp.call('switch_display', { display: 'auto' });
    refused(result, 'display_error');
    assert.match(textOf(result), /single display/);
  });

  test('percent coordinates hit the same target as screenshot pixels', async () => {
    const pixels = await session('pixels');
    const percent = await session('percent', '?coordinate_mode=normalized_0_100');
    const describe = async (mcp: McpConnection) => (await mcp.listTools()).find((tool) => tool.name === 'left_click')!.description!;
    assert.match(await describe(percent.mcp), /percent of the display/);
    assert.match(await describe(pixels.mcp), /pixels of the last screenshot/);

    const presses = [];
    for (const [{ mcp, probe }, toModel] of [
      [pixels, (p: { x: number; y: number }) => [p.x, p.y]],
      [percent, (p: { x: number; y: number }) => [(p.x / WIDTH) * 100, (p.y / HEIGHT) * 100]],
    ] as const) {
      const skip = probe.events().length;
      ok(await mcp.call('left_click', { coordinate: toModel(centre(probe.ready.button)) }));
      await probe.waitFor((e) => e.type === 'button' && e.name === 'click_me', 5000, skip);
      presses.push(await probe.waitFor((e) => e.type === 'press', 5000, skip));
    }
    assert.deepEqual([presses[1]!.x_root, presses[1]!.y_root], [presses[0]!.x_root, presses[0]!.y_root]);
    const tenth = (value: number, size: number) => Math.round((value / size) * 1000) / 10;
    assert.equal(textOf(ok(await percent.mcp.call('cursor_position'))), `(${tenth(presses[1]!.x_root!, WIDTH)}, ${tenth(presses[1]!.y_root!, HEIGHT)})`);
  });

  test("a session keeps the coordinate mode it was created with", async () => {
    const other = await connect('2026-07-28', `${stack.mcpUrl}/percent`, stack.apiKey);
    closers.push(() => other.close());
    const result = await other.call('screenshot');
    refused(result, 'state_conflict');
    assert.match(textOf(result), /uses coordinate mode normalized_0_100/);
    const bad = await fetch(`${stack.mcpUrl}/percent?coordinate_mode=inches`, { method: 'POST', headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(bad.status, 400);
  });
});
