/**
 * The timeline's frames on a real X server with the real capture helper: a still screen is
 * encoded once and its bytes kept again; a change (seen by X DAMAGE) gives a new frame; after
 * a helper restart the next frame is fresh.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../config.ts';
import { terminate } from '../desktops/child-process.ts';
import { startXvfb } from '../desktops/xvfb.ts';
import { CaptureClient } from '../helpers/capture-client.ts';
import { TimelineFrames } from './timeline-frames.ts';

test('a frame is encoded only when the screen changed; a restart gives a fresh one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-timeline-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const xauthority = join(dir, 'Xauthority');
  writeFileSync(xauthority, '');
  const xvfb = await startXvfb((command) => command, { PATH: process.env.PATH ?? '/usr/bin:/bin' }, xauthority, 640, 400);
  t.after(() => terminate(xvfb.process));
  const capture = new CaptureClient({ command: loadConfig({}).captureBin, args: ['--display', xvfb.display], env: {} }, pino({ level: 'silent' }));
  t.after(() => capture.stop());
  capture.start();
  const frames = new TimelineFrames(capture, { width: 320, height: 200, quality: 50 });

  let first = await frames.next();
  assert.equal(first.fresh, true, 'the first frame is always taken');
  assert.equal(first.jpeg.subarray(0, 2).toString('hex'), 'ffd8', 'a JPEG');
  // A fresh X server's first paint can reach the damage watcher after the first frame (seen at
  // load): the screen is still once a frame comes back unchanged (bounded).
  let settled = await frames.next();
  for (let i = 0; i < 50 && settled.fresh; i++) {
    first = settled;
    await new Promise((resolve) => setTimeout(resolve, 20));
    settled = await frames.next();
  }
  assert.equal(settled.fresh, false, 'a still screen: no new encode');
  assert.ok(settled.jpeg.equals(first.jpeg), 'the last frame is kept again');
  const still = await frames.next();
  assert.equal(still.fresh, false, 'nothing changed: no new encode');
  assert.ok(still.jpeg.equals(first.jpeg), 'the last frame is kept again');

  execFileSync('xsetroot', ['-solid', '#c03030'], { env: { PATH: process.env.PATH, DISPLAY: xvfb.display, XAUTHORITY: xauthority } });
  // The helper's damage watcher hears of the repaint a moment later.
  let changed = await frames.next();
  for (let i = 0; i < 100 && !changed.fresh; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    changed = await frames.next();
  }
  assert.equal(changed.fresh, true, 'the repaint gives a new frame');
  assert.ok(!changed.jpeg.equals(first.jpeg), 'showing the new background');
  assert.equal((await frames.next()).fresh, false, 'and then nothing new again');

  frames.reset();
  const afterRestart = await frames.next();
  assert.equal(afterRestart.fresh, true, 'after a helper restart the count starts over: a fresh frame');
});
