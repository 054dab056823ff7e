import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuditFrames, frameOfCall } from './audit-frames.ts';
import { AuditLog } from './audit-log.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis();
const jpeg = (n: number) => Buffer.from([0xff, 0xd8, n, 0xff, 0xd9]);

test('two calls of one tool answered in the same millisecond each get their own frame, paired by id', async () => {
  const frames = new AuditFrames(db.redis);
  const log = new AuditLog(db.redis);
  const at = Date.now();
  // The worker answered b first: by tool and time alone, the two could not be told apart.
  await frames.add('acme', 'main', [{ actionId: 'b', tool: 'screenshot', at }], jpeg(2));
  await frames.add('acme', 'main', [{ actionId: 'a', tool: 'screenshot', at }], jpeg(1));
  for (const actionId of ['a', 'b']) await log.record({ actionId, tenant: 'acme', session: 'main', tool: 'screenshot', args: {}, outcome: 'ok', ms: 5, at });
  const kept = await frames.list('acme', 'main');
  const entries = await log.read('acme', 'main');
  assert.deepEqual(entries.map((e) => e.actionId), ['b', 'a'], 'the audit entry keeps its id');
  const paired = entries.map((entry) => frameOfCall(kept, entry));
  assert.deepEqual(paired.map((frame) => frame?.actionId), ['b', 'a']);
  assert.deepEqual(await frames.get('acme', 'main', paired[1]!.id), jpeg(1), 'a\'s frame is the one taken after a');
  assert.notEqual(paired[0]!.id, paired[1]!.id);
});

test('calls that shared one frame (answered within the timeline interval) each have it under their own id', async () => {
  const frames = new AuditFrames(db.redis);
  const at = Date.now();
  await frames.add('acme', 'burst', [{ actionId: 'c1', tool: 'left_click', at }, { actionId: 'c2', tool: 'left_click', at: at + 40 }], jpeg(4));
  const kept = await frames.list('acme', 'burst');
  assert.deepEqual(kept.map((frame) => frame.actionId), ['c2', 'c1'], 'one entry per call, newest first');
  assert.notEqual(kept[0]!.id, kept[1]!.id);
  for (const frame of kept) assert.deepEqual(await frames.get('acme', 'burst', frame.id), jpeg(4));
  assert.equal(frameOfCall(kept, { actionId: 'c1', tool: 'left_click', at, ms: 5 })?.actionId, 'c1');
});

test('a call with an id and no frame of its own (refused, or its frame not kept) gets none, not a neighbour\'s', async () => {
  const frames = new AuditFrames(db.redis);
  const at = Date.now();
  await frames.add('acme', 'lonely', [{ actionId: 'ran', tool: 'left_click', at }], jpeg(3));
  const kept = await frames.list('acme', 'lonely');
  assert.equal(frameOfCall(kept, { actionId: 'refused', tool: 'left_click', at, ms: 1 }), undefined);
  assert.equal(frameOfCall(kept, { tool: 'left_click', at, ms: 1 }), undefined, 'an entry without an id is never paired with a frame that has one');
});

test('entries and frames kept before calls had ids are still paired by tool and time', () => {
  const old = (id: string, tool: string, at: number) => ({ id, tool, at, jpeg: jpeg(0) });
  const kept = [old('3-0', 'screenshot', 1300), old('2-0', 'left_click', 1100), old('1-0', 'left_click', 500)];
  assert.equal(frameOfCall(kept, { tool: 'left_click', at: 1090, ms: 40 })?.id, '2-0');
  assert.equal(frameOfCall(kept, { tool: 'left_click', at: 5000, ms: 40 }), undefined, 'nothing within the call\'s span');
});
