import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromScreen, inModelSpace, toScreen, type ScreenshotGeometry } from './coordinates.ts';

const shot: ScreenshotGeometry = { imageWidth: 1456, imageHeight: 819, displayWidth: 1920, displayHeight: 1080, originX: 0, originY: 0 };
const second: ScreenshotGeometry = { imageWidth: 1280, imageHeight: 800, displayWidth: 1280, displayHeight: 800, originX: 1280, originY: 0 };

test('pixels are scaled through the geometry of the screenshot they came from', () => {
  assert.deepEqual(toScreen([728, 409.5], shot, 'pixels'), { x: 960, y: 540 });
  assert.deepEqual(toScreen([0, 0], shot, 'pixels'), { x: 0, y: 0 });
  assert.deepEqual(toScreen([1456, 819], shot, 'pixels'), { x: 1919, y: 1079 }, 'the far edge clamps onto the last pixel');
});

test('a monitor origin is added', () => {
  assert.deepEqual(toScreen([10, 20], second, 'pixels'), { x: 1290, y: 20 });
});

test('normalized coordinates are percent of the display', () => {
  assert.deepEqual(toScreen([50, 50], shot, 'normalized_0_100'), { x: 960, y: 540 });
  assert.deepEqual(toScreen([25, 0], second, 'normalized_0_100'), { x: 1600, y: 0 });
});

test('fromScreen inverts toScreen', () => {
  assert.deepEqual(fromScreen({ x: 960, y: 540 }, shot, 'pixels'), { x: 728, y: 410 });
  assert.deepEqual(fromScreen({ x: 1600, y: 400 }, second, 'normalized_0_100'), { x: 25, y: 50 });
});

test('model-space bounds', () => {
  assert.ok(inModelSpace([1456, 819], shot, 'pixels'));
  assert.ok(!inModelSpace([1457, 10], shot, 'pixels'));
  assert.ok(!inModelSpace([101, 10], shot, 'normalized_0_100'));
});
