/**
 * Anthropic's `computer` tool at /computer: an Anthropic-style action sequence (screenshot,
 * left_click, type, key, scroll, zoom) has the same effects on the probe app as the native
 * tools, through the same gates; a scripted agent loop (no model) drives every action of
 * computer_20250124/20251124 plus open_application and gets a screenshot with each, as the
 * reference loop expects. The tenant policy grants the probe (and xterm) on start, as an agent
 * loop written for Anthropic's tool never calls request_access. The native endpoint's
 * ?screenshot_after=settled gives native tools that act the same settled screenshot.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { closeTo, decodeImage, hex } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { Probe, type ProbeEvent, type Rect } from '../support/probe.ts';

const dir = mkdtempSync(join(tmpdir(), 'deskgate-computer-'));
const policyFile = join(dir, 'policy.json');
writeFileSync(policyFile, JSON.stringify({ default: { grantOnStart: { apps: ['DeskgateProbe', 'xterm'] } } }));
const COLOR = '#3366cc';

let stack: Stack;
let redis: Redis;
let computer: McpConnection;
let probe: Probe;
const centre = (r: Rect): [number, number] => [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)];

before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_POLICY_FILE: policyFile }, logDir: dir });
  redis = new Redis(stack.redisUrl);
  computer = await connect('2025-11-25', `${stack.mcpUrl.replace(/\/mcp$/, '/computer')}/anthropic`, stack.apiKey);
});
after(async () => {
  probe?.stop();
  await computer?.close();
  redis?.disconnect();
  await stack?.stop();
});

test('the /computer endpoint offers the computer tool and the grant tools only', async () => {
  assert.deepEqual((await computer.listTools()).map((tool) => tool.name), ['computer', 'request_access', 'list_granted_applications']);
  const native = await computer.call('left_click', { coordinate: [1, 1] });
  assert.equal(errorKind(native), 'bad_args');
  assert.match(textOf(native), /\/mcp endpoint/);
});

test('an Anthropic-style action sequence has the same effects as the native tools', async () => {
  const first = await computer.call('computer', { action: 'screenshot' });
  assert.ok(!first.isError, `the policy granted the probe on start: ${textOf(first)}`);
  probe = await Probe.start((await desktopOf(redis, stack.tenant, 'anthropic')).display, { color: COLOR });
  const { button, text, color_area: area } = probe.ready;
  const shot = decodeImage(imageOf(await computer.call('computer', { action: 'screenshot' })).data);
  assert.ok(closeTo(shot.pixel(...centre(area)), hex(COLOR)));

  let skip = probe.events().length;
  assert.ok(!(await computer.call('computer', { action: 'left_click', coordinate: centre(button) })).isError);
  await probe.waitFor((e) => e.type === 'button' && e.name === 'click_me', 5000, skip);

  await computer.call('computer', { action: 'left_click', coordinate: centre(text) });
  skip = probe.events().length;
  assert.ok(!(await computer.call('computer', { action: 'type', text: 'Hello, wörld — 日本語 ✓' })).isError);
  await probe.waitFor((e) => e.type === 'text' && e.value === 'Hello, wörld — 日本語 ✓', 5000, skip);
  assert.ok(!(await computer.call('computer', { action: 'key', text: 'ctrl+a' })).isError);
  await probe.waitFor((e) => e.type === 'select_all', 5000, skip);

  skip = probe.events().length;
  const scrolledFrom = skip;
  const wheelDown = (e: ProbeEvent) => e.type === 'press' && e.button === 5;
  const scrolled = await computer.call('computer', { action: 'scroll', coordinate: centre(area), scroll_direction: 'down', scroll_amount: 3 });
  assert.ok(!scrolled.isError, JSON.stringify(scrolled).slice(0, 600));
  assert.equal((await probe.waitForCount(wheelDown, 3, 5000, skip)).length, 3);

  const zoomed = decodeImage(imageOf(await computer.call('computer', { action: 'zoom', region: [area.x + 10, area.y + 10, area.x + 110, area.y + 60] })).data);
  assert.deepEqual([zoomed.width, zoomed.height], [100, 50]);
  assert.ok(closeTo(zoomed.pixel(50, 25), hex(COLOR)));

  // Anthropic's clicks may omit the coordinate: they click where the pointer is.
  assert.ok(!(await computer.call('computer', { action: 'mouse_move', coordinate: centre(button) })).isError);
  assert.equal(textOf(await computer.call('computer', { action: 'cursor_position' })), `X=${centre(button)[0]},Y=${centre(button)[1]}`);
  skip = probe.events().length;
  assert.ok(!(await computer.call('computer', { action: 'left_click' })).isError);
  await probe.waitFor((e) => e.type === 'button' && e.name === 'click_me', 5000, skip);
  // That click reached the app after anything the scroll sent: exactly 3 wheel presses, no late extra.
  assert.equal(probe.since(scrolledFrom).filter(wheelDown).length, 3);
});

test('the computer tool goes through the same gates and validation', async () => {
  const blocked = await computer.call('computer', { action: 'key', text: 'ctrl+alt+backspace' });
  assert.equal(errorKind(blocked), 'blocked_key_combo');
  const bad = await computer.call('computer', { action: 'scroll', coordinate: [10, 10], scroll_direction: 'down', scroll_amount: 1000 });
  assert.equal(errorKind(bad), 'bad_args');
  assert.equal(errorKind(await computer.call('computer', { action: 'fly' })), 'bad_args');
});

interface ComputerReply extends ToolResult {
  structuredContent?: ToolResult['structuredContent'] & { action?: string; settle?: { settled: boolean; waitedMs: number; error?: string }; x?: number; y?: number };
}

test('a scripted Anthropic loop: every action, the reference parameters, a screenshot with each', async () => {
  const { button, text, color_area: area } = probe.ready;
  const [bx, by] = centre(button);
  const [tx, ty] = centre(text);
  const [ax, ay] = centre(area);
  // The tool_use inputs a model would send, in the order a loop might send them, each with what the probe must see.
  const script: { input: Record<string, unknown>; saw?: (events: ProbeEvent[]) => boolean }[] = [
    { input: { action: 'screenshot' } },
    { input: { action: 'mouse_move', coordinate: [bx, by] } },
    { input: { action: 'cursor_position' } },
    { input: { action: 'left_click' }, saw: (e) => e.some((x) => x.type === 'button' && x.name === 'click_me') },
    { input: { action: 'left_click', coordinate: [tx, ty] }, saw: (e) => e.some((x) => x.type === 'release' && x.widget === 'text') },
    { input: { action: 'type', text: 'loop ✓' }, saw: (e) => e.some((x) => x.type === 'text' && String(x.value).includes('loop ✓')) },
    { input: { action: 'key', text: 'ctrl+a' }, saw: (e) => e.some((x) => x.type === 'select_all') },
    { input: { action: 'double_click', coordinate: [tx, ty] }, saw: (e) => e.filter((x) => x.type === 'press' && x.button === 1).length === 2 },
    { input: { action: 'triple_click', coordinate: [tx, ty] }, saw: (e) => e.filter((x) => x.type === 'press' && x.button === 1).length === 3 },
    { input: { action: 'right_click', coordinate: [ax, ay] }, saw: (e) => e.some((x) => x.type === 'press' && x.button === 3) },
    { input: { action: 'middle_click', coordinate: [ax, ay] }, saw: (e) => e.some((x) => x.type === 'press' && x.button === 2) },
    { input: { action: 'left_click', coordinate: [ax, ay], text: 'shift' }, saw: (e) => e.some((x) => x.type === 'press' && x.button === 1 && (Number(x.state) & 1) === 1) },
    { input: { action: 'scroll', coordinate: [ax, ay], scroll_direction: 'down', scroll_amount: 2 }, saw: (e) => e.filter((x) => x.type === 'press' && x.button === 5).length === 2 },
    { input: { action: 'scroll', scroll_direction: 'up', scroll_amount: 1, text: 'shift' }, saw: (e) => e.some((x) => x.type === 'press' && x.button === 4 && (Number(x.state) & 1) === 1) },
    { input: { action: 'left_click_drag', start_coordinate: [ax - 40, ay], coordinate: [ax + 40, ay + 10], text: 'shift' }, saw: (e) => e.some((x) => x.type === 'press' && x.button === 1 && (Number(x.state) & 1) === 1) && e.some((x) => x.type === 'release' && x.button === 1) },
    { input: { action: 'left_mouse_down' }, saw: (e) => e.some((x) => x.type === 'press' && x.button === 1) },
    { input: { action: 'mouse_move', coordinate: [ax - 20, ay - 10] }, saw: (e) => e.some((x) => x.type === 'motion_drag') },
    { input: { action: 'left_mouse_up' }, saw: (e) => e.some((x) => x.type === 'release' && x.button === 1) },
    { input: { action: 'left_click', coordinate: [tx, ty] } },
    { input: { action: 'hold_key', text: 'shift', duration: 0.3 }, saw: (e) => e.some((x) => x.type === 'key' && String(x.keysym).startsWith('Shift')) && e.some((x) => x.type === 'key_release') },
    { input: { action: 'wait', duration: 0.2 } },
    { input: { action: 'zoom', region: [area.x, area.y, area.x + 200, area.y + 100] } },
    { input: { action: 'open_application', text: 'xterm' } },
  ];
  const settles: string[] = [];
  for (const { input, saw } of script) {
    const skip = probe.events().length;
    const label = JSON.stringify(input);
    const reply = (await computer.call('computer', input)) as ComputerReply;
    assert.ok(!reply.isError, `${label}: ${textOf(reply)}`);
    if (input.action === 'cursor_position') {
      assert.equal(textOf(reply), `X=${bx},Y=${by}`, label);
      assert.ok(!reply.content.some((block) => block.type === 'image'), 'cursor_position answers in text, as the reference');
    } else {
      const image = decodeImage(imageOf(reply).data);
      const size = input.action === 'zoom' ? [200, 100] : [1280, 800];
      assert.deepEqual([image.width, image.height], size, label);
    }
    const acts = !['screenshot', 'zoom', 'cursor_position'].includes(String(input.action));
    if (acts) {
      const settle = reply.structuredContent?.settle;
      assert.ok(settle && typeof settle.settled === 'boolean' && settle.waitedMs >= 0, `${label}: ${JSON.stringify(reply.structuredContent)}`);
      // Never longer than the reference loop's fixed 2 s (plus scheduling slack).
      assert.ok(settle.waitedMs <= 2300, `${label}: waited ${settle.waitedMs} ms`);
      settles.push(`${input.action}:${settle.settled ? `${settle.waitedMs}ms` : settle.error ? 'unwatched' : 'busy'}`);
    }
    if (saw) {
      const until = Date.now() + 5000;
      while (!saw(probe.since(skip)) && Date.now() < until) await sleep(50);
      assert.ok(saw(probe.since(skip)), `${label}: the probe saw ${JSON.stringify(probe.since(skip)).slice(0, 600)}`);
    }
  }
  console.log(`settle per action: ${settles.join(' ')}`);
});

test('the reference refusals: a parameter an action does not take is bad_args and nothing happens', async () => {
  const skip = probe.events().length;
  for (const input of [{ action: 'type', text: 'x', coordinate: [10, 10] }, { action: 'key', text: 'a', coordinate: [10, 10] }, { action: 'left_mouse_down', coordinate: [10, 10] }, { action: 'key', text: 'a', repeat: 2 }, { action: 'screenshot', text: 'x' }]) {
    const reply = await computer.call('computer', input);
    assert.equal(errorKind(reply), 'bad_args', JSON.stringify(input));
  }
  await sleep(200);
  assert.deepEqual(probe.since(skip).filter((e) => e.type !== 'motion'), []);
});

test('the native endpoint: ?screenshot_after=settled adds the settled screenshot to tools that act, and only to them', async () => {
  const native = await connect('2026-07-28', `${stack.mcpUrl}/anthropic?screenshot_after=settled`, stack.apiKey);
  try {
    assert.ok(!(await native.call('screenshot')).isError);
    const [ax, ay] = centre(probe.ready.color_area);
    const clicked = (await native.call('left_click', { coordinate: [ax, ay] })) as ComputerReply;
    assert.ok(!clicked.isError, textOf(clicked));
    assert.deepEqual([decodeImage(imageOf(clicked).data).width, decodeImage(imageOf(clicked).data).height], [1280, 800]);
    assert.equal(typeof clicked.structuredContent?.settle?.settled, 'boolean');
    const listed = (await native.call('list_granted_applications')) as ComputerReply;
    assert.ok(!listed.content.some((block) => block.type === 'image'), 'a tool that does not act gets no screenshot');
    const plain = await connect('2026-07-28', `${stack.mcpUrl}/anthropic`, stack.apiKey);
    const unsettled = await plain.call('left_click', { coordinate: [ax, ay] });
    assert.ok(!unsettled.content.some((block) => block.type === 'image'), 'off by default');
    await plain.close();
  } finally {
    await native.close();
  }
});
