import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { CAPACITY_FRESH_MS, CAPACITY_KEY, readCapacity, retryAfterSeconds } from './lifecycle.ts';

test('retry advice when every desktop is in use: when the next idle one is due, within 1–60 s; 30 s when none is', () => {
  const now = 1_000_000;
  const at = (nextFreeAt: number) => retryAfterSeconds({ workers: 1, max: 2, free: 0, nextFreeAt }, now);
  assert.equal(at(now + 12_300), 13);
  assert.equal(at(now + 200), 1);
  assert.equal(at(now - 5000), 1, 'overdue: the reaper is about to free it');
  assert.equal(at(now + 30 * 60_000), 60);
  assert.equal(at(0), 30);
});

test('capacity adds up the live workers; stale and broken records are left out', async () => {
  const hgetall = async () => ({
    a: JSON.stringify({ max: 4, free: 1, nextFreeAt: 5000, at: 9000 }),
    b: JSON.stringify({ max: 2, free: 0, nextFreeAt: 3000, at: 9500 }),
    gone: JSON.stringify({ max: 8, free: 8, nextFreeAt: 1000, at: 9000 - CAPACITY_FRESH_MS - 1 }),
    broken: JSON.stringify({ max: 'x' }),
  });
  const redis = { hgetall: async (key: string) => (assert.equal(key, CAPACITY_KEY), hgetall()) } as unknown as Redis;
  assert.deepEqual(await readCapacity(redis, 10_000), { workers: 2, max: 6, free: 1, nextFreeAt: 3000 });
});
