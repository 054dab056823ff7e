import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseModifiers, splitChord } from './chord.ts';

test('aliases fold and modifiers sort into ctrl, alt, shift, meta', () => {
  assert.deepEqual(parseModifiers('Cmd+Shift'), ['shift', 'meta']);
  assert.deepEqual(parseModifiers('option+control'), ['ctrl', 'alt']);
  assert.throws(() => parseModifiers('shift\u001calt'), /is not a modifier key/);
});

test('"ctrl++" is ctrl and plus', () => {
  assert.deepEqual(splitChord('ctrl++'), ['ctrl', 'plus']);
});

test('empty parts are refused with a clear message', () => {
  assert.throws(() => splitChord('ctrl+'), /not a key chord/);
  assert.throws(() => splitChord('+a'), /not a key chord/);
});

test('click modifiers accept only modifier keys', () => {
  assert.deepEqual(parseModifiers('shift+ctrl'), ['ctrl', 'shift']);
  assert.deepEqual(parseModifiers(undefined), []);
  assert.throws(() => parseModifiers('shift+a'), /"a" is not a modifier key/);
});
