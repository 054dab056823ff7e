/**
 * The audit log on the real stack: every tool call — run, refused at the gateway, or for a
 * tool that does not exist — is in the session's audit log and the gateway's log with its
 * outcome, kind and duration; typed text is redacted from both unless configured otherwise;
 * the API is authenticated, for operator keys, and tenant-scoped; the log keeps at most the
 * configured entries. (Calls on sessions that do not exist are not stored: see quotas.test.ts.)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import type { StoredAuditEntry } from '@deskgate/dispatch';
import { ApiKeyStore } from '../../services/gateway/src/auth/api-keys.ts';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { connect, errorKind, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { Probe } from '../support/probe.ts';

const SECRET = 'correct-horse-battery-staple-0451';

/** A full-tier app window on the session's desktop; mapped last, it holds the keyboard focus. */
let probe: Probe | undefined;
async function startProbe(redis: Redis, tenant: string, session: string): Promise<Probe> {
  const { display, xauthority } = await desktopOf(redis, tenant, session);
  return Probe.start(display, { wmClass: 'DeskgateProbe', xauthority });
}
const MAX_ENTRIES = 5;

interface AuditPage {
  session: string;
  entries: StoredAuditEntry[];
  next: string | null;
}

const baseOf = (stack: Stack) => stack.mcpUrl.replace(/\/mcp$/, '');
const readAudit = (stack: Stack, apiKey: string | undefined, session: string, query = '') =>
  fetch(`${baseOf(stack)}/v1/sessions/${session}/audit${query}`, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
const auditOf = async (stack: Stack, apiKey: string, session: string, query = ''): Promise<AuditPage> => {
  const response = await readAudit(stack, apiKey, session, query);
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as AuditPage;
};

/** The gateway's log lines for tool calls, once at least `count` of them have been written. */
async function toolCallLines(stack: Stack, count: number): Promise<{ raw: string; lines: Record<string, unknown>[] }> {
  const until = Date.now() + 5000;
  for (;;) {
    const raw = readFileSync(`${stack.logDir}/gateway.log`, 'utf8');
    const lines = raw.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.msg === 'tool call');
    if (lines.length >= count || Date.now() > until) return { raw, lines };
    await sleep(50);
  }
}

describe('audit log, text redacted (the default)', () => {
  let stack: Stack;
  let redis: Redis;
  let keyB: string;
  let operatorB: string;
  let alice: McpConnection;

  before(async () => {
    stack = await startStack({
      env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_AUDIT_MAX_ENTRIES: String(MAX_ENTRIES) },
      tenant: 'tenant-a',
      logDir: mkdtempSync(join(tmpdir(), 'deskgate-audit-')),
    });
    redis = new Redis(stack.redisUrl);
    keyB = (await new ApiKeyStore(redis).create('tenant-b')).key;
    operatorB = (await new ApiKeyStore(redis).create('tenant-b', 'ops', 'operator')).key;
    alice = await connect('2026-07-28', `${stack.mcpUrl}/audited`, stack.apiKey);
  });
  after(async () => {
    probe?.stop();
    await alice?.close();
    redis?.disconnect();
    await stack?.stop();
  });

  test('every call is recorded with tool, outcome, kind and duration, and the secret nowhere', async () => {
    assert.ok(!(await alice.call('request_access', { apps: ['DeskgateProbe'], reason: 'audit test' })).isError);
    // Typing needs a granted app holding the focus: a new window takes it.
    probe = await startProbe(redis, 'tenant-a', 'audited');
    const shot = await alice.call('screenshot');
    assert.ok(!shot.isError, textOf(shot));
    const typed = await alice.call('type', { text: SECRET });
    assert.ok(!typed.isError, textOf(typed));
    assert.equal(errorKind(await alice.call('left_click', { coordinate: 'here' })), 'bad_args');
    assert.equal(errorKind(await alice.call('no_such_tool', { text: 'hello' })), 'bad_args');

    const { entries, session } = await auditOf(stack, stack.operatorKey, 'audited');
    assert.equal(session, 'audited');
    assert.deepEqual(entries.map((e) => [e.tool, e.outcome, e.kind ?? null]), [
      ['no_such_tool', 'error', 'bad_args'],
      ['left_click', 'error', 'bad_args'],
      ['type', 'ok', null],
      ['screenshot', 'ok', null],
      ['request_access', 'ok', null],
    ]);
    for (const entry of entries) {
      assert.equal(entry.tenant, 'tenant-a');
      assert.equal(entry.session, 'audited');
      assert.match(entry.id, /^\d+-\d+$/);
      assert.ok(entry.ms >= 0 && entry.ms < 60_000, `ms ${entry.ms}`);
      assert.ok(Math.abs(entry.at - Date.now()) < 120_000, `at ${entry.at}`);
      assert.match(entry.keyId ?? '', /^k_/);
    }
    assert.deepEqual(entries[2]!.args, { text: `[redacted: ${SECRET.length} characters]` });
    assert.deepEqual(entries[1]!.args, { coordinate: 'here' }, 'a refused call is recorded as sent');
    assert.ok(!JSON.stringify(entries).includes(SECRET), 'the secret is not in the audit log');
    assert.ok(!JSON.stringify(await redis.xrange('deskgate:audit:tenant-a:audited', '-', '+')).includes(SECRET), 'nor in Redis');

    const { raw, lines } = await toolCallLines(stack, 5);
    assert.ok(!raw.includes(SECRET), 'the secret is not in the gateway log');
    assert.ok(!raw.includes(stack.apiKey), 'nor is the API key');
    const logged = lines.filter((line) => line.session === 'audited').map((line) => [line.tool, line.outcome, line.kind ?? null, typeof line.ms, line.level]);
    assert.deepEqual(logged, [
      ['request_access', 'ok', null, 'number', 30],
      ['screenshot', 'ok', null, 'number', 30],
      ['type', 'ok', null, 'number', 30],
      ['left_click', 'error', 'bad_args', 'number', 30],
      ['no_such_tool', 'error', 'bad_args', 'number', 30],
    ]);
    assert.deepEqual(lines.find((line) => line.tool === 'type')!.args, { text: `[redacted: ${SECRET.length} characters]` });
  });

  test('the audit API is tenant-scoped: tenant B sees only its own session of the same name', async () => {
    const empty = await auditOf(stack, operatorB, 'audited');
    assert.deepEqual(empty, { session: 'audited', entries: [], next: null });

    const bob = await connect('2025-11-25', `${stack.mcpUrl}/audited`, keyB);
    try {
      assert.ok(!(await bob.call('list_granted_applications')).isError);
      assert.equal(errorKind(await bob.call('wait', { duration: -1 })), 'bad_args');
    } finally {
      await bob.close();
    }
    const bobs = await auditOf(stack, operatorB, 'audited');
    assert.deepEqual(bobs.entries.map((e) => [e.tenant, e.tool]), [['tenant-b', 'wait'], ['tenant-b', 'list_granted_applications']]);
    const alices = await auditOf(stack, stack.operatorKey, 'audited');
    assert.ok(alices.entries.every((e) => e.tenant === 'tenant-a' && e.tool !== 'wait'), 'A does not see B\'s call');
  });

  test('no key gets 401, a wrong key 401, bad query values 400 with the rule', async () => {
    const none = await readAudit(stack, undefined, 'audited');
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal((await readAudit(stack, 'dg_not-a-key', 'audited')).status, 401);
    for (const query of ['?count=0', '?count=abc', '?count=1001', '?count=-3', '?count=', '?before=yesterday', '?before=1-0%20%2B']) {
      const response = await readAudit(stack, stack.operatorKey, 'audited', query);
      assert.equal(response.status, 400, query);
      const body = (await response.json()) as { error: string; message: string };
      assert.equal(body.error, 'bad_query', query);
      assert.match(body.message, /count is a whole number from 1 to 1000|before is an entry id/, query);
    }
    const badName = await readAudit(stack, stack.operatorKey, 'no%20spaces');
    assert.equal(badName.status, 400);
  });

  test('count and before page through the log, newest first', async () => {
    const first = await auditOf(stack, stack.operatorKey, 'audited', '?count=2');
    assert.deepEqual(first.entries.map((e) => e.tool), ['no_such_tool', 'left_click']);
    assert.equal(first.next, first.entries[1]!.id);
    const second = await auditOf(stack, stack.operatorKey, 'audited', `?count=2&before=${first.next}`);
    assert.deepEqual(second.entries.map((e) => e.tool), ['type', 'screenshot']);
    const rest = await auditOf(stack, stack.operatorKey, 'audited', `?count=2&before=${second.next}`);
    assert.deepEqual(rest.entries.map((e) => e.tool), ['request_access']);
    const end = await auditOf(stack, stack.operatorKey, 'audited', `?count=2&before=${rest.entries[0]!.id}`);
    assert.deepEqual(end, { session: 'audited', entries: [], next: null });
  });

  test(`the log keeps only the newest ${MAX_ENTRIES} entries`, async () => {
    // Refused calls are recorded without a desktop, so they make cheap traffic.
    for (let i = 0; i < 12; i++) assert.equal(errorKind(await alice.call('mouse_move', { coordinate: [i, 'y'] })), 'bad_args');
    const { entries } = await auditOf(stack, stack.operatorKey, 'audited', '?count=1000');
    assert.equal(entries.length, MAX_ENTRIES);
    assert.deepEqual(entries.map((e) => (e.args as { coordinate: [number, string] }).coordinate[0]), [11, 10, 9, 8, 7]);
    assert.equal(await redis.xlen('deskgate:audit:tenant-a:audited'), MAX_ENTRIES);
    const ttl = await redis.ttl('deskgate:audit:tenant-a:audited');
    assert.ok(ttl > 604_000 && ttl <= 604_800, `the log expires after 7 days of quiet (ttl ${ttl})`);
  });
});

describe('audit log with DESKGATE_AUDIT_TEXT=true', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_AUDIT_TEXT: 'true' }, logDir: mkdtempSync(join(tmpdir(), 'deskgate-audit-text-')) });
  });
  after(async () => {
    probe?.stop();
    await stack?.stop();
  });

  test('typed text is kept verbatim in the audit log, never in the gateway log', async () => {
    const mcp = await connect('2025-11-25', `${stack.mcpUrl}/kept`, stack.apiKey);
    try {
      assert.ok(!(await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'audit test' })).isError);
      const redis = new Redis(stack.redisUrl);
      probe = await startProbe(redis, stack.tenant, 'kept').finally(() => redis.disconnect());
      const typed = await mcp.call('type', { text: SECRET });
      assert.ok(!typed.isError, textOf(typed));
      assert.equal(errorKind(await mcp.call('computer_batch', { actions: [{ action: 'type', text: SECRET }, { action: 'nope' }] })), 'bad_args');
    } finally {
      await mcp.close();
    }
    const { entries } = await auditOf(stack, stack.operatorKey, 'kept');
    assert.deepEqual(entries.map((e) => [e.tool, e.outcome, e.kind ?? null]), [['computer_batch', 'error', 'bad_args'], ['type', 'ok', null], ['request_access', 'ok', null]]);
    assert.deepEqual(entries[1]!.args, { text: SECRET });
    assert.deepEqual((entries[0]!.args as { actions: unknown[] }).actions[0], { action: 'type', text: SECRET });
    const { lines } = await toolCallLines(stack, 3);
    assert.deepEqual(lines.find((line) => line.tool === 'type')!.args, { text: `[redacted: ${SECRET.length} characters]` });
  });
});
