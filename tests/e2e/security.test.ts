/**
 * The refusals of the vertical slice, on the real stack: authentication, tenant isolation,
 * Origin/Host validation, bad input that changes nothing, and helpers that are started once
 * per desktop and survive being killed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ApiKeyStore, VERIFY_CACHE_MS } from '../../services/gateway/src/auth/api-keys.ts';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { closeTo, decodeImage, hex } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { Probe } from '../support/probe.ts';

const COLOR = '#cc3344';
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

function post(url: string, headers: Record<string, string>, body = initialize) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
}

/** A POST over node:http, which (unlike fetch) lets us set Host and read a 413 sent before the body is consumed. */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const target = new URL(url);
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    // The server may answer and close before the whole body is written.
    req.on('error', (error) => (req.writableFinished ? undefined : reject(error)));
    req.end(body);
  });
}

describe('security of the vertical slice', () => {
  let stack: Stack;
  let redis: Redis;
  let keyB: string;
  let alice: McpConnection;
  let probe: Probe;

  before(async () => {
    // The helpers test sends 100 calls back to back, faster than the default 100 calls per second
    // on a quick host; the rate limit has its own test (quotas.test.ts).
    stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_MAX_DESKTOPS: '6', DESKGATE_TENANT_CALLS_PER_SECOND: '0' }, tenant: 'tenant-a', logDir: mkdtempSync(join(tmpdir(), 'deskgate-sec-')) });
    redis = new Redis(stack.redisUrl);
    keyB = (await new ApiKeyStore(redis).create('tenant-b')).key;
    alice = await connect('2025-11-25', `${stack.mcpUrl}/shared`, stack.apiKey);
    assert.ok(!(await alice.call('request_access', { apps: ['DeskgateProbe'], reason: 'test' })).isError);
    assert.ok(!(await alice.call('screenshot')).isError);
    probe = await Probe.start((await desktopOf(redis, 'tenant-a', 'shared')).display, { color: COLOR, geometry: '600x400+0+0' });
  });
  after(async () => {
    probe?.stop();
    await alice?.close();
    redis?.disconnect();
    await stack?.stop();
  });

  test('no key, a malformed header or a wrong key get 401 with a Bearer challenge', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer dg_not-a-real-key' }, { authorization: `Bearer ${stack.apiKey}x` }] as Record<string, string>[]) {
      const response = await post(stack.mcpUrl, headers);
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="deskgate"/);
    }
    assert.equal((await fetch(`${stack.mcpUrl.replace('/mcp', '')}/v1/sessions`)).status, 401);
  });

  test('a revoked key is refused within half a second, on a gateway that had just verified it', async () => {
    const { key, keyId } = await new ApiKeyStore(redis).create('tenant-a', 'short-lived');
    const listSessions = () => fetch(`${stack.mcpUrl.replace('/mcp', '')}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal((await listSessions()).status, 200);
    // Revoked from another process (as `npm run keys -- revoke` does), not through this gateway.
    assert.equal(await new ApiKeyStore(redis).revoke(keyId), true);
    await sleep(VERIFY_CACHE_MS + 100);
    assert.equal((await listSessions()).status, 401);
  });

  test('a body that is not JSON gets a JSON-RPC parse error, and the endpoint keeps serving', async () => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": ', 'not json at all', '']) {
      const response = await post(stack.mcpUrl, { authorization: `Bearer ${stack.apiKey}` }, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32700);
    }
    assert.ok(!(await alice.call('list_granted_applications')).isError);
  });

  test('a hostile Origin is refused even with a valid key', async () => {
    const response = await post(stack.mcpUrl, { authorization: `Bearer ${stack.apiKey}`, origin: 'http://evil.example' });
    assert.equal(response.status, 403);
    const allowed = await post(stack.mcpUrl, { authorization: `Bearer ${stack.apiKey}`, origin: 'http://localhost:3000' });
    assert.equal(allowed.status, 200);
  });

  test('a foreign Host header is refused (DNS rebinding)', async () => {
    const status = await rawPost(stack.mcpUrl, { host: 'attacker.example', authorization: `Bearer ${stack.apiKey}` }, initialize);
    assert.equal(status, 403);
  });

  test('tenant B can neither see nor drive tenant A\'s session of the same name', async () => {
    const bob = await connect('2026-07-28', `${stack.mcpUrl}/shared`, keyB);
    try {
      const skip = probe.events().length;
      const area = probe.ready.color_area;
      const [x, y] = [area.x + area.width / 2, area.y + area.height / 2];
      assert.ok(!(await bob.call('request_access', { apps: ['DeskgateProbe'], reason: 'test' })).isError);
      const shot = decodeImage(imageOf(await bob.call('screenshot')).data);
      assert.ok(!closeTo(shot.pixel(x, y), hex(COLOR)), 'B sees a desktop without A\'s window');
      const aliceShot = decodeImage(imageOf(await alice.call('screenshot')).data);
      assert.ok(closeTo(aliceShot.pixel(x, y), hex(COLOR)), 'A still sees its window');
      // On B's own desktop that point is the background: refused, and nothing of A's is reachable anyway.
      assert.equal(errorKind(await bob.call('left_click', { coordinate: [x, y] })), 'no_app_window');
      assert.equal(errorKind(await bob.call('type', { text: 'from tenant b' })), 'focus_not_granted');
      await sleep(300);
      assert.deepEqual(probe.since(skip), [], 'A\'s app received nothing from B');
      assert.notEqual((await desktopOf(redis, 'tenant-b', 'shared')).id, (await desktopOf(redis, 'tenant-a', 'shared')).id);

      const base = stack.mcpUrl.replace('/mcp', '');
      const listB = (await (await fetch(`${base}/v1/sessions`, { headers: { authorization: `Bearer ${keyB}` } })).json()) as { sessions: { name: string }[] };
      assert.deepEqual(listB.sessions.map((s) => s.name), ['shared']);
      const ended = await fetch(`${base}/v1/sessions/shared`, { method: 'DELETE', headers: { authorization: `Bearer ${keyB}` } });
      assert.equal(ended.status, 200);
      assert.ok(!(await alice.call('cursor_position')).isError, 'ending B\'s session left A\'s alone');
      await bob.call('request_access', { apps: ['DeskgateProbe'], reason: 'test' });
      const again = await bob.call('screenshot');
      assert.ok(!again.isError, `B's next call starts a fresh session: ${textOf(again)}`);
    } finally {
      await bob.close();
    }
  });

  test('invalid arguments get clear tool errors, change nothing, and the server keeps serving', async () => {
    const skip = probe.events().length;
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['left_click', { coordinate: 'here' }, /coordinate/],
      ['left_click', {}, /coordinate/],
      ['left_click', { coordinate: [5000, 10] }, /outside/],
      ['scroll', { coordinate: [10, 10], scroll_direction: 'up', scroll_amount: 1000 }, /scroll_amount/],
      ['key', { text: 'ctrl+nosuchkey' }, /nosuchkey/],
      ['key', { text: 'a', repeat: 1e9 }, /repeat/],
      ['type', { text: 'x'.repeat(20_001) }, /20000/],
      ['wait', { duration: -1 }, /duration/],
      ['hold_key', { text: 'shift', duration: 'long' }, /duration/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await alice.call(tool, args);
      assert.equal(errorKind(result), 'bad_args', `${tool} ${JSON.stringify(args).slice(0, 80)} → ${textOf(result)}`);
      assert.match(textOf(result), message);
    }
    const huge = await rawPost(`${stack.mcpUrl}/shared`, { authorization: `Bearer ${stack.apiKey}` }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'type', arguments: { text: 'y'.repeat(2_000_000) } } }));
    assert.equal(huge, 413);
    await sleep(200);
    assert.deepEqual(probe.since(skip).filter((e) => e.type !== 'motion_drag'), [], 'the app received nothing');
    assert.ok(!(await alice.call('screenshot')).isError, 'still serving');
  });

  test('helpers are started once per desktop and survive being killed', async () => {
    const before = await desktopOf(redis, 'tenant-a', 'shared');
    const area = probe.ready.color_area;
    for (let i = 0; i < 50; i++) {
      const moved = await alice.call('mouse_move', { coordinate: [area.x + 10 + i, area.y + 10] });
      assert.ok(!moved.isError, textOf(moved));
      const shot = await alice.call('screenshot');
      assert.ok(!shot.isError, `screenshot ${i}: ${textOf(shot)}`);
    }
    const steady = await desktopOf(redis, 'tenant-a', 'shared');
    assert.deepEqual([steady.capturePid, steady.inputPid], [before.capturePid, before.inputPid], 'same helper processes across 100 actions');

    process.kill(before.inputPid, 'SIGKILL');
    process.kill(before.capturePid, 'SIGKILL');
    await sleep(100);
    const moved = await alice.call('mouse_move', { coordinate: [area.x + 42, area.y + 24] });
    assert.ok(!moved.isError, textOf(moved));
    assert.equal(textOf(await alice.call('cursor_position')), `(${area.x + 42}, ${area.y + 24})`);
    assert.ok(!(await alice.call('screenshot')).isError);
    const after = await desktopOf(redis, 'tenant-a', 'shared');
    assert.notEqual(after.inputPid, before.inputPid);
    assert.notEqual(after.capturePid, before.capturePid);
  });
});
