import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { keys, LIFECYCLE_QUEUE } from './keys.ts';
import { CAPACITY_KEY, LifecycleClient, publishCapacity, readWorkerCapacities } from './lifecycle.ts';
import { advertiseWorker, lifecycleQueueFor, PlatformUnavailableError } from './platform.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const ref = { tenant: 't1', name: 's1' };
const bounds = { waitMs: 1000, startMs: 5000 };

const db = usePrivateRedis((url) => new Redis(url, { maxRetriesPerRequest: null }));

test('each platform has its own allocation queue; linux keeps the original one', () => {
  assert.equal(lifecycleQueueFor('linux'), LIFECYCLE_QUEUE);
  assert.equal(lifecycleQueueFor('macos'), `${LIFECYCLE_QUEUE}-macos`);
});

test('a worker advertises its platform and capabilities in its capacity record; one that does not reads as linux', async () => {
  await db.redis.del(CAPACITY_KEY);
  advertiseWorker('mac-1', { platform: 'macos', capabilities: ['bare_metal', 'screencapturekit'] });
  await publishCapacity(db.redis, 'mac-1', { max: 1, free: 1, nextFreeAt: 0 });
  await publishCapacity(db.redis, 'old-1', { max: 4, free: 4, nextFreeAt: 0 });
  const raw = JSON.parse((await db.redis.hget(CAPACITY_KEY, 'mac-1'))!) as Record<string, unknown>;
  assert.equal(raw.platform, 'macos');
  assert.deepEqual(raw.capabilities, ['bare_metal', 'screencapturekit']);
  const records = await readWorkerCapacities(db.redis);
  assert.equal(records.get('mac-1')?.platform, 'macos');
  assert.equal(records.get('old-1')?.platform, undefined);
  const client = new LifecycleClient(db.redis);
  try {
    assert.deepEqual(await client.offeredPlatforms(), ['linux', 'macos']);
  } finally {
    await client.close();
  }
});

test('asking for a platform no live worker offers fails at once, naming what is offered, and queues nothing', async () => {
  await db.redis.del(CAPACITY_KEY);
  await publishCapacity(db.redis, 'linux-1', { max: 2, free: 2, nextFreeAt: 0 });
  // A macOS worker whose record went stale is gone.
  await db.redis.hset(CAPACITY_KEY, 'mac-gone', JSON.stringify({ max: 1, free: 1, nextFreeAt: 0, platform: 'macos', at: Date.now() - 60_000 }));
  const client = new LifecycleClient(db.redis);
  try {
    await assert.rejects(client.allocate(ref, bounds, 'pixels', 'macos'), (error: unknown) => {
      assert.ok(error instanceof PlatformUnavailableError);
      assert.equal(error.kind, 'desktop_unavailable');
      assert.match(error.message, /No worker offers macos desktops.*offers linux desktops right now/);
      return true;
    });
    for (const platform of ['linux', 'macos'] as const) {
      assert.equal(await db.redis.exists(`${keys.bullPrefix()}:${lifecycleQueueFor(platform)}:wait`), 0, `nothing queued for ${platform}`);
    }
    await db.redis.del(CAPACITY_KEY);
    await assert.rejects(client.allocate(ref, bounds, 'pixels', 'macos'), /no worker is running right now/);
  } finally {
    await client.close();
  }
});

test('an allocation that asks for macOS goes only to the macOS queue; one that asks for nothing, to linux', async () => {
  await db.redis.del(CAPACITY_KEY);
  advertiseWorker('mac-2', { platform: 'macos', capabilities: [] });
  await publishCapacity(db.redis, 'mac-2', { max: 1, free: 1, nextFreeAt: 0 });
  await publishCapacity(db.redis, 'linux-2', { max: 1, free: 1, nextFreeAt: 0 });
  const seen: Array<[string, string]> = [];
  const connections: Redis[] = [];
  const serve = (queue: string, desktopId: string) => {
    const connection = db.redis.duplicate({ maxRetriesPerRequest: null });
    connections.push(connection);
    return new Worker(queue, async (job) => (seen.push([queue, (job.data as { session: string }).session]), { desktopId }), { connection, prefix: keys.bullPrefix() });
  };
  const workers = [serve(lifecycleQueueFor('macos'), 'd-mac'), serve(lifecycleQueueFor('linux'), 'd-linux')];
  const client = new LifecycleClient(db.redis);
  try {
    await client.ready();
    assert.equal(await client.allocate({ tenant: 't1', name: 'on-mac' }, bounds, 'pixels', 'macos'), 'd-mac');
    assert.equal(await client.allocate({ tenant: 't1', name: 'on-linux' }, bounds, 'pixels'), 'd-linux');
    assert.equal(await client.allocate({ tenant: 't1', name: 'linux-by-name' }, bounds, 'pixels', 'linux'), 'd-linux');
    assert.deepEqual(seen.sort(), [
      [LIFECYCLE_QUEUE, 'linux-by-name'],
      [LIFECYCLE_QUEUE, 'on-linux'],
      [lifecycleQueueFor('macos'), 'on-mac'],
    ].sort());
  } finally {
    await client.close();
    await Promise.all(workers.map((worker) => worker.close()));
    for (const connection of connections) connection.disconnect();
  }
});
