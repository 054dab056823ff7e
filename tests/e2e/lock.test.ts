/**
 * The desktop lock on the real stack: one controller drives a session's desktop at a time.
 * A second controller (another API key of the tenant, or the same key with another
 * Deskgate-Controller label) is refused with lock_held and nothing reaches the app; the lease
 * is renewed while the holder acts and lapses when it stops; an action queued under an old
 * fencing epoch is refused by the worker; the holder can hand the desktop over at once.
 * The lease is 1.5 s here so expiry is quick to see (30 s by default).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';
import { ApiKeyStore } from '../../services/gateway/src/auth/api-keys.ts';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { connect, errorKind, retryHintOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { Probe } from '../support/probe.ts';

const LEASE_MS = 1500;
const SESSION = 'shared';
const dir = mkdtempSync(join(tmpdir(), 'deskgate-lock-'));

let stack: Stack;
let redis: Redis;
let base: string;
let keyB: { key: string; keyId: string };
let a: McpConnection; // the stack's key
let b: McpConnection; // a second key of the same tenant
let a2: McpConnection; // the stack's key again, as another controller
let probe: Probe;
let target: [number, number];

const ok = (result: ToolResult) => assert.ok(!result.isError, textOf(result));
const refused = (result: ToolResult, kind: string) => assert.equal(errorKind(result), kind, textOf(result));
const presses = (skip: number) => probe.since(skip).filter((e) => e.type === 'press');
const api = (path: string, key: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });
const lockOf = async (key: string) => (await api(`/v1/sessions/${SESSION}/lock`, key)).json() as Promise<{ held: boolean; yours?: boolean; epoch?: number; holder?: string }>;

before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_LOCK_LEASE_MS: String(LEASE_MS) }, tenant: 'locks', logDir: dir });
  redis = new Redis(stack.redisUrl);
  base = stack.mcpUrl.replace(/\/mcp$/, '');
  keyB = await new ApiKeyStore(redis).create('locks', 'second agent');
  const url = `${stack.mcpUrl}/${SESSION}`;
  a = await connect('2026-07-28', url, stack.apiKey);
  b = await connect('2025-11-25', url, keyB.key);
  a2 = await connect('2026-07-28', url, stack.apiKey, { 'Deskgate-Controller': 'second-loop' });
  ok(await a.call('request_access', { apps: ['DeskgateProbe'], reason: 'lock tests' }));
  probe = await Probe.start((await desktopOf(redis, 'locks', SESSION)).display, { geometry: '400x300+100+100', wmClass: 'DeskgateProbe' });
  const area = probe.ready.color_area;
  target = [Math.round(area.x + area.width / 2), Math.round(area.y + area.height / 2)];
  ok(await a.call('screenshot'));
});
after(async () => {
  probe?.stop();
  for (const client of [a, b, a2]) await client?.close();
  redis?.disconnect();
  await stack?.stop();
});

test('a second controller on the same desktop gets lock_held, and nothing reaches the app', async () => {
  const mark = probe.events().length;
  const byKey = await b.call('left_click', { coordinate: target });
  refused(byKey, 'lock_held');
  assert.match(textOf(byKey), /Another controller .*API key k_\w+.*Nothing was done/s);
  const hint = retryHintOf(byKey);
  assert.ok(hint >= 1000 && hint <= Math.ceil(LEASE_MS / 1000) * 1000, `retryAfterMs is the lease left, in whole seconds: ${hint}`);
  const byLabel = await a2.call('left_click', { coordinate: target });
  refused(byLabel, 'lock_held');
  refused(await a2.call('screenshot'), 'lock_held');
  await sleep(250);
  assert.deepEqual(presses(mark), [], 'the refused clicks never reached the probe');
  // The holder is not bothered by them.
  ok(await a.call('left_click', { coordinate: target }));
  await probe.waitFor((e) => e.type === 'press', 5000, mark);
});

test('the lease is renewed while the holder acts: a call longer than the lease keeps the desktop', async () => {
  const waiting = a.call('wait', { duration: (LEASE_MS * 2.5) / 1000 });
  await sleep(LEASE_MS * 1.7);
  refused(await b.call('screenshot'), 'lock_held');
  ok(await waiting);
  refused(await b.call('screenshot'), 'lock_held');
});

test('a holder that stops acting loses the desktop when its lease lapses; the next controller gets it', async () => {
  const before = await lockOf(stack.apiKey);
  assert.equal(before.held, true);
  assert.equal(before.yours, true);
  await sleep(LEASE_MS + 300);
  assert.equal((await lockOf(stack.apiKey)).held, false);
  ok(await b.call('screenshot'));
  const now = await lockOf(keyB.key);
  assert.equal(now.yours, true);
  assert.ok(now.epoch! > before.epoch!, `a new holder gets a higher epoch (${before.epoch} → ${now.epoch})`);
  const seenByA = await lockOf(stack.apiKey);
  assert.equal(seenByA.yours, false);
  assert.match(seenByA.holder!, new RegExp(keyB.keyId));
  refused(await a.call('screenshot'), 'lock_held');
});

test('the worker refuses an action queued under a stale epoch, and runs one under the current epoch', async () => {
  const { id: desktopId } = await desktopOf(redis, 'locks', SESSION);
  const { epoch } = await lockOf(keyB.key);
  ok(await b.call('screenshot')); // the click below is checked against a fresh screenshot
  const send = async (withEpoch: number) => {
    const replyTo = `deskgate:test:replies:${withEpoch}`;
    const now = Date.now();
    const request = { id: `fenced-${withEpoch}`, replyTo, tenant: 'locks', session: SESSION, tool: 'left_click', args: { coordinate: target }, deadline: now + 10_000, sentAt: now, epoch: withEpoch };
    await redis.rpush(keys.desktopActions(desktopId), JSON.stringify(request));
    const popped = await redis.blpop(replyTo, 10);
    assert.ok(popped, 'the worker answered');
    return (JSON.parse(popped[1]) as { result: ToolResult }).result;
  };
  const mark = probe.events().length;
  const stale = await send(epoch! - 1);
  refused(stale, 'stale_epoch');
  assert.match(textOf(stale), /not run/);
  await sleep(250);
  assert.deepEqual(presses(mark), [], 'the stale action never reached the probe');
  ok(await send(epoch!));
  await probe.waitFor((e) => e.type === 'press', 5000, mark);
});

test('only the holder can release the lock; releasing hands the desktop over at once', async () => {
  const byOther = await api(`/v1/sessions/${SESSION}/lock`, stack.apiKey, { method: 'DELETE' });
  assert.equal(byOther.status, 409);
  assert.equal(((await byOther.json()) as { error: string }).error, 'lock_held');
  const byHolder = await api(`/v1/sessions/${SESSION}/lock`, keyB.key, { method: 'DELETE' });
  assert.equal(byHolder.status, 200);
  ok(await a2.call('screenshot'));
  assert.equal((await lockOf(stack.apiKey)).yours, false, 'the label makes a2 another controller than a');
  const again = await api(`/v1/sessions/${SESSION}/lock`, keyB.key, { method: 'DELETE' });
  assert.equal(again.status, 409);
  assert.equal((await api(`/v1/sessions/${SESSION}/lock`, stack.apiKey, { method: 'DELETE', headers: { 'Deskgate-Controller': 'second-loop' } })).status, 200);
  assert.equal((await api(`/v1/sessions/${SESSION}/lock`, stack.apiKey, { method: 'DELETE' })).status, 404);
});

test('a malformed Deskgate-Controller header is refused before anything runs', async () => {
  for (const bad of ['', 'has space', 'x'.repeat(65), '../up', 'a|b']) {
    const mcp = await fetch(`${stack.mcpUrl}/${SESSION}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'Deskgate-Controller': bad },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(mcp.status, 400, `header ${JSON.stringify(bad)}`);
    assert.equal(((await mcp.json()) as { error: string }).error, 'bad_controller');
    assert.equal((await api(`/v1/sessions/${SESSION}/lock`, stack.apiKey, { headers: { 'Deskgate-Controller': bad } })).status, 400);
  }
});

test('another tenant sees no lock on a session of the same name and cannot release it', async () => {
  ok(await a.call('screenshot'));
  const other = await new ApiKeyStore(redis).create('elsewhere');
  assert.deepEqual(await lockOf(other.key), { session: SESSION, held: false });
  assert.equal((await api(`/v1/sessions/${SESSION}/lock`, other.key, { method: 'DELETE' })).status, 404);
  assert.equal((await lockOf(stack.apiKey)).yours, true, 'the holder still holds it');
});

test('the audit log records lock refusals with the controller that was refused', async () => {
  const { entries } = (await (await api(`/v1/sessions/${SESSION}/audit?count=200`, stack.operatorKey)).json()) as { entries: { kind?: string; controller?: string; keyId?: string }[] };
  const refusals = entries.filter((e) => e.kind === 'lock_held');
  assert.ok(refusals.some((e) => e.keyId === keyB.keyId && e.controller === keyB.keyId));
  assert.ok(refusals.some((e) => e.controller?.endsWith('/second-loop')));
});
