import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KEY_LIMITS, keysymOf, parseKeys } from './keysyms.ts';

test('names resolve like the X server spells them, with friendly aliases', () => {
  assert.deepEqual(parseKeys('ctrl+shift+a'), [[0xffe3, 0xffe1, 0x61]]);
  assert.deepEqual(parseKeys('Return ctrl+v'), [[0xff0d], [0xffe3, 0x76]]);
  assert.equal(keysymOf('F4'), 0xffc1);
  assert.equal(keysymOf('L1'), keysymOf('F11'));
  assert.equal(keysymOf('page_up'), 0xff55);
  assert.equal(keysymOf('XF86AudioMute'), keysymOf('XF86_AudioMute'));
  assert.equal(keysymOf('ö'), 0xf6);
  assert.equal(keysymOf('日'), 0x0100_0000 + 0x65e5);
  assert.equal(keysymOf('U+20AC'), 0x0100_20ac);
  assert.equal(keysymOf('0x71'), 0x71);
  assert.deepEqual(parseKeys('ctrl++'), [[0xffe3, 0x2b]]);
  assert.deepEqual(parseKeys('+'), [[0x2b]]);
});

test('code points are characters, never raw keysyms: 0xffc1 is not F4', () => {
  assert.equal(keysymOf('0xffc1'), 0x0100_ffc1);
  assert.throws(() => keysymOf('0x1b'), /not a printable character/);
  assert.throws(() => keysymOf('U+0085'), /not a printable character/);
});

test('control, format and non-ASCII whitespace characters are refused, wherever they are', () => {
  for (const text of ['shift\u001calt+f4', 'x\u0085alt+f4', 'alt\tf4', 'ctrl+a\nctrl+c', 'alt\u00a0f4', 'alt+\u200bf4', 'a\u2028b', 'ctrl+\u0000', '\u001b', 'alt\u2003f4', '\ufeffa']) {
    assert.throws(() => parseKeys(text), (error: Error & { kind?: string }) => error.kind === 'bad_args' && /not allowed/.test(error.message), JSON.stringify(text));
  }
});

test('malformed or oversized text is bad_args with the problem named', () => {
  assert.throws(() => parseKeys('ctrl+'), /not a key chord/);
  assert.throws(() => parseKeys('+a'), /not a key chord/);
  assert.throws(() => parseKeys('   '), /names no key/);
  assert.throws(() => parseKeys('ctrl+nosuchkey'), /unknown key name "nosuchkey" in key chord "ctrl\+nosuchkey"/);
  assert.throws(() => parseKeys(Array(KEY_LIMITS.keysPerChord + 1).fill('a').join('+')), /the limit is 8/);
  assert.throws(() => parseKeys(Array(KEY_LIMITS.chords + 1).fill('a').join(' ')), /at most 32 chords/);
});
