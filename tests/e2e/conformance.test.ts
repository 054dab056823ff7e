/**
 * Conformance of every tool's arguments through the official MCP client on the real stack:
 * each invalid parameter of each tool gets a bad_args tool error naming the parameter, and
 * the server keeps serving. (The valid calls and their effects are in the other suites:
 * vertical-slice, gates, computer-tool, displays-and-apps.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { allTools } from '@deskgate/computer-use';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { connect, errorKind, textOf, type McpConnection } from '../support/mcp-clients.ts';

const XY = [10, 10];
/** tool → invalid arguments → the text the error must name. */
const INVALID: Record<string, [Record<string, unknown>, RegExp][]> = {
  request_access: [[{ reason: 'r' }, /apps/], [{ apps: [], reason: 'r' }, /at least one app/], [{ apps: ['x'], reason: '' }, /say why/], [{ apps: ['x'], reason: 'r', clipboardRead: 'yes' }, /clipboardRead/]],
  list_granted_applications: [[{ extra: 1 }, /extra/]],
  screenshot: [[{ save_to_disk: 'yes' }, /save_to_disk/]],
  zoom: [[{}, /region/], [{ region: [0, 0, 10] }, /four integers/], [{ region: [0, 0, 1.5, 2] }, /region/], [{ region: [-1, 0, 10, 10] }, /region/]],
  left_click: [[{}, /coordinate/], [{ coordinate: [1] }, /two numbers/], [{ coordinate: ['a', 1] }, /coordinate/], [{ coordinate: XY, text: 5 }, /text/]],
  double_click: [[{ coordinate: [Number.MAX_VALUE, 1] }, /coordinate/]],
  triple_click: [[{ coordinate: [1, -1] }, /coordinate/]],
  right_click: [[{ coordinate: XY, button: 'x' }, /button/]],
  middle_click: [[{ coordinate: null }, /coordinate/]],
  mouse_move: [[{}, /coordinate/]],
  left_click_drag: [[{ start_coordinate: XY }, /coordinate/], [{ coordinate: XY, start_coordinate: [1, 2, 3] }, /start_coordinate/]],
  left_mouse_down: [[{ coordinate: XY }, /coordinate/]],
  left_mouse_up: [[{ button: 'left' }, /button/]],
  scroll: [[{ coordinate: XY, scroll_direction: 'up' }, /scroll_amount/], [{ coordinate: XY, scroll_direction: 'in', scroll_amount: 1 }, /scroll_direction/], [{ coordinate: XY, scroll_direction: 'up', scroll_amount: 101 }, /scroll_amount/], [{ coordinate: XY, scroll_direction: 'up', scroll_amount: 1.5 }, /scroll_amount/]],
  cursor_position: [[{ mode: 'x' }, /mode/]],
  type: [[{}, /text/], [{ text: 42 }, /text/], [{ text: 'x'.repeat(20_001) }, /20000/]],
  key: [[{}, /text/], [{ text: '' }, /empty/], [{ text: 'a', repeat: 0 }, /repeat/], [{ text: 'a', repeat: 101 }, /repeat/], [{ text: 'x'.repeat(201) }, /text/]],
  hold_key: [[{ text: 'shift' }, /duration/], [{ text: 'shift', duration: 101 }, /duration/], [{ text: 'shift', duration: -1 }, /duration/]],
  open_application: [[{}, /app/], [{ app: '' }, /app/]],
  switch_display: [[{}, /display/], [{ display: '' }, /display/]],
  read_clipboard: [[{ text: 'x' }, /text/]],
  write_clipboard: [[{}, /text/], [{ text: 'x'.repeat(200_001) }, /200000/]],
  wait: [[{}, /duration/], [{ duration: 100.5 }, /duration/], [{ duration: 'soon' }, /duration/]],
  computer_batch: [[{ actions: [] }, /at least one/], [{ actions: [{ action: 'zoom' }] }, /actions/], [{ actions: Array.from({ length: 51 }, () => ({ action: 'wait', duration: 0 })) }, /at most 50/], [{ actions: [{ action: 'wait', duration: 0 }, { action: 'key' }] }, /actions\[1\]/]],
};

let stack: Stack;
let mcp: McpConnection;

before(async () => {
  // The bad-argument table is ~50 calls in a burst, near the default 100 calls per second on a
  // quick host; the rate limit has its own test (quotas.test.ts).
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_TENANT_CALLS_PER_SECOND: '0' }, logDir: mkdtempSync(join(tmpdir(), 'deskgate-conf-')) });
  mcp = await connect('2026-07-28', `${stack.mcpUrl}/conformance`, stack.apiKey);
});
after(async () => {
  await mcp?.close();
  await stack?.stop();
});

test('the table covers every native tool', () => {
  assert.deepEqual(Object.keys(INVALID).sort(), allTools.map((tool) => tool.name).sort());
});

for (const [tool, cases] of Object.entries(INVALID)) {
  test(`${tool}: each invalid parameter gets a clear bad_args error`, async () => {
    for (const [args, names] of cases) {
      const result = await mcp.call(tool, args);
      assert.equal(errorKind(result), 'bad_args', `${tool} ${JSON.stringify(args).slice(0, 100)} → ${textOf(result).slice(0, 200)}`);
      assert.match(textOf(result), names, `${tool} ${JSON.stringify(args).slice(0, 100)}`);
    }
  });
}

test('after all of that the server still serves', async () => {
  assert.ok(!(await mcp.call('request_access', { apps: ['xterm'], reason: 'conformance' })).isError);
  assert.ok(!(await mcp.call('screenshot')).isError);
});
