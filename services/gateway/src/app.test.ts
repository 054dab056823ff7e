/**
 * The gateway's route × role table, through app.request() on a private Redis: every route
 * answers the roles it allows and refuses every other with 403 role_required, in the one
 * `{error, message}` shape; the Host check covers the keyless routes too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { AuditLog, fleetDemand, publishCapacity, readWorkerCapacities, DesktopRegistry, KillSwitch, SessionStore, TenantQuotas, type ActionClient, type LifecycleClient } from '@deskgate/dispatch';
import { pino } from 'pino';
import { startPrivateRedis, type PrivateRedis } from '../../../scripts/lib/redis-server.ts';
import { createApp } from './app.ts';
import { ApiKeyStore } from './auth/api-keys.ts';
import { ROLES, describeRoles, type Role } from './auth/roles.ts';
import { loadConfig } from './config.ts';
import { createGatewayMetrics } from './http/metrics.ts';
import { SessionRouter } from './sessions/session-router.ts';

let server: PrivateRedis;
let redis: Redis;
let app: ReturnType<typeof createApp>;
const keyOf = {} as Record<Role, string>;

const FLEET_TOKEN = 'fleet-token-for-the-autoscaler-0123456789';
let fleetApp: ReturnType<typeof createApp>;

before(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url);
  const log = pino({ level: 'silent' });
  const quotas = new TenantQuotas(redis);
  const apiKeys = new ApiKeyStore(redis);
  const build = (config: ReturnType<typeof loadConfig>) => {
    // Nothing here allocates a desktop or sends an action.
    const router = new SessionRouter(
      { redis, sessions: new SessionStore(redis), desktops: new DesktopRegistry(redis), lifecycle: {} as LifecycleClient, actions: {} as ActionClient, quotas, log },
      config,
    );
    const fleet = async () => fleetDemand(await readWorkerCapacities(redis), 2, config.fleet, 42);
    return createApp({ config, fleetDemand: fleet, redis, apiKeys, router, metrics: createGatewayMetrics(fleet), audit: new AuditLog(redis), killSwitch: new KillSwitch(redis), quotas, log });
  };
  app = build(loadConfig({}));
  fleetApp = build(loadConfig({ DESKGATE_FLEET_TOKEN: FLEET_TOKEN, DESKGATE_FLEET_WARM_DESKTOPS: '1' }));
  for (const role of ROLES) keyOf[role] = (await apiKeys.create('acme', role, role)).key;
});
after(async () => {
  redis?.disconnect();
  await server?.stop();
});

const call = (method: string, path: string, key?: string, body?: unknown, host = 'localhost:7420') =>
  app.request(path, {
    method,
    headers: { host, 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const tools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
/** [method, path, body, the roles it allows]. */
const ROUTES: [string, string, unknown, Role[]][] = [
  ['POST', '/mcp', tools, ['agent']],
  ['POST', '/computer/s1', tools, ['agent']],
  ['GET', '/v1/sessions', undefined, ['agent', 'operator', 'admin']],
  ['DELETE', '/v1/sessions/nope', undefined, ['agent', 'operator', 'admin']],
  ['GET', '/v1/sessions/s1/lock', undefined, ['agent', 'operator', 'admin']],
  ['DELETE', '/v1/sessions/s1/lock', undefined, ['agent']],
  ['GET', '/v1/sessions/s1/audit', undefined, ['operator', 'admin']],
  ['GET', '/v1/approvals', undefined, ['approver', 'operator', 'admin']],
  ['POST', '/v1/approvals/no-such-id', { decision: 'approve' }, ['approver', 'operator', 'admin']],
  ['GET', '/v1/killswitch', undefined, ['operator', 'admin']],
  ['PUT', '/v1/killswitch', { on: false }, ['operator', 'admin']],
  ['GET', '/metrics', undefined, ['operator', 'admin']],
  ['GET', '/v1/keys', undefined, ['admin']],
  ['POST', '/v1/keys', { role: 'agent', label: 'from the test' }, ['admin']],
  ['DELETE', '/v1/keys/k_none', undefined, ['admin']],
];

test('every route answers the roles it allows and refuses the others with 403 role_required, naming the role needed', async () => {
  for (const [method, path, body, allowed] of ROUTES) {
    for (const role of ROLES) {
      const response = await call(method, path, keyOf[role], body);
      const what = `${role} ${method} ${path} → ${response.status}`;
      if (allowed.includes(role)) {
        assert.notEqual(response.status, 403, what);
        assert.ok(response.status < 500, what);
        continue;
      }
      assert.equal(response.status, 403, what);
      const refusal = (await response.json()) as { error: string; message: string };
      assert.equal(refusal.error, 'role_required', what);
      assert.ok(refusal.message.includes(`needs ${describeRoles(allowed)};`), `${what}: ${refusal.message}`);
      assert.ok(refusal.message.includes(`this API key is ${describeRoles([role])}`), `${what}: ${refusal.message}`);
    }
  }
});

test('no key is 401 everywhere but the health probes; /metrics included', async () => {
  for (const [method, path, body] of ROUTES) assert.equal((await call(method, path, undefined, body)).status, 401, `${method} ${path}`);
  assert.equal((await call('GET', '/healthz')).status, 200);
  assert.equal((await call('GET', '/readyz')).status, 200);
});

test('a foreign Host is refused on every route, health probes and metrics included', async () => {
  for (const path of ['/healthz', '/readyz', '/metrics', '/mcp', '/v1/sessions']) {
    const response = await call('GET', path, keyOf.operator, undefined, 'rebound.attacker.example');
    assert.equal(response.status, 403, path);
    assert.equal(((await response.json()) as { error: string }).error, 'forbidden_host');
  }
});

test('errors share one shape: {error, message}', async () => {
  const cases: [Response, number, string][] = [
    [await call('GET', '/v1/nothing-here', keyOf.admin), 404, 'not_found'],
    [await call('PUT', '/v1/killswitch', keyOf.operator, { on: 'yes' }), 400, 'bad_request'],
    [await call('GET', '/v1/sessions/bad%20name/audit', keyOf.operator), 400, 'bad_session_name'],
    [await call('GET', '/v1/sessions/s1/audit?count=0', keyOf.operator), 400, 'bad_query'],
    [await call('POST', '/mcp?coordinate_mode=inches', keyOf.agent, tools), 400, 'bad_coordinate_mode'],
    [await call('POST', '/v1/keys', keyOf.admin, { role: 'root' }), 400, 'bad_request'],
  ];
  for (const [response, status, error] of cases) {
    assert.equal(response.status, status, error);
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['error', 'message']);
    assert.equal(body.error, error);
  }
});

test('an admin manages its own tenant\'s keys only; a new key works at once with its role', async () => {
  const created = await call('POST', '/v1/keys', keyOf.admin, { role: 'approver', label: 'on-call' });
  assert.equal(created.status, 201);
  const { key, keyId, role, tenant } = (await created.json()) as { key: string; keyId: string; role: string; tenant: string };
  assert.deepEqual([role, tenant], ['approver', 'acme']);
  assert.equal((await call('GET', '/v1/approvals', key)).status, 200);
  assert.equal((await call('GET', '/v1/killswitch', key)).status, 403);
  const listed = (await (await call('GET', '/v1/keys', keyOf.admin)).json()) as { keys: { keyId: string; role: string }[] };
  assert.ok(listed.keys.some((k) => k.keyId === keyId && k.role === 'approver'));
  assert.ok(!JSON.stringify(listed).includes('dg_'), 'no key is ever listed');

  const other = await new ApiKeyStore(redis).create('other-tenant', 'theirs', 'agent');
  assert.equal((await call('DELETE', `/v1/keys/${other.keyId}`, keyOf.admin)).status, 404, 'another tenant\'s key is not found');
  assert.ok(!(await (await call('GET', '/v1/keys', keyOf.admin)).text()).includes(other.keyId));
  assert.equal((await call('DELETE', `/v1/keys/${keyId}`, keyOf.admin)).status, 200);
});

test('a key stored before roles existed is an agent', async () => {
  const { createHash } = await import('node:crypto');
  const legacy = 'dg_legacy-key-without-a-role';
  await redis.hset('deskgate:apikeys', createHash('sha256').update(legacy).digest('hex'), JSON.stringify({ tenant: 'acme', keyId: 'k_old', label: '', createdAt: 1 }));
  assert.equal((await call('PUT', '/v1/killswitch', legacy, { on: false })).status, 403);
  assert.equal((await call('GET', '/v1/sessions', legacy)).status, 200);
});

test('the fleet demand route: off (404) without a fleet token; with one, only that token reads the fleet-wide figures', async () => {
  const demand = (target: typeof app, token?: string) =>
    target.request('/v1/fleet/demand', { headers: { host: 'localhost:7420', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  assert.equal((await demand(app, FLEET_TOKEN)).status, 404);
  for (const wrong of [undefined, keyOf.admin, keyOf.operator, `${FLEET_TOKEN}x`]) {
    const refused = await demand(fleetApp, wrong);
    assert.equal(refused.status, 401, `refused: ${wrong === undefined ? 'no token' : 'another token'}`);
    assert.equal(((await refused.json()) as { error: string }).error, 'unauthorized');
  }
  await publishCapacity(redis, 'w-fleet-a', { max: 4, free: 1, nextFreeAt: 0, busy: 3, warm: 1 });
  await publishCapacity(redis, 'w-fleet-b', { max: 4, free: 4, nextFreeAt: 0, busy: 0, warm: 1 });
  try {
    const answered = await demand(fleetApp, FLEET_TOKEN);
    assert.equal(answered.status, 200);
    const body = (await answered.json()) as Record<string, unknown>;
    // Two sessions waiting (this test's reading), one warm desktop wanted: 3 + 2 + 1.
    assert.deepEqual(body, {
      workers: 2,
      desktops: { capacity: 8, busy: 3, warm: 2, free: 5 },
      sessions: { waiting: 2 },
      wanted: { desktops: 6, workers: 2 },
      desktopsPerWorker: 4,
      at: 42,
    });
    // The same figures as Prometheus gauges, for an operator.
    const scraped = await (await fleetApp.request('/metrics', { headers: { host: 'localhost:7420', authorization: `Bearer ${keyOf.operator}` } })).text();
    assert.match(scraped, /^deskgate_fleet_desktops\{state="busy"\} 3$/m);
    assert.match(scraped, /^deskgate_fleet_sessions_waiting 2$/m);
    assert.match(scraped, /^deskgate_fleet_wanted_workers 2$/m);
  } finally {
    await redis.hdel('deskgate:workers:capacity', 'w-fleet-a', 'w-fleet-b');
  }
});
