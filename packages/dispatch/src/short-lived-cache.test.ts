import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShortLivedCache } from './short-lived-cache.ts';

test('a value is served until its time is up, then forgotten', async () => {
  const cache = new ShortLivedCache<boolean>(40);
  cache.set('acme', false);
  assert.equal(cache.get('acme'), false);
  assert.equal(cache.get('other'), undefined);
  await sleep(60);
  assert.equal(cache.get('acme'), undefined);
});

test('delete and clear forget at once; a full cache starts over instead of growing', () => {
  const cache = new ShortLivedCache<number>(10_000, 2);
  cache.set('a', 1);
  cache.delete('a');
  assert.equal(cache.get('a'), undefined);
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], [undefined, undefined, 3]);
  cache.clear();
  assert.equal(cache.get('c'), undefined);
});
