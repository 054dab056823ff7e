/**
 * Settled screenshots on the real stack: an app that repaints slowly after a click (nothing for
 * 400 ms, then 300 ms of animation, then its final colour) is shown in its final frame in the
 * click's own reply — on /computer, and on /mcp with ?screenshot_after=settled — and an action
 * on a still screen answers within a small quiet window, not after a fixed sleep. (The probe's
 * caret does not blink: a blinking caret redraws its text box every few hundred ms, so a screen
 * with one is never still — see docs/capture-helper.md.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { closeTo, decodeImage, hex } from '../support/image.ts';
import { connect, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { Probe, type Rect } from '../support/probe.ts';

const FINAL = '#00cc44';
const ORIGINAL = '#3366cc';
/** The quiet window the settle wait uses, plus slack for a loaded machine. */
const STILL_SCREEN_BOUND_MS = 600;

let stack: Stack;
let redis: Redis;
let native: McpConnection;
let computer: McpConnection;
let probe: Probe;
const centre = (r: Rect): [number, number] => [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)];
const settleOf = (result: ToolResult) => (result.structuredContent as { settle?: { settled: boolean; waitedMs: number } }).settle;

before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0' }, tenant: 'settle', logDir: mkdtempSync(join(tmpdir(), 'deskgate-settle-')) });
  redis = new Redis(stack.redisUrl);
  native = await connect('2026-07-28', `${stack.mcpUrl}/settle?screenshot_after=settled`, stack.apiKey);
  assert.ok(!(await native.call('request_access', { apps: ['DeskgateProbe'], reason: 'settle test' })).isError);
  const { display, xauthority } = await desktopOf(redis, 'settle', 'settle');
  probe = await Probe.start(display, { geometry: '600x420+40+40', color: ORIGINAL, slowRepaint: true, steadyCaret: true, xauthority });
  computer = await connect('2026-07-28', `${stack.mcpUrl.replace(/\/mcp$/, '/computer')}/settle`, stack.apiKey);
});
after(async () => {
  probe?.stop();
  await native?.close();
  await computer?.close();
  redis?.disconnect();
  await stack?.stop();
});

async function repaintTo(color: string): Promise<void> {
  // Put the probe back to its original colour between tests, from outside the agent's view.
  probe.stop();
  const { display, xauthority } = await desktopOf(redis, 'settle', 'settle');
  probe = await Probe.start(display, { geometry: '600x420+40+40', color, slowRepaint: true, steadyCaret: true, xauthority });
}

test('/mcp?screenshot_after=settled: the click that starts a slow redraw replies with its final frame', async () => {
  assert.ok(!(await native.call('screenshot')).isError);
  const clicked = await native.call('left_click', { coordinate: centre(probe.ready.button) });
  assert.ok(!clicked.isError, textOf(clicked));
  const settle = settleOf(clicked);
  assert.equal(settle?.settled, true, JSON.stringify(settle));
  assert.ok(settle!.waitedMs >= 400 + 300, `waited ${settle!.waitedMs} ms: past the delay and the animation`);
  const shot = decodeImage(imageOf(clicked).data);
  assert.ok(closeTo(shot.pixel(...centre(probe.ready.color_area)), hex(FINAL)), 'the reply shows the final colour');
  await probe.waitFor((event) => event.type === 'repainted', 2000);
});

test('/computer: every action replies with the settled screen; a still screen answers within the quiet window', async () => {
  await repaintTo(ORIGINAL);
  const first = await computer.call('computer', { action: 'screenshot' });
  assert.ok(!first.isError, textOf(first));
  const still = await computer.call('computer', { action: 'mouse_move', coordinate: centre(probe.ready.color_area) });
  assert.ok(!still.isError, textOf(still));
  const quiet = settleOf(still);
  assert.equal(quiet?.settled, true);
  assert.ok(quiet!.waitedMs < STILL_SCREEN_BOUND_MS, `a still screen settled after ${quiet!.waitedMs} ms`);

  const clicked = await computer.call('computer', { action: 'left_click', coordinate: centre(probe.ready.button) });
  assert.ok(!clicked.isError, textOf(clicked));
  assert.equal(settleOf(clicked)?.settled, true);
  const shot = decodeImage(imageOf(clicked).data);
  assert.ok(closeTo(shot.pixel(...centre(probe.ready.color_area)), hex(FINAL)), 'the reply shows the final colour, not a frame of the animation');
});
