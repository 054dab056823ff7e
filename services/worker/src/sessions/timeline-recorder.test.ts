/**
 * When timeline frames are taken: the first call's at once; calls answered within the interval
 * share the next frame, taken after the last of them; nothing after stop.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TimelineRecorder, type TimelineCall } from './timeline-recorder.ts';

const call = (n: number): TimelineCall => ({ actionId: `a${n}`, tool: 'left_click', at: n });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls until `done` (bounded): no assertion here depends on how fast this machine is. */
async function until(done: () => boolean, boundMs = 5000): Promise<void> {
  for (const started = Date.now(); !done() && Date.now() - started < boundMs; ) await sleep(5);
}

function recorder(intervalMs: number) {
  let taken = 0;
  let takenAt = 0;
  const kept: { ids: string[]; frame: string; takenAt: number }[] = [];
  const errors: unknown[] = [];
  const r = new TimelineRecorder(
    { next: async () => ((takenAt = Date.now()), { jpeg: Buffer.from(`frame ${++taken}`), fresh: true }) },
    // takenAt: when the capture was asked for, which is what the interval spaces.
    async (calls, jpeg) => void kept.push({ ids: calls.map((c) => c.actionId), frame: jpeg.toString(), takenAt }),
    (error) => errors.push(error),
    intervalMs,
  );
  return { r, kept, errors, taken: () => taken };
}

test('a lone call gets its own frame at once, not after the interval', async () => {
  // An interval far longer than the wait below: a frame held back for it could not be there.
  const { r, kept } = recorder(60_000);
  r.after(call(1));
  await until(() => kept.length === 1);
  assert.deepEqual(kept.map((k) => k.ids), [['a1']]);
  r.stop();
});

test('a burst shares frames: at most one per interval, each kept under every call that waited for it', async () => {
  const { r, kept, taken } = recorder(300);
  r.after(call(1));
  await until(() => kept.length === 1);
  for (let n = 2; n <= 6; n++) r.after(call(n));
  await until(() => kept.length === 2);
  await sleep(50);
  assert.equal(taken(), 2, 'two captures for six calls');
  assert.deepEqual(kept.map((k) => k.ids), [['a1'], ['a2', 'a3', 'a4', 'a5', 'a6']]);
  assert.equal(kept[1]!.frame, 'frame 2', 'the later calls share the frame taken after the last of them');
  assert.ok(kept[1]!.takenAt - kept[0]!.takenAt >= 295, `the interval is kept (${kept[1]!.takenAt - kept[0]!.takenAt} ms)`);
});

test('after stop, waiting calls are dropped and no frame is taken', async () => {
  const { r, kept, taken } = recorder(100);
  r.after(call(1));
  await until(() => kept.length === 1);
  r.after(call(2));
  r.stop();
  r.after(call(3));
  await sleep(150);
  assert.equal(taken(), 1);
  assert.deepEqual(kept.map((k) => k.ids), [['a1']]);
});

test('a capture that fails is reported, and the next call still gets a frame', async () => {
  let fail = true;
  const errors: unknown[] = [];
  const kept: string[][] = [];
  const r = new TimelineRecorder(
    {
      next: async () => {
        if (fail) throw new Error('helper restarting');
        return { jpeg: Buffer.from('ok'), fresh: true };
      },
    },
    async (calls) => void kept.push(calls.map((c) => c.actionId)),
    (error) => errors.push(error),
    20,
  );
  r.after(call(1));
  await until(() => errors.length === 1);
  fail = false;
  r.after(call(2));
  await until(() => kept.length === 1);
  assert.equal(errors.length, 1);
  assert.deepEqual(kept, [['a2']]);
});
