/**
 * At most once: when a worker dies mid-action, the callers get a clear error quickly, the
 * actions queued behind are never replayed (not by the next worker, not later), and the
 * session carries on with a fresh desktop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { connect, errorKind, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { Probe } from '../support/probe.ts';

let stack: Stack;
let redis: Redis;
let mcp: McpConnection;
let probe: Probe;
let deadWorkerGroup = 0;

before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0' }, logDir: mkdtempSync(join(tmpdir(), 'deskgate-crash-')) });
  redis = new Redis(stack.redisUrl);
  mcp = await connect('2026-07-28', `${stack.mcpUrl}/crash`, stack.apiKey);
});
after(async () => {
  probe?.stop();
  await mcp?.close();
  redis?.disconnect();
  // The killed worker's desktop (Xvfb, helpers) was left running on purpose; clean it up.
  if (deadWorkerGroup) {
    try {
      process.kill(-deadWorkerGroup, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await stack?.stop();
});

test('a worker killed mid-action: clear errors, no replay, a fresh desktop next', async () => {
  assert.ok(!(await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'test' })).isError);
  assert.ok(!(await mcp.call('screenshot')).isError);
  const before = await desktopOf(redis, stack.tenant, 'crash');
  probe = await Probe.start(before.display);
  const { button } = probe.ready;
  assert.ok(!(await mcp.call('screenshot')).isError);

  const started = Date.now();
  const waiting = mcp.call('wait', { duration: 5 });
  await sleep(200);
  // Queued behind the wait on the same desktop.
  const clicking = mcp.call('left_click', { coordinate: [button.x + button.width / 2, button.y + button.height / 2] });
  await sleep(200);
  const skip = probe.events().length;
  deadWorkerGroup = stack.worker.process.pid!;
  process.kill(deadWorkerGroup, 'SIGKILL');

  const [waited, clicked] = await Promise.all([waiting, clicking]);
  const elapsed = Date.now() - started;
  assert.equal(errorKind(waited), 'worker_lost', textOf(waited));
  assert.equal(errorKind(clicked), 'worker_lost', textOf(clicked));
  assert.match(textOf(clicked), /not retried/);
  assert.ok(elapsed < 12_000, `errors arrived after ${elapsed} ms, well before the 30 s action timeout`);

  await stack.startWorker();
  // A new desktop with the session's grants kept: its first answer says the screen was reset.
  const fresh = await mcp.call('screenshot');
  assert.ok(!fresh.isError, textOf(fresh));
  assert.match(textOf(fresh), /desktop was lost.*grants were kept/);
  const after = await desktopOf(redis, stack.tenant, 'crash');
  assert.notEqual(after.id, before.id, 'the session moved to a new desktop');
  // The fresh desktop answers through its own gates: nothing of an app is at that point yet.
  const clicked2 = await mcp.call('left_click', { coordinate: [10, 10] });
  assert.equal(errorKind(clicked2), 'no_app_window', textOf(clicked2));

  await sleep(500);
  assert.deepEqual(probe.since(skip).filter((event) => event.type === 'press' || event.type === 'button'), [], 'the queued click never ran');
});
