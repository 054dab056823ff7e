/** LinuxExecutor's input side against a scripted input runtime: what it sends, what it makes of the answers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolError } from '@deskgate/computer-use';
import type { CaptureClient } from '../helpers/capture-client.ts';
import { HelperError } from '../helpers/helper-process.ts';
import type { InputClient } from '../helpers/input-client.ts';
import type { DesktopApps } from '../launch/desktop-apps.ts';
import { DesktopIndex } from './desktop-identity.ts';
import { LinuxExecutor } from './linux-executor.ts';

function scripted(answers: Record<string, unknown> = {}, failing: Record<string, HelperError> = {}) {
  const sent: { op: string; params: Record<string, unknown>; at: number }[] = [];
  const input = {
    async call(op: string, params: Record<string, unknown> = {}) {
      sent.push({ op, params, at: performance.now() });
      if (failing[op]) throw failing[op];
      return answers[op] ?? {};
    },
  } as unknown as InputClient;
  const index = new DesktopIndex(async () => [{ id: 'debian-xterm', path: '/apps/debian-xterm.desktop', exec: ['xterm'], wmClass: 'XTerm' }]);
  const executor = new LinuxExecutor({} as CaptureClient, input, { index } as DesktopApps);
  return { executor, sent };
}

const xterm = { window: 42, title: 'xterm', wm_class: ['xterm', 'XTerm'], pid: 7, exe: '/usr/bin/xterm' };

test('gateFacts sends the points and maps the answer to the core types, with desktop ids', async () => {
  const { executor, sent } = scripted({
    gate_facts: {
      windows: [{ id: 42, x: 1, y: 20, width: 484, height: 316, mapped: true, title: 'xterm', wm_class: ['xterm', 'XTerm'], pid: 7, exe: '/usr/bin/xterm' }],
      focus: { kind: 'client', window: 42, app: xterm },
      at: [
        { kind: 'decoration', window: 42, app: xterm },
        { kind: 'root', window: 1293, app: null },
        { kind: 'popup', window: 99, app: { window: 99, title: '', wm_class: null, pid: 8, exe: null } },
      ],
      cursor: { x: 5, y: 6 },
      under_pointer: { kind: 'none', window: null, app: null },
      buttons: ['left'],
    },
  });
  const facts = await executor.gateFacts([
    { x: 10, y: 10 },
    { x: 900, y: 700 },
    { x: 3, y: 4 },
  ]);
  assert.deepEqual(sent[0]!.params, { points: [[10, 10], [900, 700], [3, 4]] });
  const app = { window: 42, title: 'xterm', wmClass: ['xterm', 'XTerm'], pid: 7, exe: '/usr/bin/xterm', desktopId: 'debian-xterm' };
  assert.deepEqual(facts, {
    windows: [{ ...app, x: 1, y: 20, width: 484, height: 316, mapped: true, role: 'app' }],
    focus: { kind: 'client', window: 42, app },
    at: [
      { kind: 'decoration', window: 42, app },
      { kind: 'root', window: 1293, app: null },
      { kind: 'popup', window: 99, app: { window: 99, title: '', wmClass: null, pid: 8, exe: null, desktopId: null } },
    ],
    cursor: { x: 5, y: 6 },
    underPointer: { kind: 'none', window: null, app: null },
    buttonsHeld: ['left'],
  });
});

test('key sends keysym chords', async () => {
  const { executor, sent } = scripted();
  await executor.key([[0xffe3, 0x61], [0xff0d]], 2);
  assert.deepEqual(sent, [{ op: 'key', params: { chords: [[0xffe3, 0x61], [0xff0d]], repeat: 2 }, at: sent[0]!.at }]);
});

test('holdKey presses, waits, releases', async () => {
  const { executor, sent } = scripted();
  await executor.holdKey([[0xffe1]], 0.05, new AbortController().signal);
  assert.deepEqual(sent.map((s) => [s.op, s.params]), [
    ['key_down', { chords: [[0xffe1]] }],
    ['key_up', { chords: [[0xffe1]] }],
  ]);
  assert.ok(sent[1]!.at - sent[0]!.at >= 45);
});

test('holdKey releases at once when the call is stopped, and ends with the reason', async () => {
  const { executor, sent } = scripted();
  const stop = new AbortController();
  const reason = new ToolError('disabled', 'stopped by the kill switch');
  setTimeout(() => stop.abort(reason), 20);
  const started = performance.now();
  await assert.rejects(executor.holdKey([[0xffe3, 0x63]], 30, stop.signal), (error) => error === reason);
  assert.ok(performance.now() - started < 1000);
  assert.deepEqual(sent.map((s) => s.op), ['key_down', 'key_up']);
  const already = new AbortController();
  already.abort();
  await assert.rejects(executor.holdKey([[0xffe1]], 1, already.signal), ToolError);
  assert.equal(sent.length, 2); // nothing pressed for a call stopped before it began
});

test('holdKey lets nothing stay pressed when key_down fails', async () => {
  const { executor, sent } = scripted({}, { key_down: new HelperError('x11_error', 'BadValue') });
  await assert.rejects(executor.holdKey([[0xffe1]], 1, new AbortController().signal), ToolError);
  assert.deepEqual(sent.map((s) => s.op), ['key_down', 'key_up']);
});

test('every input op carries the gates guard while one is set; key_up never does', async () => {
  const { executor, sent } = scripted();
  executor.guard({ focus: 42, at: [{ point: { x: 10, y: 20 }, kind: 'client', window: 42 }, { point: { x: 5, y: 6 }, kind: 'root', window: null }] });
  const wire = { focus: 42, at: [[10, 20, 'client', 42], [5, 6, 'root', null]] };
  await executor.move({ x: 1, y: 2 });
  await executor.click({ x: 10, y: 20 }, 'left', 1, []);
  await executor.mouseDown('left');
  await executor.mouseUp('left');
  await executor.drag({ x: 10, y: 20 }, { x: 5, y: 6 }, ['shift']);
  await executor.scroll({ x: 10, y: 20 }, 'down', 3, []);
  await executor.key([[0x61]], 1);
  await executor.type('hi');
  await executor.holdKey([[0xffe1]], 0, new AbortController().signal);
  await executor.cursorPosition();
  assert.deepEqual(
    sent.map((s) => [s.op, s.params.guard]),
    [
      ...['move', 'click', 'mouse_down', 'mouse_up', 'drag', 'scroll', 'key', 'type', 'key_down'].map((op) => [op, wire]),
      ['key_up', undefined],
      ['cursor_position', undefined],
    ],
  );
  executor.guard({ focus: 7 });
  await executor.key([[0x61]], 1);
  assert.deepEqual(sent.at(-1)!.params.guard, { focus: 7 });
  executor.guard(null);
  await executor.click({ x: 1, y: 1 }, 'left', 1, []);
  executor.guard({ at: [] });
  await executor.type('x');
  assert.deepEqual(sent.slice(-2).map((s) => 'guard' in s.params), [false, false]);
});

test('a guard that no longer held is stale_screenshot, saying what was sent', async () => {
  const refused = (message: string) => scripted({}, { click: new HelperError('guard_failed', message), type: new HelperError('guard_failed', message), key: new HelperError('guard_failed', message) });
  const nothing = refused('click: at (10, 20) there is popup 0x400007 now, not client 0x40000d; nothing was sent');
  await assert.rejects(nothing.executor.click({ x: 10, y: 20 }, 'left', 1, []), (error: ToolError) => {
    assert.equal(error.kind, 'stale_screenshot');
    assert.equal(error.message, 'The window under the target (or holding the keyboard focus) changed while the action was checked; nothing was sent. Take a new screenshot.');
    return true;
  });
  const some = refused('type: the input focus is on client 0x600003 now, not on window 0x40000d; 128 of 300 characters were typed, the rest was not');
  await assert.rejects(some.executor.type('x'.repeat(300)), (error: ToolError) => error.kind === 'stale_screenshot' && /some of the text was typed \(the first 128 of 300 characters\), the rest was not\. Take a new screenshot\.$/.test(error.message));
  const keys = refused('key: the input focus is on none now, not on window 0x40000d; 64 of 100 chords were pressed, the rest were not');
  await assert.rejects(keys.executor.key([[0x61]], 100), (error: ToolError) => error.kind === 'stale_screenshot' && /the first 64 of 100 chords/.test(error.message));
  // Other runtime errors keep their mapping.
  const broken = scripted({}, { click: new HelperError('x11_error', 'BadWindow') });
  await assert.rejects(broken.executor.click({ x: 1, y: 1 }, 'left', 1, []), (error: ToolError) => error.kind === 'executor_failed');
});
