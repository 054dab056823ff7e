/**
 * The web console end to end: a real stack (Redis, gateway, worker with its desktop and
 * helpers), the console in Debian's Chromium, and an agent driven by the official MCP client
 * in the same test. Sign-in (wrong and agent keys refused; cookie flags), CSRF, the sessions
 * page, takeover (the agent refused while the person's click lands in the probe app, both in
 * the timeline with their actor, the agent told the screen changed after the hand-back), an
 * approval made in the page releasing the agent's waiting request_access, the kill switch
 * with who flipped it (in the page or through the REST API), and the timeline's filter, export
 * and frames paired by call id. Approvals and sessions are pushed to every open page of the
 * tenant across two gateways, without the page asking again, and to no other tenant's page; a
 * dropped stream comes back with one re-read; what publishes nothing (a lease lapsing, a
 * session written behind deskgate's back) still shows. Screenshots go to docs/console/.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { KillSwitch } from '@deskgate/dispatch';
import type { Browser, Page } from 'playwright-core';
import { ApiKeyStore } from '../../services/gateway/src/auth/api-keys.ts';
import { EVENT_STREAM_LIMITS } from '../../services/gateway/src/console/event-routes.ts';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { cookieHeader, keepScreenshot, launchChromium, logLivePixel, monotonicToWall, openConsole, originOf, shownPixels, signIn, signInError, type ShownPixel } from '../support/console.ts';
import { desktopOf } from '../support/desktops.ts';
import { connect, errorKind, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { Probe } from '../support/probe.ts';

const dir = mkdtempSync(join(tmpdir(), 'deskgate-console-'));
const policyFile = join(dir, 'policy.json');
writeFileSync(policyFile, JSON.stringify({ tenants: { humans: { approval: 'human', approvalTimeoutSeconds: 60 } } }));

let stack: Stack;
let redis: Redis;
let browser: Browser;
let origin: string;
/** The second gateway's: the pushed updates cross gateways. */
let origin2: string;
let agent: McpConnection;
let probe: Probe;
const SESSION = 'console-e2e';

before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_POLICY_FILE: policyFile, DESKGATE_DESKTOP_SIZE: '1280x800', DESKGATE_CONSOLE_SHARE_SECONDS: '10', DESKGATE_MAX_DESKTOPS: '3' }, tenant: 'consoletest', logDir: dir, gateways: 2 });
  redis = new Redis(stack.redisUrl);
  origin = originOf(stack.mcpUrl);
  origin2 = originOf(stack.mcpUrls[1]!);
  browser = await launchChromium();
  agent = await connect('2026-07-28', `${stack.mcpUrl}/${SESSION}`, stack.apiKey);
  const granted = await agent.call('request_access', { apps: ['DeskgateProbe'], reason: 'console end-to-end test', clipboardRead: true, clipboardWrite: true });
  assert.ok(!granted.isError, textOf(granted));
  probe = await Probe.start(await desktopOf(redis, stack.tenant, SESSION), { geometry: '800x600+100+80', color: '#3366cc' });
});

after(async () => {
  probe?.stop();
  await agent?.close().catch(() => undefined);
  await browser?.close();
  redis?.disconnect();
  await stack?.stop();
});

describe('sign-in', () => {
  test('a wrong key fails and an agent key is refused, both with a message and no cookie', async () => {
    const { context, page } = await openConsole(browser, origin);
    await signIn(page, 'dg_not-a-real-key');
    assert.match(await signInError(page, /not valid/), /not valid/);
    await signIn(page, stack.apiKey);
    assert.match(await signInError(page, /agent key/), /agent key/);
    assert.deepEqual(await context.cookies(), []);
    await keepScreenshot(page, 'sign-in');
    await context.close();
  });

  test('an operator key signs in: HttpOnly, SameSite=Strict cookie, no key or token in the URL; Secure under __Host- over TLS', async () => {
    const { context, page } = await openConsole(browser, origin);
    await signIn(page, stack.operatorKey);
    await page.waitForSelector('nav >> text=Sessions');
    const cookies = await context.cookies();
    assert.equal(cookies.length, 1);
    const [cookie] = cookies;
    assert.equal(cookie!.name, 'deskgate_console');
    assert.equal(cookie!.httpOnly, true);
    assert.equal(cookie!.sameSite, 'Strict');
    assert.equal(cookie!.secure, false, 'plain HTTP on loopback: a Secure cookie would never come back');
    assert.ok(cookie!.expires > Date.now() / 1000 && cookie!.expires <= Date.now() / 1000 + 900 + 5, 'short-lived: 15 minutes by default');
    assert.ok(!page.url().includes(stack.operatorKey) && !page.url().includes(cookie!.value), page.url());
    assert.equal(await page.evaluate(() => document.cookie), '', 'no script can read it');
    // Behind a TLS-terminating proxy the cookie is Secure and host-pinned.
    const tls = await fetch(`${origin}/console/api/sign-in`, { method: 'POST', headers: { origin, 'content-type': 'application/json', 'x-forwarded-proto': 'https' }, body: JSON.stringify({ key: stack.operatorKey }) });
    assert.equal(tls.status, 200);
    const setCookie = tls.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^__Host-deskgate_console=[A-Za-z0-9_-]{43}; Max-Age=900; Path=\/; HttpOnly; Secure; SameSite=Strict/);
    await context.close();
  });

  test('a sign-in from another page (no Origin of this host) is refused', async () => {
    const other = await fetch(`${origin}/console/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: stack.operatorKey }) });
    assert.equal(other.status, 403);
    assert.equal(((await other.json()) as { error: string }).error, 'csrf_failed');
  });
});

describe('signed in as an operator', () => {
  let context: Awaited<ReturnType<typeof openConsole>>['context'];
  let page: Awaited<ReturnType<typeof openConsole>>['page'];
  before(async () => {
    ({ context, page } = await openConsole(browser, origin));
    await signIn(page, stack.operatorKey);
  });
  after(() => context.close());

  test('CSRF: a state change without the token, or from another origin, is refused and changes nothing', async () => {
    const cookie = await cookieHeader(context, origin);
    const put = (headers: Record<string, string>) => fetch(`${origin}/console/api/killswitch`, { method: 'PUT', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ on: true }) });
    const csrf = (await (await fetch(`${origin}/console/api/me`, { headers: { cookie } })).json()) as { csrf: string };
    for (const [headers, why] of [
      [{ origin }, 'no CSRF header'],
      [{ origin, 'x-deskgate-csrf': 'x'.repeat(43) }, 'a wrong token'],
      [{ 'x-deskgate-csrf': csrf.csrf }, 'no Origin'],
      [{ origin: origin.replace('127.0.0.1', 'localhost'), 'x-deskgate-csrf': csrf.csrf }, 'another origin'],
    ] as const) {
      const answer = await put(headers);
      assert.equal(answer.status, 403, why);
      assert.equal(((await answer.json()) as { error: string }).error, 'csrf_failed', why);
    }
    assert.equal(await redis.get(`deskgate:tenant:${stack.tenant}:killswitch`), null, 'the kill switch stayed off');
    assert.equal((await fetch(`${origin}/console/api/sessions`)).status, 401, 'no cookie: no data');
  });

  test('sessions page: the session with its desktop, lock holder, granted app, last action', async () => {
    await agent.call('screenshot');
    await page.goto(`${origin}/console#/sessions`);
    const row = page.locator(`tr[data-session="${SESSION}"]`, { hasText: 'screenshot · ok' });
    await row.waitFor(); // pushed: the audit entry, written just after the reply, tells the page
    const text = (await row.textContent()) ?? '';
    assert.match(text, /1280×800/);
    assert.match(text, /DeskgateProbe \(/);
    assert.match(text, /screenshot · ok · agent/);
    assert.match(text, /API key k_/, 'the agent holds the lock after its call');
    await keepScreenshot(page, 'sessions');
  });

  test('live view: the probe app\'s colour change is pushed to the page (latency measured from the page)', async (t) => {
    const display = await desktopOf(redis, stack.tenant, SESSION);
    const slow = await Probe.start(display, { geometry: '300x300+940+80', color: '#3366cc', slowRepaint: true, title: 'slow probe' });
    t.after(() => slow.stop());
    await page.goto(`${origin}/console#/live/${SESSION}`);
    await page.waitForFunction(() => (window as unknown as { deskgateLive?: { frames: number } }).deskgateLive?.frames! > 0);
    const area = slow.ready.color_area;
    const [x, y] = [area.x + Math.round(area.width / 2), area.y + Math.round(area.height / 2)];
    await logLivePixel(page, x, y);
    const mark = slow.events().length;
    const { button } = slow.ready;
    await agent.call('screenshot'); // the agent sees the new window before it clicks (pixel staleness gate)
    const clicked = await agent.call('left_click', { coordinate: [button.x + button.width / 2, button.y + button.height / 2] });
    assert.ok(!clicked.isError, textOf(clicked));
    const repainted = await slow.waitFor((event) => event.type === 'repainted', 10_000, mark);
    const repaintedAt = (repainted.t as number) * 1000 + monotonicToWall();
    const green = ({ rgb: [r, g, b] }: ShownPixel) => r < 40 && Math.abs(g - 0xcc) < 40 && Math.abs(b - 0x44) < 40;
    await page.waitForFunction(() => (window as unknown as { pixelLog: { rgb: number[] }[] }).pixelLog.some(({ rgb: [r, g, b] }) => r! < 40 && Math.abs(g! - 0xcc) < 40 && Math.abs(b! - 0x44) < 40), undefined, { timeout: 10_000 });
    const latencyMs = (await shownPixels(page)).find(green)!.shownAt - repaintedAt;
    t.diagnostic(`screen change → frame shown in the page: ${latencyMs.toFixed(1)} ms`);
    assert.ok(latencyMs > -5, `the frame cannot be shown before the change (${latencyMs} ms)`);
    await keepScreenshot(page, 'live');
  });

  test('takeover: the agent is refused while the person drives; the person\'s click lands; hand-back tells the agent', async () => {
    // The agent's lease from its last call must lapse (or be handed over) before a person can take the desktop.
    await fetch(`${stack.mcpUrl.replace(/\/mcp$/, '')}/v1/sessions/${SESSION}/lock`, { method: 'DELETE', headers: { authorization: `Bearer ${stack.apiKey}` } });
    await page.goto(`${origin}/console#/live/${SESSION}`);
    await page.click('#take-over');
    // The page drives once it holds the takeover (the hand-back button shows it): a click
    // before that is the page's to ignore, however soon the server took the lock.
    await page.waitForSelector('#hand-back');
    const screen = page.locator('#screen');
    await screen.waitFor();

    const refused = await agent.call('left_click', { coordinate: [200, 200] });
    assert.equal(errorKind(refused), 'lock_held');
    assert.match(textOf(refused), /A person is driving/);
    assert.equal(refused.structuredContent?.error?.retryAfterMs, undefined, 'a person hands back when they choose: no retry time');

    const mark = probe.events().length;
    const { button } = probe.ready;
    // The live image's first frame must be in before its size maps a point (a loaded machine
    // can show the element before the frame: natural size 0, the click going nowhere).
    await page.waitForFunction(() => ((document.querySelector('#screen') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
    const box = (await screen.boundingBox())!;
    const natural = await screen.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
    const [cx, cy] = [button.x + button.width / 2, button.y + button.height / 2];
    await page.mouse.click(box.x + (cx * box.width) / natural[0]!, box.y + (cy * box.height) / natural[1]!);
    const pressed = await probe.waitFor((event) => event.type === 'button', 10_000, mark).catch(async (error: Error) => {
      throw new Error(`${error.message}; the page's status: ${await page.textContent('#drive-status')}`);
    });
    assert.equal(pressed.name, 'click_me');
    await page.waitForSelector('#drive-status >> text=left_click done');
    // Statuses come and go above the picture, short or long (a refusal, the clipboard read back):
    // it never moves under the pointer (a status line appearing once sent a click 54 px too high).
    const copied = 'a line of clipboard text long enough to wrap on any screen; '.repeat(8);
    await page.fill('input[aria-label="Clipboard text"]', copied);
    await page.press('input[aria-label="Clipboard text"]', 'Enter');
    await page.waitForSelector('#drive-status >> text=write_clipboard done');
    await page.click('button >> text=Read clipboard');
    await page.waitForSelector('#drive-status >> text=read_clipboard done');
    assert.equal(await page.inputValue('#clipboard-text'), copied);
    assert.deepEqual(await screen.boundingBox(), box);
    await keepScreenshot(page, 'takeover');

    await page.click('#hand-back');
    await page.waitForSelector('#drive-status >> text=Handed back');
    const next = await agent.call('screenshot');
    assert.ok(!next.isError, textOf(next));
    assert.match(textOf(next), /a person drove this desktop from the web console/);
  });

  test('timeline: both calls with their actor, filtered by kind, exported as JSON', async () => {
    await page.goto(`${origin}/console#/timeline/${SESSION}`);
    await page.waitForSelector('tr[data-actor="person"]');
    const refusedRow = page.locator('tr[data-kind="lock_held"]');
    assert.match((await refusedRow.first().textContent()) ?? '', /left_click.*lock_held.*agent \(k_/);
    const personClick = page.locator('tr[data-actor="person"]', { hasText: 'left_click' });
    assert.match((await personClick.first().textContent()) ?? '', /left_click.*ok.*person \(k_/);
    // A frame of the screen after each call that ran on the desktop; none for the refused one.
    await page.waitForFunction(() => {
      const ran = [...document.querySelectorAll('tr[data-kind="ok"]')];
      return ran.length > 0 && ran.every((row) => (row.querySelector('img.thumb') as HTMLImageElement | null)?.naturalWidth === 320);
    });
    assert.equal(await refusedRow.first().locator('img.thumb').count(), 0);
    await keepScreenshot(page, 'timeline');
    await page.selectOption('#kind-filter', 'lock_held');
    await page.waitForFunction(() => [...document.querySelectorAll('tr[data-kind]')].every((row) => row.getAttribute('data-kind') === 'lock_held'));
    const cookie = await cookieHeader(context, origin);
    const exported = await fetch(`${origin}/console/api/sessions/${SESSION}/audit/export`, { headers: { cookie } });
    assert.match(exported.headers.get('content-disposition') ?? '', /attachment; filename="audit-console-e2e.json"/);
    const body = (await exported.json()) as { entries: { tool: string; actor: { type: string } }[] };
    assert.ok(body.entries.some((e) => e.actor.type === 'person') && body.entries.some((e) => e.actor.type === 'agent'));
  });

  test('timeline frames are paired with their call by id: two screenshots answered together each get a frame taken after it', async () => {
    const [a, b] = await Promise.all([agent.call('screenshot'), agent.call('screenshot')]);
    assert.ok(!a.isError && !b.isError, `${textOf(a)} ${textOf(b)}`);
    const cookie = await cookieHeader(context, origin);
    type Entry = { tool: string; actionId?: string; frameId: string | null };
    let newest: Entry[] = [];
    for (let tries = 0; tries < 100; tries++) {
      const body = (await (await fetch(`${origin}/console/api/sessions/${SESSION}/audit/export`, { headers: { cookie } })).json()) as { entries: Entry[] };
      newest = body.entries.slice(0, 2);
      if (newest.length === 2 && newest.every((e) => e.tool === 'screenshot' && e.frameId)) break;
      await sleep(100); // the worker keeps each frame just after it answered
    }
    assert.deepEqual(newest.map((e) => e.tool), ['screenshot', 'screenshot']);
    for (const entry of newest) assert.match(entry.actionId ?? '', /^[0-9a-f-]{36}$/, 'every audited call has an id');
    assert.notEqual(newest[0]!.actionId, newest[1]!.actionId);
    // Each entry's frame was kept by the worker naming the id of the call the entry records (one
    // frame may name both: frames are taken at most 5 a second, after every call answered since).
    const frames = await redis.xrange(`deskgate:audit:${stack.tenant}:${SESSION}:frames`, '-', '+');
    const actionsOf = (fields: string[]) => (fields.includes('actions') ? (JSON.parse(fields[fields.indexOf('actions') + 1]!) as string[]) : []);
    const actionsOfFrame = new Map(frames.map(([id, fields]) => [id, actionsOf(fields)]));
    for (const entry of newest) assert.ok(actionsOfFrame.get(entry.frameId!)?.includes(entry.actionId!), `frame ${entry.frameId} names call ${entry.actionId}`);
  });

  test('kill switch: flipped in the page, the agent is refused, the page says who flipped it and when', async () => {
    await page.goto(`${origin}/console#/killswitch`);
    await page.click('button.danger');
    await page.waitForSelector('.kill-switch.on');
    assert.match((await page.textContent('.last-flip')) ?? '', /Switched on by operator key k_/);
    await keepScreenshot(page, 'kill-switch');
    await sleep(600); // the switch is cached for half a second
    assert.equal(errorKind(await agent.call('screenshot')), 'disabled');
    await page.click('.kill-switch button');
    await page.waitForSelector('.kill-switch.off');
    await sleep(600);
    assert.ok(!(await agent.call('screenshot')).isError);
  });

  test('kill switch: a flip through the REST API shows in the page with its key id (never the key) and when', async () => {
    const { keyId } = (await new ApiKeyStore(redis).verify(stack.operatorKey))!;
    const rest = (on: boolean) => fetch(`${origin2}/v1/killswitch`, { method: 'PUT', headers: { authorization: `Bearer ${stack.operatorKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ on }) });
    const before = Date.now();
    const answer = await rest(true);
    assert.equal(answer.status, 200);
    const state = (await answer.json()) as { tenant: boolean; lastFlip: { keyId: string; via: string; at: number } };
    assert.deepEqual([state.tenant, state.lastFlip.keyId, state.lastFlip.via], [true, keyId, 'api']);
    assert.ok(state.lastFlip.at >= before && state.lastFlip.at <= Date.now());
    try {
      await page.goto(`${origin}/console#/killswitch`);
      await page.reload();
      await page.waitForSelector('.kill-switch.on');
      const text = (await page.textContent('.last-flip')) ?? '';
      assert.match(text, new RegExp(`Switched on by operator key ${keyId} through the REST API at `));
      assert.ok(!text.includes(stack.operatorKey), 'the key itself is never shown');
      assert.doesNotMatch(text, /outside the console/);
      // The global switch, flipped with the CLI (no key), shows its own record.
      await new KillSwitch(redis).set(null, true, { keyId: null, role: null, via: 'cli' });
      await page.reload();
      assert.match((await (await page.waitForSelector('.global-flip')).textContent()) ?? '', /global switch: Switched on by an operator with the CLI at /);
    } finally {
      await new KillSwitch(redis).set(null, false, { keyId: null, role: null, via: 'cli' });
      assert.equal((await rest(false)).status, 200);
    }
    await sleep(600); // the switch is cached for half a second
  });
});

/** Records the console API requests a page makes from now on (its pushed updates must need none). */
function consoleRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/console/api/')) seen.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  return seen;
}

/** Resolves once the page's update stream has delivered its snapshot. */
const snapshotShown = (page: Page) => page.waitForFunction(() => (window as unknown as { deskgateEvents?: { snapshots: number } }).deskgateEvents?.snapshots! > 0);
interface SeenEvent { event: string; tenant: string | null; session: string | null; id: string | null }
/** What the page's update stream delivered so far (its snapshots included). */
const eventsSeen = (page: Page) => page.evaluate(() => (window as unknown as { deskgateEvents: { seen: SeenEvent[] } }).deskgateEvents.seen);

describe('pushed to every page of the tenant, across gateways, and to no other tenant', () => {
  let humansAgent: McpConnection;
  let humansOperator: string;
  let approver: string;
  let otherTenant: Awaited<ReturnType<typeof openConsole>>;
  before(async () => {
    const keysOf = new ApiKeyStore(redis);
    humansAgent = await connect('2026-07-28', `${stack.mcpUrl}/asks`, (await keysOf.create('humans', 'agent')).key);
    approver = (await keysOf.create('humans', 'approver', 'approver')).key;
    humansOperator = (await keysOf.create('humans', 'operator', 'operator')).key;
    // An operator of another tenant (the stack's), watching its own approvals and sessions.
    otherTenant = await openConsole(browser, origin);
    await signIn(otherTenant.page, stack.operatorKey);
  });
  after(async () => {
    await otherTenant?.context.close();
    await humansAgent?.close();
  });

  test('approvals: a human-mode request appears in an open page without it asking; approved in a page on the other gateway, it goes from the first', async () => {
    const first = await openConsole(browser, origin);
    const second = await openConsole(browser, origin2);
    try {
      await signIn(first.page, approver);
      assert.equal(await first.page.locator('nav >> text=Kill switch').count(), 0, 'an approver is not offered the kill switch');
      assert.equal(await first.page.locator('nav >> text=Sessions').count(), 0, 'nor the sessions');
      await signIn(second.page, humansOperator);
      await second.page.goto(`${origin2}/console#/approvals`);
      await otherTenant.page.goto(`${origin}/console#/approvals`);
      await Promise.all([first.page, second.page, otherTenant.page].map(snapshotShown));
      const asked = consoleRequests(first.page);
      const otherSeen = (await eventsSeen(otherTenant.page)).length;

      const waiting = humansAgent.call('request_access', { apps: ['DeskgateProbe'], reason: 'needs the probe for a console test' });
      const cardIn = (page: Page) => page.locator('section.approval', { hasText: 'needs the probe for a console test' });
      await cardIn(first.page).waitFor({ timeout: 60_000 });
      await cardIn(second.page).waitFor();
      const approvalId = await cardIn(first.page).getAttribute('data-approval');
      assert.match((await cardIn(first.page).textContent()) ?? '', /DeskgateProbe/);
      await keepScreenshot(first.page, 'approvals');
      await cardIn(second.page).locator('button.approve').click();
      const result = await waiting;
      assert.ok(!result.isError, textOf(result));
      assert.match(textOf(result), /DeskgateProbe/);
      await cardIn(first.page).waitFor({ state: 'detached' });
      assert.deepEqual(asked, [], 'the first page asked the gateway nothing: the request and its decision were pushed');
      assert.equal(await cardIn(otherTenant.page).count(), 0);
      const toldOther = (await eventsSeen(otherTenant.page)).slice(otherSeen);
      assert.deepEqual(toldOther.filter((e) => e.event.startsWith('approval') || e.tenant === 'humans' || e.id === approvalId || e.session === 'asks'), [], 'another tenant\'s page was told nothing of it');
    } finally {
      await first.context.close();
      await second.context.close();
    }
  });

  test('sessions: one starting and ending shows in an open page without it asking, ended from a page on the other gateway', async () => {
    const first = await openConsole(browser, origin);
    const second = await openConsole(browser, origin2);
    const pushedKey = (await new ApiKeyStore(redis).create('humans', 'agent')).key;
    const pushed = await connect('2026-07-28', `${stack.mcpUrl}/pushed`, pushedKey);
    try {
      await signIn(first.page, humansOperator);
      await signIn(second.page, humansOperator);
      await otherTenant.page.goto(`${origin}/console#/sessions`);
      await Promise.all([first.page, second.page, otherTenant.page].map(snapshotShown));
      const asked = consoleRequests(first.page);
      const otherSeen = (await eventsSeen(otherTenant.page)).length;

      const listed = await pushed.call('list_granted_applications'); // starts the session (no grant needed)
      assert.ok(!listed.isError, textOf(listed));
      const rowIn = (page: Page) => page.locator('tr[data-session="pushed"]');
      await rowIn(first.page).filter({ hasText: 'list_granted_applications · ok' }).waitFor();
      assert.match((await rowIn(first.page).textContent()) ?? '', /1280×800.*API key k_/, 'its desktop, and the agent holding its lock');
      // The agent hands its lock over through the REST API of the other gateway: the row says so.
      const released = await fetch(`${origin2}/v1/sessions/pushed/lock`, { method: 'DELETE', headers: { authorization: `Bearer ${pushedKey}` } });
      assert.equal(released.status, 200);
      await rowIn(first.page).locator('td', { hasText: /^free$/ }).waitFor();
      await rowIn(second.page).waitFor();
      second.page.once('dialog', (dialog) => void dialog.accept());
      await rowIn(second.page).locator('button.danger').click();
      await rowIn(first.page).waitFor({ state: 'detached' });
      assert.deepEqual(asked, [], 'the first page asked the gateway nothing: the start, the call, the lock released and the end were pushed');
      assert.equal(await rowIn(otherTenant.page).count(), 0);
      const toldOther = (await eventsSeen(otherTenant.page)).slice(otherSeen);
      assert.deepEqual(toldOther.filter((e) => e.session === 'pushed' || e.tenant === 'humans'), [], 'another tenant\'s page was told nothing of it');
    } finally {
      await pushed.close().catch(() => undefined);
      await first.context.close();
      await second.context.close();
    }
  });

  test('a page whose stream drops re-reads everything once on reconnecting (nothing lost meanwhile); a sign-out elsewhere ends its stream', async () => {
    const { context, page } = await openConsole(browser, origin);
    const again = await connect('2026-07-28', `${stack.mcpUrl}/again`, (await new ApiKeyStore(redis).create('humans', 'agent')).key);
    try {
      await signIn(page, humansOperator);
      assert.ok(!(await again.call('list_granted_applications')).isError);
      const row = page.locator('tr[data-session="again"]');
      await row.waitFor();
      assert.equal(await page.evaluate(() => (window as unknown as { deskgateEvents: { snapshots: number } }).deskgateEvents.snapshots), 1);
      const asked = consoleRequests(page);
      // Every gateway's subscriber loses Redis: the gateways end their pages' streams.
      await redis.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      // The session ends while the page is away (its message may be lost to pub/sub).
      const ended = await fetch(`${origin2}/v1/sessions/again`, { method: 'DELETE', headers: { authorization: `Bearer ${humansOperator}` } });
      assert.equal(ended.status, 200);
      await row.waitFor({ state: 'detached' });
      await page.waitForFunction(() => (window as unknown as { deskgateEvents: { snapshots: number } }).deskgateEvents.snapshots === 2);
      assert.deepEqual(asked, ['GET /console/api/events'], 'reconnected once, and asked for no list');

      // Signed out from another tab (the same cookie): the stream ends at its next heartbeat and the page shows the sign-in.
      const cookie = await cookieHeader(context, origin);
      const { csrf } = (await (await fetch(`${origin}/console/api/me`, { headers: { cookie } })).json()) as { csrf: string };
      assert.equal((await fetch(`${origin}/console/api/sign-out`, { method: 'POST', headers: { cookie, origin, 'x-deskgate-csrf': csrf } })).status, 200);
      await page.waitForSelector('input[name=key]', { timeout: EVENT_STREAM_LIMITS.heartbeatMs + 10_000 });
    } finally {
      await again.close().catch(() => undefined);
      await context.close();
    }
  });

  test('what publishes nothing still shows: a lock\'s lease lapsing, and (within the 10 s sweep) a session written behind deskgate\'s back', async () => {
    const { context, page } = await openConsole(browser, origin);
    const lapseKey = (await new ApiKeyStore(redis).create('humans', 'agent')).key;
    const lapse = await connect('2026-07-28', `${stack.mcpUrl}/lapse`, lapseKey);
    try {
      await signIn(page, humansOperator);
      assert.ok(!(await lapse.call('list_granted_applications')).isError);
      assert.equal((await fetch(`${origin}/v1/sessions/lapse/lock`, { method: 'DELETE', headers: { authorization: `Bearer ${lapseKey}` } })).status, 200);
      const lockCell = page.locator('tr[data-session="lapse"] td:nth-child(3)');
      await lockCell.filter({ hasText: /^free$/ }).waitFor();
      // A holder whose lease lapses in 1.5 s, told once (as a claim is); its lapse is told by nobody.
      const desktopId = await redis.hget(`deskgate:session:humans:lapse`, 'desktopId');
      await redis.set(`deskgate:desktop:${desktopId}:lock`, '999|k_lapsing', 'PX', 1500);
      await redis.publish('deskgate:tenant:humans:console:events', JSON.stringify({ type: 'session', session: 'lapse' }));
      await lockCell.filter({ hasText: 'API key k_lapsing' }).waitFor();
      await lockCell.filter({ hasText: /^free$/ }).waitFor({ timeout: 5000 });

      // A session record written straight into Redis, with no message: the sweep finds it, and its going.
      const ghost = page.locator('tr[data-session="ghost"]');
      await redis.multi().hset('deskgate:session:humans:ghost', { createdAt: Date.now(), lastUsedAt: Date.now() }).sadd('deskgate:tenant:humans:sessions', 'ghost').exec();
      await ghost.waitFor({ timeout: 15_000 });
      await redis.multi().del('deskgate:session:humans:ghost').srem('deskgate:tenant:humans:sessions', 'ghost').exec();
      await ghost.waitFor({ state: 'detached', timeout: 15_000 });
    } finally {
      await redis.multi().del('deskgate:session:humans:ghost').srem('deskgate:tenant:humans:sessions', 'ghost').exec();
      await fetch(`${origin}/v1/sessions/lapse`, { method: 'DELETE', headers: { authorization: `Bearer ${humansOperator}` } });
      await lapse.close().catch(() => undefined);
      await context.close();
    }
  });

  test(`a sign-in holds at most ${EVENT_STREAM_LIMITS.perSignIn} update streams on a gateway; the next is refused`, async () => {
    const signedIn = await fetch(`${origin}/console/api/sign-in`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ key: humansOperator }) });
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const aborts: AbortController[] = [];
    try {
      for (let i = 0; i < EVENT_STREAM_LIMITS.perSignIn; i++) {
        const abort = new AbortController();
        aborts.push(abort);
        const stream = await fetch(`${origin}/console/api/events`, { headers: { cookie }, signal: abort.signal });
        assert.equal(stream.status, 200);
        assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
      }
      const refused = await fetch(`${origin}/console/api/events`, { headers: { cookie } });
      assert.equal(refused.status, 429);
      assert.equal(((await refused.json()) as { error: string }).error, 'too_many_streams');
      const elsewhere = await fetch(`${origin2}/console/api/events`, { headers: { cookie }, signal: AbortSignal.timeout(5000) });
      assert.equal(elsewhere.status, 200, 'the bound is per gateway');
      await elsewhere.body?.cancel();
    } finally {
      for (const abort of aborts) abort.abort();
    }
  });
});

test('a view-only link shows the live view, cannot drive or reach anything else, and expires', async () => {
  const operator = await openConsole(browser, origin);
  const viewer = await browser.newContext();
  try {
    await signIn(operator.page, stack.operatorKey);
    await operator.page.goto(`${origin}/console#/live/${SESSION}`);
    await operator.page.click('#share');
    const url = await operator.page.inputValue('#share-url');
    const token = new URL(url).hash.slice(1);
    assert.match(url, new RegExp(`^${origin}/console/watch#[A-Za-z0-9_-]{43}$`), 'the token is in the fragment, never sent in a URL');
    assert.ok(!token.startsWith('dg_') && (await new ApiKeyStore(redis).verify(token)) === null, 'the token is not a key');

    const page = await viewer.newPage();
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { deskgateLive?: { frames: number } }).deskgateLive?.frames! > 0);
    assert.ok(!page.url().includes('#'), 'the page drops the token from its address');
    assert.equal(await page.locator('#take-over').count(), 0);
    await keepScreenshot(page, 'view-only');
    const cookies = await viewer.cookies(`${origin}/console/share/live`);
    assert.deepEqual(cookies.map((c) => [c.name, c.path, c.httpOnly, c.sameSite]), [['deskgate_share', '/console/share', true, 'Strict']]);
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    for (const [method, path] of [['POST', `/console/api/sessions/${SESSION}/takeover`], ['POST', `/console/api/sessions/${SESSION}/act`], ['GET', '/console/api/sessions'], ['GET', `/console/api/sessions/${SESSION}/audit`], ['GET', '/console/api/events']] as const) {
      const answer = await fetch(`${origin}${path}`, { method, headers: { cookie, origin, 'x-deskgate-csrf': token, 'content-type': 'application/json' }, body: method === 'POST' ? '{"tool":"left_click","args":{"coordinate":[1,1]}}' : undefined });
      assert.equal(answer.status, 401, `${method} ${path}`);
    }
    assert.equal((await fetch(`${origin}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } })).status, 401, 'nor is it a key of the REST API');

    await page.waitForSelector('#live-state >> text=expired', { timeout: 20_000 });
    const again = await viewer.newPage();
    await again.goto(url);
    assert.match((await (await again.waitForSelector('.error')).textContent()) ?? '', /expired/);
  } finally {
    await viewer.close();
    await operator.context.close();
  }
});
