import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundArgs, redactArgs } from './redact.ts';

const redact = (tool: string, args: unknown) => redactArgs(tool, args, { keepText: false });

test('typed text and clipboard contents are replaced by their length', () => {
  assert.deepEqual(redact('type', { text: 'hunter2' }), { text: '[redacted: 7 characters]' });
  assert.deepEqual(redact('write_clipboard', { text: 'sk-live-123' }), { text: '[redacted: 11 characters]' });
  assert.deepEqual(redact('type', { text: '日本語✓' }), { text: '[redacted: 4 characters]' }, 'counts characters, not UTF-16 units');
});

test('type actions inside a batch and Anthropic computer type calls are redacted', () => {
  const batch = { actions: [{ action: 'left_click', coordinate: [1, 2] }, { action: 'type', text: 'secret' }, { action: 'key', text: 'ctrl+a' }] };
  assert.deepEqual(redact('computer_batch', batch), {
    actions: [{ action: 'left_click', coordinate: [1, 2] }, { action: 'type', text: '[redacted: 6 characters]' }, { action: 'key', text: 'ctrl+a' }],
  });
  assert.deepEqual(redact('computer', { action: 'type', text: 'secret' }), { action: 'type', text: '[redacted: 6 characters]' });
  assert.deepEqual(redact('computer', { action: 'key', text: 'ctrl+alt+Delete' }), { action: 'key', text: 'ctrl+alt+Delete' });
});

test('key chords, hold_key and click modifiers are kept', () => {
  for (const [tool, args] of [
    ['key', { text: 'ctrl+alt+BackSpace', repeat: 2 }],
    ['hold_key', { text: 'shift', duration: 1 }],
    ['left_click', { coordinate: [3, 4], text: 'ctrl' }],
  ] as const) {
    assert.deepEqual(redact(tool, args), args, tool);
  }
});

test('keepText keeps everything verbatim', () => {
  assert.deepEqual(redactArgs('type', { text: 'hunter2' }, { keepText: true }), { text: 'hunter2' });
  const batch = { actions: [{ action: 'type', text: 'secret' }] };
  assert.deepEqual(redactArgs('computer_batch', batch, { keepText: true }), batch);
});

test('malformed arguments of a refused call are redacted too, and never crash', () => {
  assert.deepEqual(redact('type', { text: { nested: 'secret' } }), { text: '[redacted]' });
  assert.deepEqual(redact('type', { text: 'x'.repeat(20_001) }), { text: '[redacted: 20001 characters]' });
  assert.deepEqual(redact('computer_batch', { actions: 'nope' }), { actions: 'nope' });
  assert.deepEqual(redact('computer_batch', { actions: [null, 3, { action: 'type', text: 12 }] }), { actions: [null, 3, { action: 'type', text: '[redacted]' }] });
  assert.equal(redact('type', undefined), undefined);
  assert.equal(redact('type', 'text'), 'text');
  assert.deepEqual(redact('type', {}), {});
  assert.deepEqual(redact('toString', { text: 'kept' }), { text: 'kept' }, 'prototype names are not tools');
});

test('the input is never mutated', () => {
  const batch = { actions: [{ action: 'type', text: 'secret' }] };
  const copy = structuredClone(batch);
  redact('computer_batch', batch);
  redact('type', batch.actions[0]);
  assert.deepEqual(batch, copy);
});

test('oversized arguments are bounded', () => {
  const small = { coordinate: [1, 2] };
  assert.equal(boundArgs(small), small);
  const big = boundArgs({ blob: 'x'.repeat(10_000) }, 100) as { truncated: boolean; chars: number; start: string };
  assert.equal(big.truncated, true);
  assert.equal(big.chars, JSON.stringify({ blob: 'x'.repeat(10_000) }).length);
  assert.equal(big.start.length, 100);
});
