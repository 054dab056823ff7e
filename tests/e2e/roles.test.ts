/**
 * Roles of API keys on the real stack. What an attacker once did with only an agent's key —
 * approve its own access request, lift its tenant's kill switch, end a session another
 * controller was driving, read /metrics without a key or through a rebound Host — is replayed:
 * each is refused AND nothing changed. Keys of the other roles cannot drive a desktop; an
 * admin manages its tenant's keys; the keys CLI makes keys with a role.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { ApiKeyStore } from '../../services/gateway/src/auth/api-keys.ts';
import { repoRoot, startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { connect, errorKind, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';

const TENANT = 'roles';
const dir = mkdtempSync(join(tmpdir(), 'deskgate-roles-'));
const policyFile = join(dir, 'policy.json');
writeFileSync(policyFile, JSON.stringify({ tenants: { [TENANT]: { approval: 'human', approvalTimeoutSeconds: 60 } } }));

let stack: Stack;
let redis: Redis;
let base: string;
let approverKey: string;
let adminKey: string;
let otherAgent: { key: string; keyId: string };
let agent: McpConnection;

const ok = (result: ToolResult) => assert.ok(!result.isError, textOf(result));
const api = (path: string, key: string | undefined, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', ...(init.headers ?? {}) } });
const json = async <T = Record<string, unknown>>(response: Response) => (await response.json()) as T;
/** 403 role_required, naming the role needed. */
async function refusedForRole(response: Response, needed: RegExp) {
  assert.equal(response.status, 403);
  const body = await json<{ error: string; message: string }>(response);
  assert.equal(body.error, 'role_required');
  assert.match(body.message, needed);
}
/** A GET with a Host header of our choosing (fetch does not let us set one). */
function rawGet(path: string, host: string, key?: string): Promise<number> {
  const target = new URL(`${base}${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path, method: 'GET', headers: { host, ...(key ? { authorization: `Bearer ${key}` } : {}) } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
/** The id of the tenant's first pending access request, as an approver sees it ('' if none within 10 s). */
async function pendingApproval(): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const { approvals } = await json<{ approvals: { id: string }[] }>(await api('/v1/approvals', approverKey));
    if (approvals[0]) return approvals[0].id;
    await sleep(100);
  }
  return '';
}

before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_POLICY_FILE: policyFile, DESKGATE_MAX_DESKTOPS: '6' }, tenant: TENANT, logDir: dir });
  redis = new Redis(stack.redisUrl);
  base = stack.mcpUrl.replace(/\/mcp$/, '');
  const store = new ApiKeyStore(redis);
  approverKey = (await store.create(TENANT, 'on-call', 'approver')).key;
  adminKey = (await store.create(TENANT, 'owner', 'admin')).key;
  otherAgent = await store.create(TENANT, 'second agent');
  agent = await connect('2026-07-28', `${stack.mcpUrl}/mine`, stack.apiKey);
});
after(async () => {
  await agent?.close();
  redis?.disconnect();
  await stack?.stop();
});

test('an agent key cannot approve its own access request: 403, the request stays pending, then an approver decides it', async () => {
  const request = agent.call('request_access', { apps: ['xterm'], reason: 'roles test' });
  const id = await pendingApproval();
  assert.ok(id, 'the request waits for a person');
  await refusedForRole(await api('/v1/approvals', stack.apiKey), /needs an approver, operator or admin key; this API key is an agent key/);
  await refusedForRole(await api(`/v1/approvals/${id}`, stack.apiKey, { method: 'POST', body: JSON.stringify({ decision: 'approve' }) }), /needs an approver, operator or admin key/);
  await sleep(300);
  const still = await json<{ approvals: { id: string }[] }>(await api('/v1/approvals', approverKey));
  assert.deepEqual(still.approvals.map((a) => a.id), [id], 'nothing changed: still pending');
  const settled = await Promise.race([request.then(() => 'settled'), sleep(200).then(() => 'waiting')]);
  assert.equal(settled, 'waiting', 'the agent\'s request_access is still waiting');

  assert.equal((await api(`/v1/approvals/${id}`, approverKey, { method: 'POST', body: JSON.stringify({ decision: 'approve' }) })).status, 200);
  const granted = (await request).structuredContent as { granted: { app: string }[] };
  assert.deepEqual(granted.granted.map((g) => g.app), ['xterm']);
});

test('an agent key cannot lift (or flip) its tenant\'s kill switch: 403, the switch stays on, tools stay off', async () => {
  assert.equal((await api('/v1/killswitch', stack.operatorKey, { method: 'PUT', body: JSON.stringify({ on: true }) })).status, 200);
  try {
    await refusedForRole(await api('/v1/killswitch', stack.apiKey, { method: 'PUT', body: JSON.stringify({ on: false }) }), /needs an operator or admin key; this API key is an agent key/);
    await refusedForRole(await api('/v1/killswitch', stack.apiKey), /operator or admin/);
    await refusedForRole(await api('/v1/killswitch', approverKey, { method: 'PUT', body: JSON.stringify({ on: false }) }), /this API key is an approver key/);
    await sleep(600);
    const state = (await json(await api('/v1/killswitch', stack.operatorKey))) as { global: boolean; tenant: boolean; lastFlip: { role: string; on: boolean } | null };
    assert.deepEqual([state.global, state.tenant, state.lastFlip?.role, state.lastFlip?.on], [false, true, 'operator', true], 'nothing changed, nor the record of the last flip');
    assert.deepEqual(await agent.listTools(), []);
    assert.equal(errorKind(await agent.call('list_granted_applications')), 'disabled');
  } finally {
    assert.equal((await api('/v1/killswitch', stack.operatorKey, { method: 'PUT', body: JSON.stringify({ on: false }) })).status, 200);
  }
  await sleep(600);
  ok(await agent.call('list_granted_applications'));
});

test('approver, operator and admin keys cannot drive a desktop: MCP answers 403 before any session exists', async () => {
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  for (const [role, key] of [['approver', approverKey], ['operator', stack.operatorKey], ['admin', adminKey]] as const) {
    for (const path of ['/mcp/not-for-you', '/computer/not-for-you']) {
      const response = await api(path, key, { method: 'POST', body: initialize, headers: { accept: 'application/json, text/event-stream' } });
      await refusedForRole(response, new RegExp(`needs an agent key; this API key is an? ${role} key`));
    }
    await assert.rejects(connect('2026-07-28', `${stack.mcpUrl}/not-for-you`, key), `the official client cannot connect with an ${role} key`);
  }
  assert.equal(await redis.exists(`deskgate:session:${TENANT}:not-for-you`), 0, 'no session was started');
});

test('an agent ends a session only as its controller: another controller gets 409, and the session keeps its desktop', async () => {
  const held = await connect('2025-11-25', `${stack.mcpUrl}/held`, stack.apiKey);
  try {
    ok(await held.call('list_granted_applications'));
    const before = await desktopOf(redis, TENANT, 'held');
    for (const [key, headers] of [[otherAgent.key, {}], [stack.apiKey, { 'Deskgate-Controller': 'another-loop' }]] as const) {
      const refused = await api('/v1/sessions/held', key, { method: 'DELETE', headers });
      assert.equal(refused.status, 409);
      const body = await json<{ error: string; message: string }>(refused);
      assert.equal(body.error, 'lock_held');
      assert.match(body.message, /Another controller holds this session's desktop \(API key k_\w+\), so it was not ended\. Only its holder or an operator key can end it/);
    }
    await sleep(300);
    ok(await held.call('list_granted_applications'));
    assert.equal((await desktopOf(redis, TENANT, 'held')).id, before.id, 'nothing changed: same desktop');
    assert.ok(await redis.exists(`deskgate:desktop:${before.id}:alive`));

    // The holder may end it.
    assert.equal((await api('/v1/sessions/held', stack.apiKey, { method: 'DELETE' })).status, 200);
    assert.equal(await redis.exists(`deskgate:session:${TENANT}:held`), 0);
  } finally {
    await held.close();
  }
});

test('an operator ends any session of its tenant, held or not; an approver ends none', async () => {
  const held = await connect('2026-07-28', `${stack.mcpUrl}/operated`, stack.apiKey);
  try {
    ok(await held.call('list_granted_applications'));
    await refusedForRole(await api('/v1/sessions/operated', approverKey, { method: 'DELETE' }), /needs an agent, operator or admin key/);
    assert.equal((await api('/v1/sessions/operated', stack.operatorKey, { method: 'DELETE' })).status, 200);
    assert.equal(await redis.exists(`deskgate:session:${TENANT}:operated`), 0);
  } finally {
    await held.close();
  }
});

test('an agent lists the sessions its key started; an operator lists every session of the tenant', async () => {
  const theirs = await connect('2026-07-28', `${stack.mcpUrl}/theirs`, otherAgent.key);
  try {
    ok(await theirs.call('list_granted_applications'));
  } finally {
    await theirs.close();
  }
  type Listed = { sessions: { name: string; createdBy: string | null }[] };
  const mine = await json<Listed>(await api('/v1/sessions', stack.apiKey));
  assert.ok(mine.sessions.some((s) => s.name === 'mine'));
  assert.ok(!mine.sessions.some((s) => s.name === 'theirs'), 'not another agent\'s');
  const all = await json<Listed>(await api('/v1/sessions', stack.operatorKey));
  assert.deepEqual(all.sessions.find((s) => s.name === 'theirs')?.createdBy, otherAgent.keyId);
  assert.ok(all.sessions.some((s) => s.name === 'mine'));
});

test('/metrics needs an operator key; the Host check covers the health probes and metrics too', async () => {
  assert.equal((await api('/metrics', undefined)).status, 401);
  await refusedForRole(await api('/metrics', stack.apiKey), /needs an operator or admin key/);
  const metrics = await api('/metrics', stack.operatorKey);
  assert.equal(metrics.status, 200);
  assert.match(await metrics.text(), /deskgate_gateway_tool_call_seconds/);
  assert.equal((await api('/healthz', undefined)).status, 200, 'health probes stay keyless');
  assert.equal((await api('/readyz', undefined)).status, 200);
  for (const path of ['/healthz', '/readyz', '/metrics']) {
    assert.equal(await rawGet(path, 'rebound.attacker.example', stack.operatorKey), 403, `${path} through a rebound name`);
    assert.equal(await rawGet(path, 'localhost', stack.operatorKey), 200, `${path} by a local name`);
  }
  await refusedForRole(await api('/v1/sessions/mine/audit', stack.apiKey), /needs an operator or admin key/);
});

test('an admin makes keys with a role for its tenant; other roles cannot touch keys', async () => {
  await refusedForRole(await api('/v1/keys', stack.apiKey, { method: 'POST', body: JSON.stringify({ role: 'admin' }) }), /needs an admin key; this API key is an agent key/);
  await refusedForRole(await api('/v1/keys', stack.operatorKey), /needs an admin key; this API key is an operator key/);
  const created = await api('/v1/keys', adminKey, { method: 'POST', body: JSON.stringify({ role: 'approver', label: 'night shift' }) });
  assert.equal(created.status, 201);
  const { key, keyId, role } = await json<{ key: string; keyId: string; role: string }>(created);
  assert.equal(role, 'approver');
  assert.equal((await api('/v1/approvals', key)).status, 200);
  assert.equal((await api('/v1/keys/' + keyId, adminKey, { method: 'DELETE' })).status, 200);
  await sleep(600);
  assert.equal((await api('/v1/approvals', key)).status, 401, 'revoked');
});

test('the keys CLI creates keys with a role', async () => {
  // Run without blocking this process: a loop blocked for seconds (the CLI starting) misses the
  // gateway closing an idle keep-alive connection, and the next fetch goes out on it and fails.
  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const argv = ['--import', 'tsx', `${repoRoot}services/gateway/src/cli/keys.ts`, ...args];
      execFile(process.execPath, argv, { env: { ...process.env, REDIS_URL: stack.redisUrl }, encoding: 'utf8' }, (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
    });
  const made = await cli('create', TENANT, '--role', 'operator', 'from', 'the', 'cli');
  assert.equal(made.status, 0, made.stderr);
  const { key, role } = JSON.parse(made.stdout) as { key: string; role: string };
  assert.equal(role, 'operator');
  assert.equal((await api('/v1/killswitch', key)).status, 200);
  const agentKey = JSON.parse((await cli('create', TENANT)).stdout) as { key: string; role: string };
  assert.equal(agentKey.role, 'agent', 'the role defaults to agent');
  const bad = await cli('create', TENANT, '--role', 'root');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /a role is one of: agent, approver, operator, admin/);
  const listed = await cli('list', TENANT);
  assert.match(listed.stdout, /"label":"from the cli"/);
  assert.ok(!listed.stdout.includes('dg_'), 'no key is listed');
});
