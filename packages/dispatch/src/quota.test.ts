import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { keys } from './keys.ts';
import { QuotaExceededError, TenantQuotas } from './quota.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

let run = 0;
const freshTenant = () => `q${++run}`;

const db = usePrivateRedis();

/** A session as the worker records it once its desktop is allocated. */
const inUse = (tenant: string, name: string) => db.redis.sadd(keys.sessionsOfTenant(tenant), name);

test('calls within the per-second limit pass; the next is refused with when to retry; a new window lets calls in again', async () => {
  const quotas = new TenantQuotas(db.redis, { callsPerSecond: 5 });
  const tenant = freshTenant();
  for (let i = 0; i < 5; i++) await quotas.countCall(tenant);
  const refused = await quotas.countCall(tenant).then(() => undefined, (error: unknown) => error);
  assert.ok(refused instanceof QuotaExceededError);
  assert.equal(refused.kind, 'quota_exceeded');
  assert.match(refused.message, /limit of 5 tool calls per second.*retry in (0\.\d|1) s/);
  const said = Number(/retry in ([\d.]+) s/.exec(refused.message)![1]);
  assert.equal(refused.retryAfterMs, said * 1000, 'the hint a client reads is the one the message gives');
  await quotas.countCall(freshTenant()); // another tenant has its own window
  const ttl = await db.redis.pttl(keys.tenantCalls(tenant));
  assert.ok(ttl > 0 && ttl <= 1000, `the counter expires with its window (${ttl} ms)`);
  await sleep(ttl + 50);
  await quotas.countCall(tenant);
});

test('a limit of 0 calls per second is no limit, and touches no key', async () => {
  const quotas = new TenantQuotas(db.redis, { callsPerSecond: 0 });
  const tenant = freshTenant();
  for (let i = 0; i < 50; i++) await quotas.countCall(tenant);
  assert.equal(await db.redis.exists(keys.tenantCalls(tenant)), 0);
});

test('a tenant at its session quota is refused a new session, not one it already has; another tenant is not affected', async () => {
  const quotas = new TenantQuotas(db.redis, { maxSessions: 2 });
  const tenant = freshTenant();
  await inUse(tenant, 'a');
  const release = await quotas.reserveSession({ tenant, name: 'b' });
  const refused = await quotas.reserveSession({ tenant, name: 'c' }).then(() => undefined, (error: unknown) => error);
  assert.ok(refused instanceof QuotaExceededError);
  assert.match(refused.message, /2 sessions.*limit of concurrent sessions is 2.*"c" was not started/);
  await quotas.reserveSession({ tenant, name: 'a' });
  await quotas.reserveSession({ tenant, name: 'b' });
  await quotas.reserveSession({ tenant: freshTenant(), name: 'c' });
  // b's allocation failed: its place is free again.
  await release();
  const c = await quotas.reserveSession({ tenant, name: 'c' });
  await inUse(tenant, 'c');
  await c();
  await assert.rejects(quotas.reserveSession({ tenant, name: 'd' }), QuotaExceededError);
  assert.equal(await db.redis.exists(keys.tenantSessionReservations(tenant)), 0, 'no reservation is left behind');
});

test('a reservation that is never released lapses', async () => {
  const quotas = new TenantQuotas(db.redis, { maxSessions: 1, reservationMs: 100 });
  const tenant = freshTenant();
  await quotas.reserveSession({ tenant, name: 'stuck' });
  await assert.rejects(quotas.reserveSession({ tenant, name: 'next' }), QuotaExceededError);
  await sleep(150);
  await quotas.reserveSession({ tenant, name: 'next' });
});

test('concurrent first calls of new sessions never overshoot the quota', async () => {
  const quotas = new TenantQuotas(db.redis, { maxSessions: 3 });
  const tenant = freshTenant();
  const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => quotas.reserveSession({ tenant, name: `s${i}` })));
  assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 3);
});
