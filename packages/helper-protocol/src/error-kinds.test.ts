import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CAPTURE_ERROR_KINDS, CAPTURE_TOOL_ERRORS, CLIENT_ERROR_KINDS, INPUT_ERROR_KINDS, INPUT_TOOL_ERRORS, toolErrorFor, toolErrorRule } from './index.ts';

test('every helper and client error kind has a rule', () => {
  for (const kind of [...CAPTURE_ERROR_KINDS, ...CLIENT_ERROR_KINDS]) assert.ok(Object.hasOwn(CAPTURE_TOOL_ERRORS, kind), kind);
  for (const kind of [...INPUT_ERROR_KINDS, ...CLIENT_ERROR_KINDS]) assert.ok(Object.hasOwn(INPUT_TOOL_ERRORS, kind), kind);
});

test('the rules keep what the worker reported before the table', () => {
  // viaHelper: bad_args and display_error pass through, the rest is the helper's fallback.
  assert.deepEqual(toolErrorFor('input', 'bad_args', "click: 'x' must be an integer", 'click'), { kind: 'bad_args', message: "click: 'x' must be an integer" });
  assert.deepEqual(toolErrorFor('input', 'x11_error', 'BadWindow', 'activate'), { kind: 'executor_failed', message: 'activate failed: BadWindow' });
  assert.deepEqual(toolErrorFor('capture', 'display_error', 'gone', 'screen capture'), { kind: 'display_error', message: 'screen capture failed: gone' });
  assert.equal(toolErrorFor('capture', 'bad_request', 'quality 0', 'screen capture').kind, 'capture_failed');
  assert.equal(toolErrorFor('capture', 'no_snapshot', 'no snapshot kept', 'the staleness check').kind, 'capture_failed');
  // guardRefusal: stale_screenshot in the worker's words.
  assert.deepEqual(toolErrorRule('input', 'guard_failed'), { kind: 'stale_screenshot', message: 'worker' });
  // New: the process limit is the launcher's quota_exceeded, in the runtime's words.
  assert.deepEqual(toolErrorFor('input', 'quota_exceeded', 'launch: cannot start xterm: …', 'launch'), { kind: 'quota_exceeded', message: 'launch: cannot start xterm: …' });
  assert.equal(toolErrorFor('input', 'launch_failed', 'x', 'launch').kind, 'executor_failed');
  // Unknown kinds (a newer helper) and the client's own.
  assert.equal(toolErrorFor('input', 'brand_new', 'x', 'y').kind, 'executor_failed');
  assert.equal(toolErrorFor('capture', 'brand_new', 'x', 'y').kind, 'capture_failed');
  assert.equal(toolErrorFor('capture', 'helper_died', 'x', 'y').kind, 'capture_failed');
  assert.equal(toolErrorFor('input', 'toString', 'x', 'y').kind, 'executor_failed');
});
