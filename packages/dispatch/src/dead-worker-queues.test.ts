import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { sweepDeadWorkerQueues } from './dead-worker-queues.ts';
import { keys } from './keys.ts';
import { publishCapacity, workerQueueName } from './lifecycle.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis((url) => new Redis(url, { maxRetriesPerRequest: null }));

/** A release queued for `workerId`, as the gateway does it: the queue's keys exist from then on. */
async function queueRelease(workerId: string) {
  const connection = db.redis.duplicate();
  const queue = new Queue(workerQueueName(workerId), { connection, prefix: keys.bullPrefix() });
  await queue.add('release', { tenant: 't', session: 's', desktopId: `d-${workerId}` });
  await queue.close();
  connection.disconnect();
}
const queueKeys = async (workerId: string) => (await db.redis.keys(`${keys.bullPrefix()}:${workerQueueName(workerId)}:*`)).sort();

test("a starting worker sweeps the queues of workers gone for good, never a live one's, a starting one's or its own", async () => {
  for (const id of ['gone', 'alive', 'starting', 'self']) await queueRelease(id);
  await publishCapacity(db.redis, 'alive', { max: 1, free: 1, nextFreeAt: 0 });
  // A worker still starting: its consumer checks for stalled jobs before it first publishes its room.
  await db.redis.set(`${keys.bullPrefix()}:${workerQueueName('starting')}:stalled-check`, '1', 'PX', 30_000);
  assert.ok((await queueKeys('gone')).length > 0);

  assert.deepEqual(await sweepDeadWorkerQueues(db.redis, 'self'), ['gone']);
  assert.deepEqual(await queueKeys('gone'), [], 'nothing of the dead worker’s queue is left');
  for (const id of ['alive', 'starting', 'self']) assert.ok((await queueKeys(id)).some((key) => key.endsWith(':wait')), `${id}'s release is still queued`);
  assert.deepEqual(await sweepDeadWorkerQueues(db.redis, 'self'), [], 'a second sweep finds nothing');
});
