/**
 * 10,000 hostile tool calls at one desktop with a full-tier probe app and a click-tier
 * "terminal" (a probe posing as XTerm): random arguments, chords with random Unicode separators
 * and keysym aliases, coordinates on edges, frames and the background. Whatever the calls do,
 * the terminal never receives a keystroke, no window appears that was not there, and every
 * service stays up and keeps answering.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { hostileCalls } from '../support/hostile-calls.ts';
import { connect, errorKind, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { Probe, type Rect } from '../support/probe.ts';
import { topLevelWindows } from '../support/x11.ts';

const CALLS = 10_000;
const SEED = Number(process.env.DESKGATE_FUZZ_SEED ?? 20261201);

const dir = mkdtempSync(join(tmpdir(), 'deskgate-fuzz-'));
const policyFile = join(dir, 'policy.json');
// systemKeyCombos is never given here: the blocklist must hold on its own.
writeFileSync(policyFile, JSON.stringify({ profile: 'seed', default: { apps: { allow: ['DeskgateProbe', 'xterm'] }, flags: { clipboardRead: true, clipboardWrite: true, systemKeyCombos: false } } }));

let stack: Stack;
let redis: Redis;
let mcp: McpConnection;
let display: string;
let xauthority: string | undefined;
let app: Probe;
let terminal: Probe;
const centre = (r: Rect): [number, number] => [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)];

before(async () => {
  stack = await startStack({
    env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_POLICY_FILE: policyFile, DESKGATE_TENANT_CALLS_PER_SECOND: '100000' },
    tenant: 'fuzz',
    logDir: dir,
  });
  redis = new Redis(stack.redisUrl);
  mcp = await connect('2026-07-28', `${stack.mcpUrl}/fuzz`, stack.apiKey);
  await mcp.call('list_granted_applications');
  ({ display, xauthority } = await desktopOf(redis, 'fuzz', 'fuzz'));
  app = await Probe.start(display, { geometry: '500x360+20+40', color: '#3366cc', wmClass: 'DeskgateProbe', xauthority });
  terminal = await Probe.start(display, { geometry: '500x360+560+40', color: '#33cc66', wmClass: 'XTerm', xauthority });
});
after(async () => {
  app?.stop();
  terminal?.stop();
  await mcp?.close();
  redis?.disconnect();
  await stack?.stop();
});

test(`${CALLS} hostile calls: the click-tier terminal never gets a keystroke, no window appears, every service stays up`, { timeout: 15 * 60_000 }, async () => {
  const granted = await mcp.call('request_access', { apps: ['DeskgateProbe', 'xterm'], reason: 'fuzzing the gates', clipboardWrite: true });
  assert.deepEqual((granted.structuredContent as { granted: { app: string; tier: string }[] }).granted.map((g) => `${g.app}:${g.tier}`), ['DeskgateProbe:full', 'xterm:click']);
  assert.ok(!(await mcp.call('screenshot')).isError);
  const windowsBefore = new Set(topLevelWindows(display, xauthority));
  const terminalMark = terminal.events().length;

  const bar = (r: Rect): [number, number] => [r.x + 40, r.y - 8];
  const landmarks = {
    width: 1280,
    height: 800,
    points: [centre(app.ready.color_area), centre(app.ready.text), centre(terminal.ready.color_area), centre(terminal.ready.text), bar(app.ready.window), bar(terminal.ready.window), [1200, 760], [640, 700], [0, 0], [1279, 799]] as [number, number][],
  };
  const kinds = new Map<string, number>();
  let thrown = 0;
  for (const [index, call] of hostileCalls(SEED, CALLS, landmarks).entries()) {
    // Keep a fresh screenshot now and then, so pixel-space coordinates keep landing somewhere.
    if (index % 250 === 0) await mcp.call('screenshot');
    try {
      const result = await mcp.call(call.tool, call.args);
      const kind = errorKind(result) ?? (result.isError ? 'error' : 'ok');
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      assert.notEqual(kind, 'executor_failed', `call ${index} ${call.tool} ${JSON.stringify(call.args).slice(0, 200)}: ${textOf(result)}`);
    } catch (error) {
      // A protocol-level rejection (the client refusing to send a malformed call) is fine; count it.
      thrown++;
      if (!(error instanceof Error) || !/Invalid|MCP error|validation/i.test(error.message)) throw error;
    }
  }
  console.log(`fuzz seed ${SEED}: outcomes ${JSON.stringify(Object.fromEntries([...kinds].sort((a, b) => b[1] - a[1])))}, ${thrown} rejected by the client`);

  const keystrokes = terminal.since(terminalMark).filter((event) => ['key', 'key_release', 'text'].includes(event.type));
  assert.deepEqual(keystrokes, [], 'the click-tier terminal received no keystroke');
  const appeared = topLevelWindows(display, xauthority).filter((id) => !windowsBefore.has(id));
  assert.deepEqual(appeared, [], 'no window appeared');
  assert.ok((kinds.get('ok') ?? 0) > 100, 'the fuzz also did real work, not only refusals');

  assert.equal(stack.gateway.process.exitCode, null, 'the gateway is running');
  assert.equal(stack.worker.process.exitCode, null, 'the worker is running');
  const ready = await fetch(`${stack.mcpUrl.replace(/\/mcp$/, '')}/readyz`);
  assert.equal(ready.status, 200);
  const shot = await mcp.call('screenshot');
  assert.ok(!shot.isError, textOf(shot));
});
