/**
 * Anthropic's `computer` tool at /computer: an Anthropic-style action sequence (screenshot,
 * left_click, type, key, scroll, zoom) has the same effects on the probe app as the native
 * tools, through the same gates. The tenant policy grants the probe on start, as an agent loop
 * written for Anthropic's tool never calls request_access.
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
import { closeTo, decodeJpeg, hex } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { Probe, type Rect } from '../support/probe.ts';

const dir = mkdtempSync(join(tmpdir(), 'deskgate-computer-'));
const policyFile = join(dir, 'policy.json');
writeFileSync(policyFile, JSON.stringify({ default: { grantOnStart: { apps: ['DeskgateProbe'] } } }));
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
  const shot = decodeJpeg(imageOf(await computer.call('computer', { action: 'screenshot' })).data);
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
  const scrolled = await computer.call('computer', { action: 'scroll', coordinate: centre(area), scroll_direction: 'down', scroll_amount: 3 });
  assert.ok(!scrolled.isError, JSON.stringify(scrolled).slice(0, 600));
  await sleep(200);
  assert.equal(probe.since(skip).filter((e) => e.type === 'press' && e.button === 5).length, 3);

  const zoomed = decodeJpeg(imageOf(await computer.call('computer', { action: 'zoom', region: [area.x + 10, area.y + 10, area.x + 110, area.y + 60] })).data);
  assert.deepEqual([zoomed.width, zoomed.height], [100, 50]);
  assert.ok(closeTo(zoomed.pixel(50, 25), hex(COLOR)));

  // Anthropic's clicks may omit the coordinate: they click where the pointer is.
  assert.ok(!(await computer.call('computer', { action: 'mouse_move', coordinate: centre(button) })).isError);
  assert.equal(textOf(await computer.call('computer', { action: 'cursor_position' })), `(${centre(button).join(', ')})`);
  skip = probe.events().length;
  assert.ok(!(await computer.call('computer', { action: 'left_click' })).isError);
  await probe.waitFor((e) => e.type === 'button' && e.name === 'click_me', 5000, skip);
});

test('the computer tool goes through the same gates and validation', async () => {
  const blocked = await computer.call('computer', { action: 'key', text: 'ctrl+alt+backspace' });
  assert.equal(errorKind(blocked), 'blocked_key_combo');
  const bad = await computer.call('computer', { action: 'scroll', coordinate: [10, 10], scroll_direction: 'down', scroll_amount: 1000 });
  assert.equal(errorKind(bad), 'bad_args');
  assert.equal(errorKind(await computer.call('computer', { action: 'fly' })), 'bad_args');
});
