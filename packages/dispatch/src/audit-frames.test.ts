import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AUDIT_FRAMES, AuditFrames, frameOfCall, pairFrames } from './audit-frames.ts';
import { keys } from './keys.ts';
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
  const paired = entries.map(pairFrames(kept));
  assert.deepEqual(paired.map((frame) => frame?.actionIds), [['b'], ['a']]);
  assert.deepEqual(await frames.get('acme', 'main', paired[1]!.id), jpeg(1), 'a\'s frame is the one taken after a');
  assert.notEqual(paired[0]!.id, paired[1]!.id);
});

test('calls that shared one frame (answered within the timeline interval) keep it once, under all their ids', async () => {
  const frames = new AuditFrames(db.redis);
  const at = Date.now();
  await frames.add('acme', 'burst', [{ actionId: 'c1', tool: 'left_click', at }, { actionId: 'c2', tool: 'mouse_move', at: at + 40 }], jpeg(4));
  assert.equal(await db.redis.xlen(keys.auditFrames('acme', 'burst')), 1, 'one stream entry: the JPEG is stored once');
  const kept = await frames.list('acme', 'burst');
  assert.deepEqual(kept.map((frame) => [frame.actionIds, frame.tool, frame.at]), [[['c1', 'c2'], 'mouse_move', at + 40]], 'named after every call, tool and time of the last');
  for (const [actionId, tool] of [['c1', 'left_click'], ['c2', 'mouse_move']] as const) {
    const frame = frameOfCall(kept, { actionId, tool, at, ms: 5 });
    assert.equal(frame?.id, kept[0]!.id, `${actionId} is paired with the shared frame`);
    assert.deepEqual(await frames.get('acme', 'burst', frame!.id), jpeg(4));
  }
});

test('a frame names at most maxCallsPerFrame calls: the newest', async () => {
  const frames = new AuditFrames(db.redis);
  const calls = Array.from({ length: AUDIT_FRAMES.maxCallsPerFrame + 50 }, (_, i) => ({ actionId: `call-${i}`, tool: 'left_click', at: 1000 + i }));
  await frames.add('acme', 'many', calls, jpeg(5));
  const [frame] = await frames.list('acme', 'many');
  assert.equal(frame?.actionIds.length, AUDIT_FRAMES.maxCallsPerFrame);
  assert.equal(frame?.actionIds[0], 'call-50');
  assert.equal(frame?.actionIds.at(-1), `call-${calls.length - 1}`);
});

test('frames kept one per call (the `action` field of earlier versions) are still paired by id; a malformed id list pairs nothing', async () => {
  const frames = new AuditFrames(db.redis);
  const key = keys.auditFrames('acme', 'older');
  await db.redis.xadd(key, '*', 'action', 'old-call', 'tool', 'left_click', 'at', '1000', 'jpeg', jpeg(6));
  await db.redis.xadd(key, '*', 'actions', '{"not": "a list"}', 'tool', 'left_click', 'at', '1100', 'jpeg', jpeg(7));
  const kept = await frames.list('acme', 'older');
  assert.deepEqual(kept.map((frame) => frame.actionIds), [[], ['old-call']]);
  assert.deepEqual(frameOfCall(kept, { actionId: 'old-call', tool: 'left_click', at: 1000, ms: 5 })?.jpeg, jpeg(6));
  assert.equal(frameOfCall(kept, { actionId: 'other', tool: 'left_click', at: 1100, ms: 5 }), undefined);
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
  const old = (id: string, tool: string, at: number) => ({ id, actionIds: [], tool, at, jpeg: jpeg(0) });
  const kept = [old('3-0', 'screenshot', 1300), old('2-0', 'left_click', 1100), old('1-0', 'left_click', 500)];
  assert.equal(frameOfCall(kept, { tool: 'left_click', at: 1090, ms: 40 })?.id, '2-0');
  assert.equal(frameOfCall(kept, { tool: 'left_click', at: 5000, ms: 40 }), undefined, 'nothing within the call\'s span');
});
