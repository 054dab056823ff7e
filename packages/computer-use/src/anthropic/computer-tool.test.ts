/**
 * The computer tool against a recording desktop: each action of computer_20250124/20251124 runs
 * the native tool of the same meaning with the reference's parameters, is refused for a
 * parameter the reference does not take, and replies as the reference does — a settled
 * screenshot after every action that acts, "X=..,Y=.." for cursor_position.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultPolicy } from '../access/policy.ts';
import { callTool, type ToolCallResult } from '../dispatch.ts';
import type { AppInfo, Executor, GateFacts, SettleRequest, WindowSurface, WindowInfo } from '../executor.ts';
import type { Point } from '../geometry/coordinates.ts';
import { initialSessionState } from '../session-state.ts';
import { SETTLE_MAX_MS, SETTLE_QUIET_MS } from '../tools/settled-screenshot.ts';
import { ACTION_NAMES, toNative } from './actions.ts';

const PROBE: WindowInfo = { window: 7, title: 'probe', wmClass: ['probe', 'DeskgateProbe'], pid: 1, exe: null, x: 0, y: 0, width: 1280, height: 800, mapped: true };
const onProbe: WindowSurface = { kind: 'client', window: 7, app: PROBE as AppInfo };

function desktop({ settle = async () => ({ settled: true, waitedMs: 42 }) }: { settle?: (request: SettleRequest) => Promise<{ settled: boolean; waitedMs: number }> } = {}) {
  const log: string[] = [];
  let pointer: Point = { x: 640, y: 400 };
  const executor = {
    monitors: async () => [{ name: 'DG-1', x: 0, y: 0, width: 1280, height: 800, primary: true }],
    capture: async () => (log.push('capture'), { data: Buffer.from('jpeg'), width: 1280, height: 800, mimeType: 'image/jpeg', timings: {} }),
    listWindows: async () => [PROBE],
    gateFacts: async (points: Point[]): Promise<GateFacts> => ({ windows: [PROBE], focus: onProbe, at: points.map(() => onProbe), cursor: pointer, underPointer: onProbe, buttonsHeld: [] }),
    unchangedSince: async () => true,
    activate: async () => undefined,
    readClipboard: async () => null,
    writeClipboard: async () => undefined,
    cursorPosition: async () => pointer,
    move: async (to: Point) => (log.push(`move ${to.x},${to.y}`), (pointer = to)),
    click: async (at: Point, button: string, count: number, mods: string[]) => void log.push(`click ${button}x${count} ${at.x},${at.y}${mods.length ? ` +${mods.join('+')}` : ''}`),
    drag: async (from: Point | null, to: Point, mods: string[]) => void log.push(`drag ${from ? `${from.x},${from.y}` : 'pointer'} → ${to.x},${to.y}${mods.length ? ` +${mods.join('+')}` : ''}`),
    scroll: async (at: Point, direction: string, amount: number, mods: string[]) => void log.push(`scroll ${direction}x${amount} ${at.x},${at.y}${mods.length ? ` +${mods.join('+')}` : ''}`),
    mouseDown: async () => void log.push('down'),
    mouseUp: async () => void log.push('up'),
    type: async (text: string) => void log.push(`type ${text}`),
    key: async (chords: number[][], repeat: number) => void log.push(`key ${chords.length} chord(s) x${repeat}`),
    holdKey: async (_chords: number[][], seconds: number) => void log.push(`hold ${seconds}`),
    waitForSettle: async (request: SettleRequest) => (log.push(`settle ${request.quietMs}/${request.maxMs}`), settle(request)),
    guard: () => undefined,
  } as unknown as Executor;
  const state = initialSessionState();
  state.grants.apps.push({ app: 'DeskgateProbe', tier: 'full', category: 'other' });
  const context = { executor, state, signal: new AbortController().signal, policy: defaultPolicy(), approvals: null };
  const call = (args: Record<string, unknown>) => callTool('computer', args, context);
  return { call, log, state };
}

const texts = (result: ToolCallResult) => result.content.filter((block) => block.type === 'text').map((block) => (block as { text: string }).text);
const images = (result: ToolCallResult) => result.content.filter((block) => block.type === 'image').length;

test('every action of both reference versions (and open_application) maps to its native tool', () => {
  const native = Object.fromEntries(ACTION_NAMES.map((action) => [action, toNative({ action, ...requiredArgs(action) }).tool]));
  assert.deepEqual(native, {
    screenshot: 'screenshot', zoom: 'zoom', cursor_position: 'cursor_position',
    left_click: 'left_click', right_click: 'right_click', middle_click: 'middle_click', double_click: 'double_click', triple_click: 'triple_click',
    mouse_move: 'mouse_move', left_click_drag: 'left_click_drag', left_mouse_down: 'left_mouse_down', left_mouse_up: 'left_mouse_up',
    scroll: 'scroll', type: 'type', key: 'key', hold_key: 'hold_key', wait: 'wait', open_application: 'open_application',
  });
  assert.deepEqual(toNative({ action: 'open_application', text: 'xterm' }).args, { app: 'xterm' });
});

function requiredArgs(action: string): Record<string, unknown> {
  const all: Record<string, Record<string, unknown>> = {
    zoom: { region: [0, 0, 10, 10] }, mouse_move: { coordinate: [1, 1] }, left_click_drag: { coordinate: [1, 1] },
    scroll: { scroll_direction: 'down', scroll_amount: 1 }, type: { text: 'a' }, key: { text: 'a' }, hold_key: { text: 'a', duration: 0 },
    wait: { duration: 0 }, open_application: { text: 'xterm' },
  };
  return all[action] ?? {};
}

test('parameters the reference refuses are refused, naming them, and nothing runs', async () => {
  const { call, log } = desktop();
  await call({ action: 'screenshot' });
  log.length = 0;
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ action: 'type', text: 'hi', coordinate: [5, 5] }, /coordinate is not accepted for type/],
    [{ action: 'key', text: 'Return', coordinate: [5, 5] }, /coordinate is not accepted for key/],
    [{ action: 'key' }, /text is required for key/],
    [{ action: 'mouse_move', coordinate: [5, 5], text: 'shift' }, /text is not accepted for mouse_move/],
    [{ action: 'mouse_move' }, /coordinate is required for mouse_move/],
    [{ action: 'screenshot', coordinate: [5, 5] }, /coordinate is not accepted for screenshot/],
    [{ action: 'cursor_position', text: 'x' }, /text is not accepted for cursor_position/],
    [{ action: 'left_mouse_down', coordinate: [5, 5] }, /coordinate is not accepted for left_mouse_down/],
    [{ action: 'left_click_drag', start_coordinate: [1, 1] }, /coordinate is required for left_click_drag/],
    [{ action: 'scroll', scroll_direction: 'down' }, /scroll_amount is required for scroll/],
    [{ action: 'wait' }, /duration is required for wait/],
    [{ action: 'hold_key', duration: 1 }, /text is required for hold_key/],
    [{ action: 'zoom' }, /region is required for zoom/],
    [{ action: 'key', text: 'a', repeat: 3 }, /repeat/],
    [{ action: 'fly' }, /action/],
  ];
  for (const [args, message] of cases) {
    const result = await call(args);
    assert.equal(result.structuredContent?.error?.kind, 'bad_args', JSON.stringify(args));
    assert.match(texts(result).join(' '), message, JSON.stringify(args));
  }
  assert.deepEqual(log, []);
});

test('an action that acts replies with its text and a screenshot of the settled screen', async () => {
  const { call, log, state } = desktop();
  await call({ action: 'screenshot' });
  log.length = 0;
  state.lastScreenshot!.takenAt = 0;
  const result = await call({ action: 'left_click', coordinate: [100, 200], text: 'shift' });
  assert.ok(!result.isError, texts(result).join(' '));
  assert.deepEqual(log, ['click leftx1 100,200 +shift', `settle ${SETTLE_QUIET_MS}/${SETTLE_MAX_MS}`, 'capture']);
  assert.equal(images(result), 1);
  assert.match(texts(result)[0]!, /Left-click at \(100, 200\) with shift/);
  assert.deepEqual(result.structuredContent, { action: 'left_click', settle: { settled: true, waitedMs: 42 } });
  assert.ok(state.lastScreenshot!.takenAt > 0, 'the screenshot after the action is the frame for the next coordinates');
});

test('the reference action set, each with the native effect and a screenshot', async () => {
  const { call, log } = desktop();
  await call({ action: 'screenshot' });
  const expect: [Record<string, unknown>, string][] = [
    [{ action: 'mouse_move', coordinate: [10, 20] }, 'move 10,20'],
    [{ action: 'left_click' }, 'click leftx1 10,20'],
    [{ action: 'right_click', coordinate: [30, 40] }, 'click rightx1 30,40'],
    [{ action: 'middle_click', coordinate: [30, 40] }, 'click middlex1 30,40'],
    [{ action: 'double_click', coordinate: [30, 40] }, 'click leftx2 30,40'],
    [{ action: 'triple_click', coordinate: [30, 40] }, 'click leftx3 30,40'],
    [{ action: 'left_click_drag', start_coordinate: [1, 2], coordinate: [3, 4] }, 'drag 1,2 → 3,4'],
    [{ action: 'left_click_drag', start_coordinate: [1, 2], coordinate: [5, 6], text: 'shift' }, 'drag 1,2 → 5,6 +shift'],
    [{ action: 'scroll', scroll_direction: 'down', scroll_amount: 3 }, 'scroll downx3 10,20'],
    [{ action: 'scroll', coordinate: [50, 60], scroll_direction: 'up', scroll_amount: 2, text: 'ctrl' }, 'scroll upx2 50,60 +ctrl'],
    [{ action: 'type', text: 'hello' }, 'type hello'],
    [{ action: 'key', text: 'ctrl+a' }, 'key 1 chord(s) x1'],
    [{ action: 'hold_key', text: 'shift', duration: 0 }, 'hold 0'],
    [{ action: 'left_mouse_down' }, 'down'],
    [{ action: 'left_mouse_up' }, 'up'],
    [{ action: 'wait', duration: 0 }, 'settle'],
  ];
  for (const [args, effect] of expect) {
    log.length = 0;
    const result = await call(args);
    assert.ok(!result.isError, `${JSON.stringify(args)}: ${texts(result).join(' ')}`);
    assert.ok(log[0]!.startsWith(effect), `${JSON.stringify(args)} → ${log.join('; ')}`);
    assert.equal(images(result), 1, JSON.stringify(args));
    assert.equal((result.structuredContent?.settle as { settled: boolean }).settled, true);
  }
});

test('screenshot and zoom reply with their own image only; cursor_position answers X=..,Y=.. with no image', async () => {
  const { call, log } = desktop();
  const shot = await call({ action: 'screenshot' });
  assert.equal(images(shot), 1);
  assert.ok(!log.some((line) => line.startsWith('settle')));
  const zoom = await call({ action: 'zoom', region: [0, 0, 100, 50] });
  assert.equal(images(zoom), 1);
  await call({ action: 'mouse_move', coordinate: [321, 123] });
  const position = await call({ action: 'cursor_position' });
  assert.deepEqual(texts(position), ['X=321,Y=123']);
  assert.equal(images(position), 0);
  assert.deepEqual(position.structuredContent, { action: 'cursor_position', x: 321, y: 123 });
});

test('a screen that never settles is still shown, and the reply says so; a settle wait that fails does not fail the action', async () => {
  const busy = desktop({ settle: async ({ maxMs }) => ({ settled: false, waitedMs: maxMs }) });
  await busy.call({ action: 'screenshot' });
  const result = await busy.call({ action: 'key', text: 'Return' });
  assert.deepEqual(result.structuredContent?.settle, { settled: false, waitedMs: SETTLE_MAX_MS });
  assert.equal(images(result), 1);

  const broken = desktop({ settle: async () => { throw new Error('no XDamage'); } });
  await broken.call({ action: 'screenshot' });
  const typed = await broken.call({ action: 'type', text: 'x' });
  assert.ok(!typed.isError);
  assert.equal(images(typed), 1);
  assert.match(String((typed.structuredContent?.settle as { error?: string }).error), /no XDamage/);
});

test('the call budget covers the settle wait and the action\'s own duration', async () => {
  const { parseCall } = await import('../dispatch.ts');
  const { tool, args } = parseCall('computer', { action: 'wait', duration: 3 });
  assert.equal(tool.extraSeconds?.(args as never), 3 + SETTLE_MAX_MS / 1000);
  const shot = parseCall('computer', { action: 'screenshot' });
  assert.equal(shot.tool.extraSeconds?.(shot.args as never), 0);
});

test('a duration past the native limit is the native tool\'s bad_args, not a runaway budget', async () => {
  const { parseCall } = await import('../dispatch.ts');
  const { tool, args } = parseCall('computer', { action: 'wait', duration: 1e7 });
  assert.equal(tool.extraSeconds?.(args as never), SETTLE_MAX_MS / 1000);
  const { call } = desktop();
  const result = await call({ action: 'wait', duration: 1e7 });
  assert.equal(result.structuredContent?.error?.kind, 'bad_args');
  assert.match(texts(result).join(' '), /duration/);
});
