/**
 * The console's live view of a container desktop (DESKGATE_DESKTOP_PROVIDER=container), on the
 * real stack, the real Docker engine and Chromium: nothing of the live view runs in the
 * container while nobody watches; an operator's page streams the desktop, the probe app's
 * colour changed by the agent shows in it, and the agent's screenshots answer while frames
 * stream; the live socket's limit; the watcher's helper goes when the page closes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { connect as connectSocket, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { keys } from '@deskgate/dispatch';
import { Redis } from 'ioredis';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { launchChromium, logLivePixel, openConsole, originOf, shownPixels, signIn, type ShownPixel } from '../support/console.ts';
import { desktopOf, onDisplay, type DesktopFacts } from '../support/desktops.ts';
import { decodeImage, hex } from '../support/image.ts';
import { connect, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { Probe } from '../support/probe.ts';

const WORKER_ID = `e2e-live-${process.pid}`;
const SESSION = 'container-live';
/** The probe's colour after a click on its button (tests/probe/probe_app.py FINAL_COLOR). */
const FINAL_COLOR = hex('#00cc44');
/** The entry point's LIVE_HELPERS_MAX (images/linux-desktop/desktop-session). */
const LIVE_HELPERS_MAX = 2;
const HELPER = '/opt/deskgate/bin/deskgate-capture';

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', timeout: 30_000 }).trim();
/** The container's log (the entry point writes to stderr). */
const containerLog = (container: string) => execFileSync('sh', ['-c', `docker logs --tail 50 ${container} 2>&1`], { encoding: 'utf8', timeout: 30_000 });
const ok = (result: ToolResult) => (assert.ok(!result.isError, textOf(result)), result);
const near = ([r, g, b]: readonly number[], [er, eg, eb]: readonly number[]) => Math.abs(r! - er!) < 40 && Math.abs(g! - eg!) < 40 && Math.abs(b! - eb!) < 40;

/** The capture helpers running in the container: the agent's (`--listen`) and any live view's. */
function captureHelpers(container: string): { agents: number[]; live: number[] } {
  const rows = docker('exec', container, 'ps', '-eo', 'pid=,args=').split('\n').map((row) => row.trim().split(/\s+/));
  const helpers = rows.filter(([, command]) => command === HELPER);
  const pids = (listening: boolean) => helpers.filter((row) => row.includes('--listen') === listening).map(([pid]) => Number(pid));
  return { agents: pids(true), live: pids(false) };
}

/** Polls until the container runs `count` live helpers; returns their pids. */
async function liveHelpers(container: string, count: number, withinMs = 20_000): Promise<number[]> {
  const until = Date.now() + withinMs;
  for (;;) {
    const { live } = captureHelpers(container);
    if (live.length === count) return live;
    if (Date.now() > until) assert.fail(`expected ${count} live helper(s) in ${container}, found ${live.length}`);
    await sleep(100);
  }
}

/** A connection to the live socket; `answer` is the reply to a ping, or 'closed' if it was hung up on. */
function openLive(path: string): Promise<{ socket: Socket; answer: Record<string, unknown> | 'closed' }> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket(path);
    let buffered = Buffer.alloc(0);
    const body = Buffer.from(JSON.stringify({ id: 1, op: 'ping' }));
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(Uint32Array.of(body.length).buffer), body])));
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      // A response is a header frame and a payload frame, each length-prefixed (u32 LE).
      if (buffered.length < 4) return;
      const headerLength = buffered.readUInt32LE(0);
      if (buffered.length < 8 + headerLength) return;
      resolve({ socket, answer: JSON.parse(buffered.subarray(4, 4 + headerLength).toString()) as Record<string, unknown> });
    });
    let connected = false;
    socket.on('connect', () => (connected = true));
    socket.on('close', () => resolve({ socket, answer: 'closed' }));
    // Hung up on mid-request (EPIPE, ECONNRESET) is a close too; failing to connect is not.
    socket.on('error', (error) => (connected ? resolve({ socket, answer: 'closed' }) : reject(error)));
  });
}

/** A window on the desktop whose colour changes every 30 ms: the live view streams while it is up. */
function startAnimation(desktop: DesktopFacts): ChildProcess {
  const script = [
    'import tkinter as tk',
    'root = tk.Tk(className="DeskgateAnimation")',
    'root.geometry("200x200+1000+500")',
    'area = tk.Canvas(root, width=200, height=200, highlightthickness=0)',
    'area.pack()',
    'step = [0]',
    'def tick():',
    '    step[0] = (step[0] + 17) % 256',
    '    area.configure(background="#%02x%02x%02x" % (step[0], 255 - step[0], 128))',
    '    root.after(30, tick)',
    'tick()',
    'root.mainloop()',
  ].join('\n');
  const { file, args, env } = onDisplay(desktop, ['/usr/bin/python3', '-c', script]);
  return spawn(file, args, { env, stdio: 'ignore' });
}

const framesShown = (page: Page) => page.evaluate(() => (window as unknown as { deskgateLive?: { frames: number } }).deskgateLive?.frames ?? 0);

let stack: Stack;
let redis: Redis;
let browser: Browser;
let agent: McpConnection;
let probe: Probe;
let desktop: DesktopFacts;
let runDir: string;

before(async () => {
  stack = await startStack({
    env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_DESKTOP_PROVIDER: 'container', DESKGATE_WORKER_ID: WORKER_ID, DESKGATE_MAX_DESKTOPS: '2', DESKGATE_WARM_DESKTOPS: '0', DESKGATE_DESKTOP_SIZE: '1280x800' },
    tenant: 'containerlive',
  });
  redis = new Redis(stack.redisUrl);
  browser = await launchChromium();
  agent = await connect('2026-07-28', `${stack.mcpUrl}/${SESSION}`, stack.apiKey);
  ok(await agent.call('request_access', { apps: ['DeskgateProbe'], reason: 'container live view test' }));
  desktop = await desktopOf(redis, stack.tenant, SESSION);
  assert.equal(desktop.provider, 'container', 'this suite runs with container desktops');
  runDir = (await redis.hget(keys.desktop(desktop.id), 'runDir'))!;
  probe = await Probe.start(desktop, { geometry: '600x500+100+80', color: '#3366cc', slowRepaint: true });
});

after(async () => {
  probe?.stop();
  await agent?.close().catch(() => undefined);
  await browser?.close();
  redis?.disconnect();
  await stack?.stop();
  assert.equal(docker('ps', '-aq', '--filter', `label=deskgate.worker=${WORKER_ID}`), '', 'no desktop container is left');
});

describe('a container desktop with nobody watching', () => {
  test('runs the agent\'s capture helper only, and offers the live socket beside it', async () => {
    ok(await agent.call('screenshot'));
    const { agents, live } = captureHelpers(desktop.container!);
    assert.equal(agents.length, 1);
    assert.deepEqual(live, [], 'no live helper while nobody watches');
    const listed = docker('exec', desktop.container!, 'ls', '/run/deskgate').split('\n');
    assert.ok(listed.includes('live.sock') && listed.includes('capture.sock'), listed.join(' '));
  });

  test(`the live socket starts a helper per connection, at most ${LIVE_HELPERS_MAX}; each goes with its connection`, async () => {
    const path = join(runDir, 'live.sock');
    const held: Socket[] = [];
    for (let i = 0; i < LIVE_HELPERS_MAX; i++) {
      const connection = await openLive(path);
      assert.deepEqual(connection.answer, { id: 1, ok: true });
      held.push(connection.socket);
    }
    assert.equal((await liveHelpers(desktop.container!, LIVE_HELPERS_MAX)).length, LIVE_HELPERS_MAX);
    const refused = await openLive(path);
    assert.equal(refused.answer, 'closed', 'a connection beyond the limit is hung up on');
    assert.match(containerLog(desktop.container!), /live view: refused a connection \(2 live helpers already running\)/);
    refused.socket.destroy();
    for (const socket of held) socket.end();
    await liveHelpers(desktop.container!, 0);
    // The agent's helper served on throughout.
    ok(await agent.call('screenshot'));
  });
});

describe('an operator watching it in the console', () => {
  let context: BrowserContext;
  let page: Page;
  let agentsHelper: number;
  before(async () => {
    ({ context, page } = await openConsole(browser, originOf(stack.mcpUrl)));
    await signIn(page, stack.operatorKey);
    await page.waitForSelector('nav >> text=Sessions');
    agentsHelper = captureHelpers(desktop.container!).agents[0]!;
  });
  after(() => context?.close());

  test('the page streams the desktop; the probe\'s colour changed by the agent shows in it', async (t) => {
    await page.goto(`${originOf(stack.mcpUrl)}/console#/live/${SESSION}`);
    await page.waitForFunction(() => (window as unknown as { deskgateLive?: { frames: number } }).deskgateLive?.frames! > 0, undefined, { timeout: 20_000 });
    assert.equal((await liveHelpers(desktop.container!, 1)).length, 1, 'one live helper while watched');
    const area = probe.ready.color_area;
    const [x, y] = [area.x + Math.round(area.width / 2), area.y + Math.round(area.height / 2)];
    await logLivePixel(page, x, y);
    const mark = probe.events().length;
    const { button } = probe.ready;
    ok(await agent.call('screenshot')); // the pixel staleness gate wants a look before the click
    ok(await agent.call('left_click', { coordinate: [button.x + button.width / 2, button.y + button.height / 2] }));
    await probe.waitFor((event) => event.type === 'repainted', 10_000, mark);
    await page.waitForFunction(
      ([r, g, b]) => (window as unknown as { pixelLog: { rgb: number[] }[] }).pixelLog.some(({ rgb }) => Math.abs(rgb[0]! - r!) < 40 && Math.abs(rgb[1]! - g!) < 40 && Math.abs(rgb[2]! - b!) < 40),
      FINAL_COLOR,
      { timeout: 10_000 },
    );
    const shown = (await shownPixels(page)).find(({ rgb }: ShownPixel) => near(rgb, FINAL_COLOR));
    assert.ok(shown, 'the new colour reached the page');
    // The agent sees the same colour in its own screenshot.
    const image = decodeImage(imageOf(ok(await agent.call('screenshot'))).data);
    assert.ok(near(image.pixel(x, y), FINAL_COLOR), `agent's screenshot at (${x}, ${y}): ${image.pixel(x, y)}`);
    t.diagnostic(`frames shown so far: ${await framesShown(page)}`);
  });

  test('the agent\'s screenshots answer while the view streams, from its own helper', async (t) => {
    const animation = startAnimation(desktop);
    t.after(() => animation.kill());
    // Streaming: frames keep arriving in the page.
    const start = await framesShown(page);
    await page.waitForFunction((n) => (window as unknown as { deskgateLive: { frames: number } }).deskgateLive.frames > n + 10, start, { timeout: 20_000 });
    const before = await framesShown(page);
    const took: number[] = [];
    for (let i = 0; i < 10; i++) {
      const began = performance.now();
      const image = decodeImage(imageOf(ok(await agent.call('screenshot'))).data);
      took.push(performance.now() - began);
      assert.equal(image.width, 1280);
    }
    const during = (await framesShown(page)) - before;
    assert.ok(during > 0, 'frames kept arriving while the agent took its screenshots');
    // Two helpers, two connections: the agent's is the one that served it before the page opened.
    assert.deepEqual(captureHelpers(desktop.container!).agents, [agentsHelper]);
    assert.equal(captureHelpers(desktop.container!).live.length, 1);
    took.sort((a, b) => a - b);
    t.diagnostic(`10 screenshots while ${during} frames streamed: p50 ${took[5]!.toFixed(1)} ms, max ${took[9]!.toFixed(1)} ms`);
  });

  test('closing the page stops the live helper in the container', async (t) => {
    await page.close();
    // The gateway's watch lease lapses (2 s), the worker hangs up, the helper exits.
    await liveHelpers(desktop.container!, 0);
    assert.deepEqual(captureHelpers(desktop.container!).agents, [agentsHelper]);
    // The same screenshots on the same moving screen with nobody watching, for comparison.
    const animation = startAnimation(desktop);
    t.after(() => animation.kill());
    await sleep(1000);
    const took: number[] = [];
    for (let i = 0; i < 10; i++) {
      const began = performance.now();
      assert.equal(decodeImage(imageOf(ok(await agent.call('screenshot'))).data).width, 1280);
      took.push(performance.now() - began);
    }
    took.sort((a, b) => a - b);
    t.diagnostic(`10 screenshots, nobody watching: p50 ${took[5]!.toFixed(1)} ms, max ${took[9]!.toFixed(1)} ms`);
    assert.deepEqual(captureHelpers(desktop.container!).live, [], 'screenshots start no live helper');
  });
});
