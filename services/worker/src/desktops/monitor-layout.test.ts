import assert from 'node:assert/strict';
import { test } from 'node:test';
import { monitorLayout, setMonitorArgs } from './monitor-layout.ts';

test('monitors sit side by side, the first primary', () => {
  assert.deepEqual(monitorLayout(1280, 800, 2), [
    { name: 'DG-1', x: 0, y: 0, width: 1280, height: 800, primary: true },
    { name: 'DG-2', x: 1280, y: 0, width: 1280, height: 800, primary: false },
  ]);
  assert.equal(monitorLayout(1024, 768, 4).at(-1)!.x, 3072);
});

test('xrandr --setmonitor arguments: WxH in pixels/mm, * marks primary', () => {
  const [first, second] = monitorLayout(1280, 800, 2);
  assert.deepEqual(setMonitorArgs(first!, 'screen'), ['--setmonitor', '*DG-1', '1280/339x800/212+0+0', 'screen']);
  assert.deepEqual(setMonitorArgs(second!, 'none'), ['--setmonitor', 'DG-2', '1280/339x800/212+1280+0', 'none']);
});
