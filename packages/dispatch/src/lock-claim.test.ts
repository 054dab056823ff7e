import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { DesktopLocks } from './desktop-lock.ts';
import { claimLock } from './lock-claim.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis();

test('a free lock is taken with a new epoch, the caller\'s own is kept, another controller\'s is left alone', async () => {
  const first = await claimLock(db.redis, 'd1', 'k_a', 5000);
  assert.deepEqual(first, { held: true, epoch: 1 });
  assert.deepEqual(await claimLock(db.redis, 'd1', 'k_a', 5000), { held: true, epoch: 1 });
  const other = await claimLock(db.redis, 'd1', 'k_b/loop', 5000);
  assert.equal(other.held, false);
  assert.ok(!other.held && other.holder === 'k_a' && other.leaseLeftMs > 4000);
  const lock = await new DesktopLocks(db.redis).inspect('d1');
  assert.equal(lock?.controller, 'k_a', 'the holder still holds it');
  assert.equal(await new DesktopLocks(db.redis).release('d1', 'k_a'), 'released');
  assert.deepEqual(await claimLock(db.redis, 'd1', 'k_b/loop', 5000), { held: true, epoch: 2 });
});
