import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { AuditLog, type AuditEntry } from './audit-log.ts';
import { keys } from './keys.ts';
import { commandCalls } from './test-support/command-calls.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

let run = 0;

const db = usePrivateRedis();

/** A fresh tenant per test, so tests never see each other's entries. */
const entry = (tenant: string, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  tenant, session: 'main', tool: 'left_click', args: { coordinate: [1, 2] }, outcome: 'ok', ms: 12.5, keyId: 'k_1', at: Date.now(), ...overrides,
});
const freshTenant = () => `t${++run}`;

test('entries come back newest first, with their ids and every field', async () => {
  const log = new AuditLog(db.redis);
  const tenant = freshTenant();
  await log.record(entry(tenant, { tool: 'screenshot', args: {} }));
  const id = await log.record(entry(tenant, { tool: 'type', args: { text: '[redacted: 3 characters]' }, outcome: 'error', kind: 'bad_args', keyId: undefined }));
  const read = await log.read(tenant, 'main');
  assert.deepEqual(read.map((e) => e.tool), ['type', 'screenshot']);
  assert.equal(read[0]!.id, id);
  assert.deepEqual(read[0]!.args, { text: '[redacted: 3 characters]' });
  assert.equal(read[0]!.outcome, 'error');
  assert.equal(read[0]!.kind, 'bad_args');
  assert.equal(read[0]!.keyId, undefined);
  assert.equal(read[1]!.kind, undefined);
  assert.equal(read[1]!.keyId, 'k_1');
  assert.equal(read[1]!.ms, 12.5);
  assert.equal(read[1]!.tenant, tenant);
  assert.equal(read[1]!.session, 'main');
});

test('count and before page through the log', async () => {
  const log = new AuditLog(db.redis);
  const tenant = freshTenant();
  for (let i = 0; i < 7; i++) await log.record(entry(tenant, { args: { i } }));
  const first = await log.read(tenant, 'main', { count: 3 });
  assert.deepEqual(first.map((e) => (e.args as { i: number }).i), [6, 5, 4]);
  const second = await log.read(tenant, 'main', { count: 3, before: first.at(-1)!.id });
  assert.deepEqual(second.map((e) => (e.args as { i: number }).i), [3, 2, 1]);
  const last = await log.read(tenant, 'main', { count: 3, before: second.at(-1)!.id });
  assert.deepEqual(last.map((e) => (e.args as { i: number }).i), [0]);
  assert.equal((await log.read(tenant, 'main')).length, 7, 'default count covers them all');
  await assert.rejects(log.read(tenant, 'main', { before: '1-0 +' }), RangeError);
});

test('sessions and tenants are separate logs', async () => {
  const log = new AuditLog(db.redis);
  const [a, b] = [freshTenant(), freshTenant()];
  await log.record(entry(a));
  await log.record(entry(a, { session: 'other' }));
  assert.equal((await log.read(a, 'main')).length, 1);
  assert.equal((await log.read(a, 'other')).length, 1);
  assert.deepEqual(await log.read(b, 'main'), []);
});

test('the log keeps at most maxEntries, the newest', async () => {
  const log = new AuditLog(db.redis, { maxEntries: 5 });
  const tenant = freshTenant();
  for (let i = 0; i < 12; i++) await log.record(entry(tenant, { args: { i } }));
  assert.equal(await db.redis.xlen(keys.audit(tenant, 'main')), 5);
  assert.deepEqual((await log.read(tenant, 'main')).map((e) => (e.args as { i: number }).i), [11, 10, 9, 8, 7]);
});

test('every append pushes the expiry out to ttlSeconds', async () => {
  const log = new AuditLog(db.redis, { ttlSeconds: 1000 });
  const tenant = freshTenant();
  await log.record(entry(tenant));
  await db.redis.expire(keys.audit(tenant, 'main'), 10);
  await log.record(entry(tenant));
  const ttl = await db.redis.ttl(keys.audit(tenant, 'main'));
  assert.ok(ttl > 990 && ttl <= 1000, `ttl ${ttl}`);

  const short = new AuditLog(db.redis, { ttlSeconds: 1 });
  const gone = freshTenant();
  await short.record(entry(gone));
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.deepEqual(await short.read(gone, 'main'), [], 'an abandoned session\'s log expires');
});

test('an entry is one command to Redis (the script), not a transaction', async () => {
  const log = new AuditLog(db.redis);
  const tenant = freshTenant();
  await log.record(entry(tenant)); // the script's first use on this connection may send its source
  const before = await commandCalls(db.redis);
  await log.record(entry(tenant));
  const after = await commandCalls(db.redis);
  assert.equal((after.evalsha ?? 0) - (before.evalsha ?? 0), 1);
  assert.equal((after.multi ?? 0) - (before.multi ?? 0), 0);
  assert.equal((after.xadd ?? 0) - (before.xadd ?? 0), 1); // inside the script
  assert.equal(await db.redis.xlen(keys.audit(tenant, 'main')), 2);
});
