/**
 * The console's update stream through the gateway app (app.request(), a private Redis): what
 * a role is sent, that a page which stops reading is cut once its backlog fills (so it
 * reconnects and starts over from a snapshot), and that a revoked key ends the stream.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { AuditLog, DesktopRegistry, KillSwitch, SessionStore, TenantQuotas, keys, type ActionClient, type LifecycleClient } from '@deskgate/dispatch';
import { pino } from 'pino';
import { startPrivateRedis, type PrivateRedis } from '../../../../scripts/lib/redis-server.ts';
import { createApp } from '../app.ts';
import { ApiKeyStore } from '../auth/api-keys.ts';
import { loadConfig } from '../config.ts';
import { createGatewayMetrics } from '../http/metrics.ts';
import { SessionRouter } from '../sessions/session-router.ts';
import { EVENT_STREAM_LIMITS } from './event-routes.ts';

let server: PrivateRedis;
let redis: Redis;
let app: ReturnType<typeof createApp>;
let apiKeys: ApiKeyStore;
const HOST = 'localhost:7420';
const ORIGIN = `http://${HOST}`;

before(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url);
  const log = pino({ level: 'silent' });
  const quotas = new TenantQuotas(redis);
  apiKeys = new ApiKeyStore(redis);
  const config = loadConfig({});
  // Nothing here allocates a desktop or sends an action.
  const router = new SessionRouter({ redis, sessions: new SessionStore(redis), desktops: new DesktopRegistry(redis), lifecycle: {} as LifecycleClient, actions: {} as ActionClient, quotas, log }, config);
  const fleet = async () => ({}) as never;
  app = createApp({ config, fleetDemand: fleet, redis, apiKeys, router, metrics: createGatewayMetrics(fleet), audit: new AuditLog(redis), killSwitch: new KillSwitch(redis), quotas, log });
});
after(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** Signs a fresh key of `role` in to the console; the cookie to send. */
async function signedIn(tenant: string, role: 'approver' | 'operator') {
  const { key, keyId } = await apiKeys.create(tenant, role, role);
  const answer = await app.request('/console/api/sign-in', { method: 'POST', headers: { host: HOST, origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
  assert.equal(answer.status, 200);
  return { cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0]!, keyId };
}

type Event = { event: string; data: unknown };

/** Reads a stream's SSE events: `until(stop)` reads on until `stop(events so far)` says so, the stream ends (`ended`) or time runs out. */
function eventsOf(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let ended = false;
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  return {
    get ended() {
      return ended;
    },
    async until(stop: (events: Event[]) => boolean, timeoutMs = 10_000): Promise<Event[]> {
      const events: Event[] = [];
      const deadline = Date.now() + timeoutMs;
      while (!ended && Date.now() < deadline && !stop(events)) {
        pending ??= reader.read();
        const next = await Promise.race([pending, sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
        if (!next) break;
        pending = null;
        if (next.done) ended = true;
        else buffered += decoder.decode(next.value, { stream: true });
        let cut: number;
        while ((cut = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, cut);
          buffered = buffered.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
      }
      return events;
    },
    close: () => reader.cancel().catch(() => undefined),
  };
}

const approval = (tenant: string, id: string) => ({ type: 'approval', approval: { id, tenant, session: 's', apps: [], reason: 'r', flags: {}, proposed: { apps: [], flags: {} }, policyDenied: [], createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString() } });

test('an approver\'s stream opens with the pending approvals (no sessions) and carries its tenant\'s approvals only', async () => {
  const { cookie } = await signedIn('acme', 'approver');
  const answer = await app.request('/console/api/events', { headers: { host: HOST, cookie } });
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/);
  const stream = eventsOf(answer.body!);
  try {
    const first = await stream.until((events) => events.length >= 1);
    assert.deepEqual(first[0], { event: 'snapshot', data: { approvals: [] } }, 'an approver is not sent sessions');
    await redis.publish(keys.consoleEvents('globex'), JSON.stringify(approval('globex', 'theirs')));
    await redis.publish(keys.consoleEvents('acme'), JSON.stringify({ type: 'session', session: 'main' }));
    await redis.publish(keys.consoleEvents('acme'), JSON.stringify(approval('acme', 'ours')));
    await redis.publish(keys.consoleEvents('acme'), 'not an event');
    await redis.publish(keys.consoleEvents('acme'), JSON.stringify({ type: 'approval_gone', id: 'ours' }));
    const next = await stream.until((events) => events.length >= 2);
    assert.deepEqual(next.map((e) => [e.event, (e.data as { id: string }).id]), [['approval', 'ours'], ['approval_gone', 'ours']]);
  } finally {
    await stream.close();
  }
});

test(`a page that stops reading is cut once ${EVENT_STREAM_LIMITS.backlog} events wait for it`, async () => {
  const { cookie } = await signedIn('slow', 'approver');
  const answer = await app.request('/console/api/events', { headers: { host: HOST, cookie } });
  const stream = eventsOf(answer.body!);
  await stream.until((events) => events.length >= 1);
  const sent = EVENT_STREAM_LIMITS.backlog * 3;
  const big = 'x'.repeat(4096); // enough to fill the transport's buffers well before the last event
  for (let i = 0; i < sent; i++) await redis.publish(keys.consoleEvents('slow'), JSON.stringify({ ...approval('slow', `a${i}`), approval: { ...approval('slow', `a${i}`).approval, reason: big } }));
  await sleep(EVENT_STREAM_LIMITS.flushMs + 500);
  const rest = await stream.until(() => false);
  await stream.close();
  assert.equal(stream.ended, true, 'the server ended the stream');
  assert.ok(rest.length < sent, `${rest.length} of ${sent} events delivered`);
});

test('revoking the key ends the stream at the next heartbeat with signed_out', { skip: EVENT_STREAM_LIMITS.heartbeatMs > 20_000 && 'heartbeat too long for a test' }, async () => {
  const { cookie, keyId } = await signedIn('revoked', 'operator');
  const answer = await app.request('/console/api/events', { headers: { host: HOST, cookie } });
  const stream = eventsOf(answer.body!);
  await stream.until((events) => events.length >= 1);
  assert.equal(await apiKeys.revoke(keyId), true);
  const rest = await stream.until(() => false, EVENT_STREAM_LIMITS.heartbeatMs + 5000);
  await stream.close();
  assert.deepEqual(rest.map((e) => e.event), ['signed_out']);
  assert.equal(stream.ended, true);
  assert.equal((await app.request('/console/api/events', { headers: { host: HOST, cookie } })).status, 401, 'and it cannot be opened again');
});
