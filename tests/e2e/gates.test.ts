/**
 * The security gates on the real stack. For each gate, the refusal AND that nothing reached
 * the app (the probe apps record every event): no grant, tiers (a click-tier "terminal", a
 * read-tier "browser"), a non-granted window in front (and blacked out in screenshots),
 * system shortcuts, pixel staleness, the kill switch, and human approval across tenants.
 * The probes pose as real apps through their WM_CLASS (XTerm, firefox-esr).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { ApiKeyStore } from '../../services/gateway/src/auth/api-keys.ts';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf, onDisplay } from '../support/desktops.ts';
import { closeTo, decodeImage, hex } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { Probe, type Rect } from '../support/probe.ts';

const dir = mkdtempSync(join(tmpdir(), 'deskgate-gates-'));
const policyFile = join(dir, 'policy.json');
writeFileSync(policyFile, JSON.stringify({ tenants: { humans: { approval: 'human', approvalTimeoutSeconds: 60 } } }));

let stack: Stack;
let redis: Redis;
let mcp: McpConnection;
let base: string;
let humansKey: string;
let humansApprover: string;
const probes: Record<string, Probe> = {};
const centre = (r: Rect): [number, number] => [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)];
const inputEvents = (probe: Probe, skip: number) => probe.since(skip).filter((e) => ['press', 'release', 'key', 'button', 'text'].includes(e.type));
const marks = () => Object.fromEntries(Object.entries(probes).map(([name, probe]) => [name, probe.events().length]));
const nothingSince = async (mark: Record<string, number>) => {
  await sleep(250);
  for (const [name, probe] of Object.entries(probes)) assert.deepEqual(inputEvents(probe, mark[name] ?? 0), [], `${name} received nothing`);
};
const ok = (result: ToolResult) => assert.ok(!result.isError, textOf(result));
const refused = (result: ToolResult, kind: string) => assert.equal(errorKind(result), kind, textOf(result));
const api = (path: string, key: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });

before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_POLICY_FILE: policyFile }, tenant: 'gates', logDir: dir });
  redis = new Redis(stack.redisUrl);
  base = stack.mcpUrl.replace(/\/mcp$/, '');
  humansKey = (await new ApiKeyStore(redis).create('humans')).key;
  humansApprover = (await new ApiKeyStore(redis).create('humans', 'approver', 'approver')).key;
  mcp = await connect('2026-07-28', `${stack.mcpUrl}/gates`, stack.apiKey);
  refused(await mcp.call('screenshot'), 'allowlist_empty');
  const display = await desktopOf(redis, 'gates', 'gates');
  probes.app = await Probe.start(display, { geometry: '400x300+0+0', color: '#3366cc', wmClass: 'DeskgateProbe' });
  probes.terminal = await Probe.start(display, { geometry: '400x300+440+0', color: '#33cc66', wmClass: 'XTerm' });
  probes.browser = await Probe.start(display, { geometry: '400x300+0+420', color: '#cc9933', wmClass: 'firefox-esr' });
  // Started last, so it is in front.
  probes.stranger = await Probe.start(display, { geometry: '400x300+440+420', color: '#cc3366', wmClass: 'Stranger' });
});
after(async () => {
  for (const probe of Object.values(probes)) probe.stop();
  await mcp?.close();
  redis?.disconnect();
  await stack?.stop();
});

test('with nothing granted, screenshots and input are refused', async () => {
  const mark = marks();
  refused(await mcp.call('screenshot'), 'allowlist_empty');
  refused(await mcp.call('left_click', { coordinate: centre(probes.app!.ready.color_area) }), 'allowlist_empty');
  await nothingSince(mark);
});

test('request_access grants by category and policy; streaming and ebook apps never', async () => {
  const result = await mcp.call('request_access', { apps: ['DeskgateProbe', 'xterm', 'firefox-esr', 'Netflix', 'calibre'], reason: 'testing the gates' });
  const data = result.structuredContent as { granted: { app: string; tier: string }[]; policyDenied: { app: string }[] };
  assert.deepEqual(data.granted.map((g) => `${g.app}:${g.tier}`), ['DeskgateProbe:full', 'xterm:click', 'firefox-esr:read']);
  assert.deepEqual(data.policyDenied.map((d) => d.app), ['Netflix', 'calibre']);
  const again = await mcp.call('request_access', { apps: ['spotify'], reason: 'music' });
  assert.deepEqual((again.structuredContent as { policyDenied: { app: string }[] }).policyDenied.map((d) => d.app), ['spotify']);
  const listed = (await mcp.call('list_granted_applications')).structuredContent as { apps: { app: string }[] };
  assert.deepEqual(listed.apps.map((a) => a.app), ['DeskgateProbe', 'xterm', 'firefox-esr'], 'a later request never revokes');
});

test('a non-granted window is black in screenshots, refused as a target, and hidden; a click on a granted app takes the focus from it', async () => {
  const shot = decodeImage(imageOf(await mcp.call('screenshot')).data);
  assert.ok(closeTo(shot.pixel(...centre(probes.stranger!.ready.color_area)), [0, 0, 0]), 'the stranger is blacked out');
  assert.ok(closeTo(shot.pixel(...centre(probes.app!.ready.color_area)), hex('#3366cc')), 'granted windows show');
  const mark = marks();
  refused(await mcp.call('left_click', { coordinate: centre(probes.stranger!.ready.color_area) }), 'app_not_granted');
  await nothingSince(mark);
  // The stranger held the focus; the click on a granted window moves the focus there first, and only then presses.
  ok(await mcp.call('left_click', { coordinate: centre(probes.app!.ready.color_area) }));
  await probes.app!.waitFor((e) => e.type === 'release', 5000, mark.app);
  assert.deepEqual(inputEvents(probes.stranger!, mark.stranger!), [], 'the stranger received nothing');
  ok(await mcp.call('type', { text: 'x' }));
  await probes.app!.waitFor((e) => e.type === 'key' || e.type === 'key_release', 5000, mark.app);
  assert.deepEqual(inputEvents(probes.stranger!, mark.stranger!), [], 'keys went to the granted app, not the stranger');
});

test('a click-tier terminal gets plain left clicks and scrolls, never typing or right clicks', async () => {
  await mcp.call('screenshot');
  const at = centre(probes.terminal!.ready.color_area);
  const mark = marks();
  assert.ok(!(await mcp.call('left_click', { coordinate: at })).isError);
  await probes.terminal!.waitFor((e) => e.type === 'press' && e.button === 1, 5000, mark.terminal);
  // The probe records events as its toolkit gets round to them: the click is over once its release is in.
  await probes.terminal!.waitFor((e) => e.type === 'release' && e.button === 1, 5000, mark.terminal);
  const mark2 = marks();
  const typed = await mcp.call('type', { text: 'rm -rf /' });
  refused(typed, 'tier_insufficient');
  assert.match(textOf(typed), /do not|don't|never/i, 'the refusal carries the anti-subversion hint');
  refused(await mcp.call('right_click', { coordinate: at }), 'tier_insufficient');
  refused(await mcp.call('left_click', { coordinate: at, text: 'ctrl' }), 'tier_insufficient');
  await nothingSince(mark2);
});

test('a read-tier browser gets no input at all', async () => {
  await mcp.call('screenshot');
  const mark = marks();
  refused(await mcp.call('left_click', { coordinate: centre(probes.browser!.ready.color_area) }), 'tier_insufficient');
  refused(await mcp.call('scroll', { coordinate: centre(probes.browser!.ready.color_area), scroll_direction: 'down', scroll_amount: 2 }), 'tier_insufficient');
  await nothingSince(mark);
});

test('system shortcuts are refused without systemKeyCombos and allowed with it', async () => {
  await mcp.call('screenshot');
  const before = probes.app!.events().length;
  assert.ok(!(await mcp.call('left_click', { coordinate: centre(probes.app!.ready.text) })).isError);
  await probes.app!.waitFor((e) => e.type === 'release' && e.button === 1, 5000, before);
  const mark = marks();
  for (const chord of ['ctrl+alt+backspace', 'ctrl+alt+f2', 'alt+f4', 'cmd+q+a', 'Control+Alt+F2']) {
    refused(await mcp.call('key', { text: chord }), 'blocked_key_combo');
  }
  refused(await mcp.call('hold_key', { text: 'alt+f4', duration: 0.1 }), 'blocked_key_combo');
  await nothingSince(mark);
  await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'shortcuts', systemKeyCombos: true });
  assert.ok(!(await mcp.call('key', { text: 'ctrl+alt+f2' })).isError);
  // With ctrl+alt held, X reports F2's press as the VT-switch keysym; its release says F2.
  await probes.app!.waitFor((e) => e.type === 'key_release' && e.keysym === 'F2', 5000, mark.app);
});

test('a screen that changed under the target refuses the click until a new screenshot', async () => {
  await mcp.call('screenshot');
  const target = centre(probes.app!.ready.color_area);
  const display = await desktopOf(redis, 'gates', 'gates');
  const cover = await Probe.start(display, { geometry: `120x120+${target[0] - 60}+${target[1] - 60}`, color: '#ffffff', wmClass: 'DeskgateProbe' });
  try {
    const mark = { ...marks(), cover: 0 };
    const result = await mcp.call('left_click', { coordinate: target });
    refused(result, 'stale_screenshot');
    assert.match(textOf(result), /new screenshot/);
    await nothingSince(mark);
    assert.deepEqual(inputEvents(cover, 1), []);
    await mcp.call('screenshot');
    assert.ok(!(await mcp.call('left_click', { coordinate: target })).isError);
    await cover.waitFor((e) => e.type === 'press', 5000, 1);
  } finally {
    cover.stop();
    // Let the probe beneath redraw the area the cover leaves before the next screenshot.
    await new Promise((resolve) => cover.process.once('exit', resolve));
    await sleep(300);
  }
});

test('the clipboard guard: stashed and cleared while a click-tier terminal is in front, restored after', async () => {
  const desktop = await desktopOf(redis, 'gates', 'gates');
  const clipboard = () => {
    try {
      const { file, args, env } = onDisplay(desktop, ['xclip', '-o', '-selection', 'clipboard']);
      return execFileSync(file, args, { env, timeout: 5000 }).toString();
    } catch {
      return '';
    }
  };
  refused(await mcp.call('write_clipboard', { text: 'nope' }), 'grant_flag_required');
  refused(await mcp.call('read_clipboard'), 'grant_flag_required');
  await mcp.call('request_access', { apps: ['DeskgateProbe', 'xterm'], reason: 'clipboard', clipboardRead: true, clipboardWrite: true });
  await mcp.call('screenshot');
  ok(await mcp.call('left_click', { coordinate: centre(probes.app!.ready.color_area) }));
  ok(await mcp.call('write_clipboard', { text: 'rm -rf /' }));
  assert.equal(clipboard(), 'rm -rf /');
  assert.equal(textOf(await mcp.call('read_clipboard')), 'rm -rf /');

  const terminal = centre(probes.terminal!.ready.color_area);
  ok(await mcp.call('left_click', { coordinate: terminal }));
  ok(await mcp.call('mouse_move', { coordinate: [terminal[0] + 5, terminal[1]] }));
  assert.equal(clipboard(), '', 'cleared while the terminal is in front');
  refused(await mcp.call('write_clipboard', { text: 'echo pwned' }), 'tier_insufficient');
  assert.equal(clipboard(), '');

  ok(await mcp.call('left_click', { coordinate: centre(probes.app!.ready.color_area) }));
  ok(await mcp.call('mouse_move', { coordinate: centre(probes.app!.ready.color_area) }));
  assert.equal(clipboard(), 'rm -rf /', 'restored once a full-tier app is in front');
});

test('the kill switch empties tools/list and refuses every tool until it is off', async () => {
  const on = await api('/v1/killswitch', stack.operatorKey, { method: 'PUT', body: JSON.stringify({ on: true }) });
  assert.equal(on.status, 200);
  await sleep(600);
  assert.deepEqual(await mcp.listTools(), []);
  refused(await mcp.call('screenshot'), 'disabled');
  refused(await mcp.call('list_granted_applications'), 'disabled');
  assert.equal((await api('/v1/killswitch', stack.operatorKey, { method: 'PUT', body: '{"on":"yes"}' })).status, 400);
  await api('/v1/killswitch', stack.operatorKey, { method: 'PUT', body: JSON.stringify({ on: false }) });
  await sleep(600);
  assert.ok((await mcp.listTools()).length > 0);
  assert.ok(!(await mcp.call('screenshot')).isError);
});

/** The id of the humans tenant's first pending access request, waiting up to 10 s for one ('' if none). */
async function pendingApproval(): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const list = (await (await api('/v1/approvals', humansApprover)).json()) as { approvals: { id: string }[] };
    if (list.approvals[0]) return list.approvals[0].id;
    await sleep(100);
  }
  return '';
}

test('human approval: the request waits, another tenant cannot decide it, the owner approves or denies', async () => {
  const human = await connect('2026-07-28', `${stack.mcpUrl}/approvals`, humansKey);
  try {
    const pending = human.call('request_access', { apps: ['DeskgateProbe'], reason: 'please' });
    const id = await pendingApproval();
    assert.ok(id, 'the request is listed for its tenant');
    assert.deepEqual(((await (await api('/v1/approvals', stack.operatorKey)).json()) as { approvals: unknown[] }).approvals, [], 'and for no other tenant');
    assert.equal((await api(`/v1/approvals/${id}`, stack.operatorKey, { method: 'POST', body: JSON.stringify({ decision: 'approve' }) })).status, 404);
    assert.equal((await api(`/v1/approvals/${id}`, humansApprover, { method: 'POST', body: JSON.stringify({ decision: 'maybe' }) })).status, 400);
    assert.equal((await api(`/v1/approvals/${id}`, humansApprover, { method: 'POST', body: JSON.stringify({ decision: 'approve' }) })).status, 200);
    const granted = (await pending).structuredContent as { granted: { app: string }[] };
    assert.deepEqual(granted.granted.map((g) => g.app), ['DeskgateProbe']);

    const second = human.call('request_access', { apps: ['xterm'], reason: 'again' });
    const id2 = await pendingApproval();
    await api(`/v1/approvals/${id2}`, humansApprover, { method: 'POST', body: JSON.stringify({ decision: 'deny' }) });
    const denied = (await second).structuredContent as { granted: unknown[]; denied: string[] };
    assert.deepEqual([denied.granted, denied.denied], [[], ['xterm']]);
    const listed = (await human.call('list_granted_applications')).structuredContent as { apps: { app: string }[] };
    assert.deepEqual(listed.apps.map((a) => a.app), ['DeskgateProbe']);
  } finally {
    await human.close();
  }
});

test('a window hidden as not granted comes back once its app is granted', async () => {
  const at = centre(probes.stranger!.ready.color_area);
  const before = decodeImage(imageOf(await mcp.call('screenshot')).data);
  assert.ok(!closeTo(before.pixel(...at), hex('#cc3366')), 'the stranger is hidden');
  const result = await mcp.call('request_access', { apps: ['Stranger'], reason: 'now it is needed' });
  assert.equal((result.structuredContent as { restored?: string[] }).restored?.length, 1, textOf(result));
  assert.match(textOf(result), /Brought back/);
  await sleep(300);
  const after = decodeImage(imageOf(await mcp.call('screenshot')).data);
  assert.ok(closeTo(after.pixel(...at), hex('#cc3366')), 'the stranger shows again');
  const again = await mcp.call('request_access', { apps: ['Stranger'], reason: 'twice' });
  assert.equal((again.structuredContent as { restored?: string[] }).restored, undefined, 'nothing is restored twice');
});
