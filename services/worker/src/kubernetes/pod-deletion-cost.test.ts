/**
 * The deletion-cost keeper's decisions, pass by pass (sync() is what its timer calls): the pod
 * patched when the held count changes and only then, failures tried again after a growing
 * pause, the last count always landing. Its PATCH against a real API server is in
 * in-cluster-api.test.ts and tests/k8s/cluster.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { MAX_RETRY_MS, POD_DELETION_COST, PodDeletionCost } from './pod-deletion-cost.ts';

const pod = { name: 'deskgate-worker-abc', namespace: 'deskgate-workers' };

function harness(failWith?: () => Error | undefined) {
  const patches: string[] = [];
  const outcomes: string[] = [];
  let held = 0;
  let now = 1_000_000;
  const keeper = new PodDeletionCost({
    api: {
      async annotatePod(namespace, name, annotations) {
        assert.deepEqual([namespace, name, Object.keys(annotations)], [pod.namespace, pod.name, [POD_DELETION_COST]]);
        const error = failWith?.();
        if (error) throw error;
        patches.push(annotations[POD_DELETION_COST]!);
      },
    },
    pod,
    held: () => held,
    log: pino({ level: 'silent' }),
    intervalMs: 2000,
    onUpdate: (outcome, cost) => outcomes.push(`${outcome}:${cost}`),
    now: () => now,
  });
  return {
    keeper,
    patches,
    outcomes,
    setHeld: (count: number) => (held = count),
    advance: (ms: number) => (now += ms),
  };
}

test('the pod is patched with the held count when it changes, and only then', async () => {
  const { keeper, patches, setHeld } = harness();
  assert.equal(keeper.cost, undefined);
  await keeper.sync();
  assert.deepEqual(patches, ['0'], 'a new pod says 0 at once');
  await keeper.sync();
  await keeper.sync();
  assert.deepEqual(patches, ['0'], 'nothing sent while the count stays');
  setHeld(2);
  await keeper.sync();
  setHeld(1);
  await keeper.sync();
  assert.deepEqual(patches, ['0', '2', '1']);
  assert.equal(keeper.cost, 1);
});

test('one pass at a time: passes asked for while one runs share it', async () => {
  const { keeper, patches, setHeld } = harness();
  setHeld(3);
  await Promise.all([keeper.sync(), keeper.sync(), keeper.sync()]);
  assert.deepEqual(patches, ['3']);
});

test('a refused PATCH is tried again after a pause that doubles up to its cap, and the latest count lands', async () => {
  let refuse = true;
  const { keeper, patches, outcomes, setHeld, advance } = harness(() => (refuse ? new Error('403 forbidden') : undefined));
  setHeld(2);
  await keeper.sync();
  assert.deepEqual(outcomes, ['failed:2']);
  await keeper.sync();
  assert.deepEqual(outcomes, ['failed:2'], 'not again before the pause (2 s)');
  advance(2000);
  await keeper.sync();
  assert.deepEqual(outcomes, ['failed:2', 'failed:2']);
  advance(2000);
  await keeper.sync();
  assert.equal(outcomes.length, 2, 'the second pause is 4 s');
  advance(2000);
  await keeper.sync();
  assert.equal(outcomes.length, 3);
  for (let i = 0; i < 10; i++) {
    advance(MAX_RETRY_MS);
    await keeper.sync();
  }
  assert.equal(outcomes.length, 13, 'never more than MAX_RETRY_MS apart');
  refuse = false;
  setHeld(1);
  advance(MAX_RETRY_MS);
  await keeper.sync();
  assert.deepEqual(patches, ['1']);
  assert.equal(keeper.cost, 1);
  setHeld(0);
  await keeper.sync();
  assert.deepEqual(patches, ['1', '0'], 'no pause once it succeeded again');
});

test('start() sets the cost at once; stop() ends the updates', async () => {
  const { keeper, patches, setHeld } = harness();
  keeper.start();
  await keeper.stop();
  assert.deepEqual(patches, ['0']);
  setHeld(4);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(patches, ['0'], 'no timer left');
});
