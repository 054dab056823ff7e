import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callTool, describeTools, parseCall, toolContext } from './dispatch.ts';
import { ToolError } from './errors.ts';
import { initialSessionState } from './session-state.ts';
import type { Executor } from './executor.ts';
import { defaultPolicy } from './access/policy.ts';
import type { ToolContext } from './tools/define-tool.ts';

const contextOf = (executor: Executor, state = initialSessionState()): ToolContext => toolContext({ executor, state, signal: new AbortController().signal, policy: defaultPolicy(), approvals: null });

test('the tool list is pinned', () => {
  assert.deepEqual(
    describeTools({ coordinateMode: 'pixels' }).map((tool) => tool.name),
    ['request_access', 'list_granted_applications', 'screenshot', 'zoom', 'left_click', 'double_click', 'triple_click', 'right_click', 'middle_click', 'mouse_move', 'left_click_drag', 'left_mouse_down', 'left_mouse_up', 'scroll', 'cursor_position', 'type', 'key', 'hold_key', 'open_application', 'switch_display', 'read_clipboard', 'write_clipboard', 'wait', 'computer_batch'],
  );
});

test('the /computer surface offers the computer tool and the grant tools', () => {
  assert.deepEqual(describeTools({ coordinateMode: 'pixels' }, 'computer').map((tool) => tool.name), ['computer', 'request_access', 'list_granted_applications']);
});

test('descriptions state the coordinate mode in force', () => {
  const click = (mode: 'pixels' | 'normalized_0_100') => describeTools({ coordinateMode: mode }).find((t) => t.name === 'left_click')!.description;
  assert.match(click('pixels'), /pixels of the last screenshot/);
  assert.match(click('normalized_0_100'), /percent of the display/);
});

test('every schema is a JSON Schema object', () => {
  for (const tool of describeTools({ coordinateMode: 'pixels' })) assert.equal(tool.inputSchema.type, 'object', tool.name);
});

const badArgs = (name: string, args: unknown) => {
  try {
    parseCall(name, args);
  } catch (error) {
    assert.ok(error instanceof ToolError);
    assert.equal(error.kind, 'bad_args');
    return error.message;
  }
  assert.fail(`${name} accepted ${JSON.stringify(args)}`);
};

test('invalid arguments name the field and the problem', () => {
  assert.match(badArgs('left_click', {}), /coordinate/);
  assert.match(badArgs('left_click', { coordinate: ['a', 1] }), /coordinate\.0/);
  assert.match(badArgs('left_click', { coordinate: [1, 2, 3] }), /exactly two numbers/);
  assert.match(badArgs('left_click', { coordinate: [-1, 2] }), /coordinate\.0/);
  assert.match(badArgs('scroll', { coordinate: [1, 1], scroll_direction: 'sideways', scroll_amount: 1 }), /scroll_direction/);
  assert.match(badArgs('scroll', { coordinate: [1, 1], scroll_direction: 'up', scroll_amount: 101 }), /scroll_amount/);
  assert.match(badArgs('key', { text: 'a', repeat: 0 }), /repeat/);
  assert.match(badArgs('key', { text: '' }), /cannot be empty/);
  assert.match(badArgs('wait', { duration: 101 }), /duration/);
  assert.match(badArgs('wait', { duration: Number.NaN }), /duration/);
  assert.match(badArgs('type', { text: 'x'.repeat(20_001) }), /20000 characters/);
  assert.match(badArgs('screenshot', { bogus: 1 }), /bogus/);
  assert.match(badArgs('no_such_tool', {}), /Unknown tool/);
});

test('a click before any screenshot asks for one and touches nothing', async () => {
  const touched: string[] = [];
  const executor = new Proxy({}, { get: (_t, prop) => async () => void touched.push(String(prop)) }) as Executor;
  const state = initialSessionState();
  state.grants.apps.push({ app: 'xterm', tier: 'click', category: 'terminal' });
  const result = await callTool('left_click', { coordinate: [10, 10] }, contextOf(executor, state));
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent?.error?.kind, 'no_screenshot');
  assert.deepEqual(touched, []);
});

test('zoom and batch arguments are checked before anything runs', () => {
  assert.match(badArgs('zoom', { region: [0, 0, 10] }), /exactly four integers/);
  assert.match(badArgs('zoom', { region: [0, 0, 10.5, 10] }), /region\.2/);
  assert.match(badArgs('computer_batch', { actions: [] }), /at least one action/);
  assert.match(badArgs('computer_batch', { actions: Array.from({ length: 51 }, () => ({ action: 'wait', duration: 0 })) }), /at most 50 actions/);
  assert.match(badArgs('computer_batch', { actions: [{ action: 'zoom', region: [0, 0, 1, 1] }] }), /actions\.0/);
});

const spy = () => {
  const touched: string[] = [];
  const executor = new Proxy({}, { get: (_t, prop) => async () => void touched.push(String(prop)) }) as Executor;
  return { touched, executor };
};

test('a batch with one bad action runs none of them', async () => {
  const { touched, executor } = spy();
  const result = await callTool(
    'computer_batch',
    { actions: [{ action: 'key', text: 'a' }, { action: 'scroll', coordinate: [1, 1], scroll_direction: 'up', scroll_amount: 500 }] },
    contextOf(executor),
  );
  assert.equal(result.structuredContent?.error?.kind, 'bad_args');
  assert.match(result.content[0]!.type === 'text' ? result.content[0]!.text : '', /actions\[1\] \(scroll\).*scroll_amount.*Nothing in the batch was run/);
  assert.deepEqual(touched, []);
});

test('a batch whose waits add up past the ceiling is refused whole', async () => {
  const { touched, executor } = spy();
  const result = await callTool('computer_batch', { actions: [{ action: 'wait', duration: 60 }, { action: 'key', text: 'a' }, { action: 'wait', duration: 60 }] }, contextOf(executor));
  assert.equal(result.structuredContent?.error?.kind, 'bad_args');
  assert.deepEqual(touched, []);
});
