import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initialSessionState, noGrants, type Grants } from '@deskgate/computer-use';
import type { Redis } from 'ioredis';
import { ApprovalStore } from './approvals.ts';
import { AuditLog } from './audit-log.ts';
import { parseConsoleEvent, tenantOfConsoleChannel, type ConsoleEvent } from './console-events.ts';
import { keys } from './keys.ts';
import { SessionStore } from './session-store.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis();

/** Listens on the tenant's console channel; `next()` resolves with the next event heard. */
async function listen(redis: Redis, tenant: string) {
  const subscriber = redis.duplicate();
  const heard: ConsoleEvent[] = [];
  let wake: () => void = () => undefined;
  subscriber.on('message', (channel: string, message: string) => {
    assert.equal(tenantOfConsoleChannel(channel), tenant);
    heard.push(parseConsoleEvent(message)!);
    wake();
  });
  await subscriber.subscribe(keys.consoleEvents(tenant));
  return {
    async next(): Promise<ConsoleEvent> {
      while (heard.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return heard.shift()!;
    },
    heard,
    close: () => subscriber.disconnect(),
  };
}

test('a session starting, being called, losing its desktop and ending is told on its tenant\'s channel only', async () => {
  const sessions = new SessionStore(db.redis);
  const ours = await listen(db.redis, 'acme');
  const theirs = await listen(db.redis, 'globex');
  try {
    const ref = { tenant: 'acme', name: 'main' };
    await sessions.assign(ref, 'd1', initialSessionState());
    assert.deepEqual(await ours.next(), { type: 'session', session: 'main' });
    await new AuditLog(db.redis).record({ tenant: 'acme', session: 'main', tool: 'screenshot', args: {}, outcome: 'ok', ms: 3, at: Date.now() });
    assert.deepEqual(await ours.next(), { type: 'session', session: 'main' });
    assert.equal(await sessions.detach(ref, 'd1', 'its worker stopped'), true);
    assert.deepEqual(await ours.next(), { type: 'session', session: 'main' });
    await sessions.remove(ref);
    assert.deepEqual(await ours.next(), { type: 'session', session: 'main' });
    assert.deepEqual(theirs.heard, [], 'another tenant hears nothing');
  } finally {
    ours.close();
    theirs.close();
  }
});

test('an access request parked for a person is told with its details, and told gone once decided', async () => {
  const approvals = new ApprovalStore(db.redis);
  const ours = await listen(db.redis, 'acme');
  try {
    const grants: Grants = { ...noGrants(), apps: [{ app: 'xterm', tier: 'click', category: 'terminal' }] };
    const waiting = approvals.brokerFor('acme', 'main').decide({ apps: ['xterm'], reason: 'edit a file', flags: {} }, { grants, policyDenied: [], flagsRefused: [] }, 10_000, new AbortController().signal);
    const parked = await ours.next();
    assert.equal(parked.type, 'approval');
    const approval = (parked as Extract<ConsoleEvent, { type: 'approval' }>).approval;
    assert.deepEqual([approval.session, approval.reason, approval.proposed], ['main', 'edit a file', grants]);
    assert.deepEqual((await approvals.list('acme')).map((a) => a.id), [approval.id]);
    assert.equal(await approvals.decide('acme', approval.id, 'approved'), true);
    assert.deepEqual(await ours.next(), { type: 'approval_gone', id: approval.id });
    assert.equal(await waiting, 'approved');
  } finally {
    ours.close();
  }
});

test('an access request that times out is told gone', async () => {
  const approvals = new ApprovalStore(db.redis);
  const ours = await listen(db.redis, 'timeouts');
  try {
    const grants = noGrants();
    const waiting = approvals.brokerFor('timeouts', 'main').decide({ apps: ['xterm'], reason: 'r', flags: {} }, { grants, policyDenied: [], flagsRefused: [] }, 1000, new AbortController().signal);
    const { approval } = (await ours.next()) as Extract<ConsoleEvent, { type: 'approval' }>;
    assert.equal(await waiting, 'timeout');
    assert.deepEqual(await ours.next(), { type: 'approval_gone', id: approval.id });
  } finally {
    ours.close();
  }
});

test('a message that is not a console event is not taken for one', () => {
  for (const message of ['', 'not json', '{"type":"approval"}', '{"type":"session"}', '{"type":"other","session":"x"}', '[]']) assert.equal(parseConsoleEvent(message), null, message);
  assert.equal(tenantOfConsoleChannel('deskgate:desktop:d1:live:frames'), null);
});
