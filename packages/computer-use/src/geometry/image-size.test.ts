import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageTokens, targetImageSize } from './image-size.ts';

test('worked values of the token-budget rule', () => {
  assert.deepEqual(targetImageSize({ width: 1280, height: 800 }), { width: 1280, height: 800 });
  assert.equal(imageTokens({ width: 1280, height: 800 }), 1334);
  assert.deepEqual(targetImageSize({ width: 1920, height: 1080 }), { width: 1456, height: 819 });
  assert.deepEqual(targetImageSize({ width: 2560, height: 1600 }), { width: 1389, height: 868 });
  assert.deepEqual(targetImageSize({ width: 3024, height: 1964 }), { width: 1372, height: 891 });
});

test('the result always fits the budget and keeps the aspect ratio', () => {
  for (const [w, h] of [[3840, 2160], [1000, 4000], [5000, 300], [1568, 1568]] as const) {
    const size = targetImageSize({ width: w, height: h });
    assert.ok(size.width <= 1568 && size.height <= 1568 && imageTokens(size) <= 1568, `${w}x${h} → ${JSON.stringify(size)}`);
    assert.ok(Math.abs(size.width / size.height - w / h) < 0.02 * (w / h) + 1 / size.height);
  }
});

test('a degenerate display is refused', () => {
  assert.throws(() => targetImageSize({ width: 0, height: 800 }), /at least 1×1/);
});
