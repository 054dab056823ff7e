import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSplitter } from './frames.ts';

test('lines: split across chunks, several in one, and a line over the bound ends the stream', () => {
  const lines = new LineSplitter(8);
  assert.deepEqual(lines.push(Buffer.from('ab')), []);
  assert.ok(!lines.idle);
  assert.deepEqual(lines.push(Buffer.from('c\nde\nf'))!.map(String), ['abc', 'de']);
  assert.deepEqual(lines.push(Buffer.from('ghijklm\n'))!.map(String), ['fghijklm']);
  assert.ok(lines.idle);
  assert.equal(lines.push(Buffer.from('123456789')), null, 'nine bytes with no newline yet');
  assert.equal(new LineSplitter(8).push(Buffer.from('123456789\n')), null);
});

test('a long line in many chunks comes out whole, and the line after it too', () => {
  const lines = new LineSplitter(1 << 20);
  const long = 'x'.repeat(300_000);
  const out: string[] = [];
  for (let at = 0; at < long.length; at += 4096) out.push(...lines.push(Buffer.from(long.slice(at, at + 4096)))!.map(String));
  assert.deepEqual(out, []);
  assert.deepEqual(lines.push(Buffer.from('\nnext\n'))!.map(String), [long, 'next']);
});
