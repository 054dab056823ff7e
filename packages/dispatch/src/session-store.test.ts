import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initialSessionState } from '@deskgate/computer-use';
import { keys } from './keys.ts';
import { multiOf } from './scripts.ts';
import { SessionStore } from './session-store.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis();

async function save(store: SessionStore, ref: { tenant: string; name: string }, desktopId: string, state: ReturnType<typeof initialSessionState> | null) {
  const multi = multiOf(db.redis);
  store.queueSave(multi, ref, desktopId, state);
  await multi.exec();
}

test('a call\'s save writes the state and lastUsedAt while the session holds that desktop', async () => {
  const store = new SessionStore(db.redis);
  const ref = { tenant: 'acme', name: 'saved' };
  await store.assign(ref, 'd1', initialSessionState(), 1000);
  const state = { ...initialSessionState(), coordinateMode: 'normalized_0_100' as const };
  await save(store, ref, 'd1', state);
  const record = (await store.get(ref))!;
  assert.equal(record.state.coordinateMode, 'normalized_0_100');
  assert.equal(record.createdAt, 1000);
  const used = record.lastUsedAt;
  await save(store, ref, 'd1', null);
  assert.ok((await store.get(ref))!.lastUsedAt >= used);
  assert.equal((await store.get(ref))!.state.coordinateMode, 'normalized_0_100', 'a save without state keeps the state');
});

test('a call that ends after its session was ended does not bring the session\'s key back', async () => {
  const store = new SessionStore(db.redis);
  const ref = { tenant: 'acme', name: 'ended' };
  await store.assign(ref, 'd1', initialSessionState());
  await store.remove(ref);
  await save(store, ref, 'd1', null);
  await save(store, ref, 'd1', initialSessionState());
  assert.equal(await db.redis.exists(keys.session(ref.tenant, ref.name)), 0);
  assert.equal(await store.get(ref), null);
});

test('a call on a desktop the session no longer holds does not overwrite the state its new desktop keeps', async () => {
  const store = new SessionStore(db.redis);
  const ref = { tenant: 'acme', name: 'moved' };
  await store.assign(ref, 'd1', initialSessionState());
  await store.detach(ref, 'd1', 'its worker stopped');
  await save(store, ref, 'd1', { ...initialSessionState(), coordinateMode: 'normalized_0_100' });
  assert.equal((await store.get(ref))!.state.coordinateMode, 'pixels', 'a detached session keeps its state');
  await store.assign(ref, 'd2', initialSessionState());
  await save(store, ref, 'd1', { ...initialSessionState(), coordinateMode: 'normalized_0_100' });
  const record = (await store.get(ref))!;
  assert.equal(record.desktopId, 'd2');
  assert.equal(record.state.coordinateMode, 'pixels');
});
