import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultPolicy } from '../access/policy.ts';
import { callTool } from '../dispatch.ts';
import type { Executor, Monitor } from '../executor.ts';
import { initialSessionState, type SessionState } from '../session-state.ts';

const DG1: Monitor = { name: 'DG-1', x: 0, y: 0, width: 1280, height: 800, primary: true };
const DG2: Monitor = { name: 'DG-2', x: 1280, y: 0, width: 1280, height: 800, primary: false };

function session(monitors: Monitor[], cursor = { x: 0, y: 0 }) {
  const state = initialSessionState();
  state.grants.apps.push({ app: 'xterm', tier: 'click', category: 'terminal' });
  const executor = { monitors: async () => monitors, cursorPosition: async () => cursor, guard: () => undefined } as unknown as Executor;
  const call = (tool: string, args: Record<string, unknown> = {}) => callTool(tool, args, { executor, state, signal: new AbortController().signal, policy: defaultPolicy(), approvals: null });
  return { state, call };
}

const textOf = (result: { content: { type: string; text?: string }[] }) => result.content.map((block) => block.text ?? '').join('');

test('a single-display desktop has nothing to switch to', async () => {
  const { call } = session([DG1]);
  const result = await call('switch_display', { display: 'DG-1' });
  assert.equal(result.structuredContent?.error?.kind, 'display_error');
  assert.match(textOf(result), /single display/);
});

test('an unknown name lists the displays there are', async () => {
  const { call } = session([DG1, DG2]);
  const result = await call('switch_display', { display: 'HDMI-1' });
  assert.equal(result.structuredContent?.error?.kind, 'bad_args');
  assert.match(textOf(result), /DG-1, DG-2/);
});

test('switching chooses the monitor, drops a screenshot of another one, and auto goes back', async () => {
  const { state, call } = session([DG1, DG2]);
  state.lastScreenshot = { imageWidth: 1280, imageHeight: 800, displayWidth: 1280, displayHeight: 800, originX: 0, originY: 0, slot: 's', monitor: 'DG-1', takenAt: 0 };
  assert.match(textOf(await call('switch_display', { display: 'DG-2' })), /DG-2 \(1280×800 at \+1280\+0\)/);
  assert.equal(state.display, 'DG-2');
  assert.equal(state.lastScreenshot, null);
  await call('switch_display', { display: 'auto' });
  assert.equal(state.display, null);
});

test('switch_display needs a grant like every tool but is not tier-gated', async () => {
  const { state, call } = session([DG1, DG2]);
  state.grants.apps = [];
  assert.equal((await call('switch_display', { display: 'DG-2' })).structuredContent?.error?.kind, 'allowlist_empty');
});

function onSecond(state: SessionState, mode: SessionState['coordinateMode']) {
  state.coordinateMode = mode;
  state.display = 'DG-2';
  state.lastScreenshot = { imageWidth: 1280, imageHeight: 800, displayWidth: 1280, displayHeight: 800, originX: 1280, originY: 0, slot: 's', monitor: 'DG-2', takenAt: 0 };
}

test('cursor_position maps back into the monitor shown, in either mode', async () => {
  const pixels = session([DG1, DG2], { x: 1920, y: 400 });
  onSecond(pixels.state, 'pixels');
  assert.equal(textOf(await pixels.call('cursor_position')), '(640, 400)');
  const percent = session([DG1, DG2], { x: 1920, y: 400 });
  onSecond(percent.state, 'normalized_0_100');
  assert.equal(textOf(await percent.call('cursor_position')), '(50, 50)');
});

test('a pointer on another monitor is said to be there', async () => {
  const { state, call } = session([DG1, DG2], { x: 100, y: 100 });
  onSecond(state, 'pixels');
  assert.match(textOf(await call('cursor_position')), /on DG-1, not on DG-2/);
});
