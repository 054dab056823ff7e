/**
 * The local sandbox is a desktop worth using: under the `sandbox` policy profile (what
 * `npm start` runs) an agent opens the browser, goes to a web page, types into its form and
 * sends it — and the web server receives exactly the typed text. The agent side is MCP only,
 * through the official client, the way a model would do it: open_application, the address bar
 * by keyboard (ctrl+l, the URL, Return), screenshots to find the form (the page is drawn in
 * flat colours the agent looks for; no geometry is read behind the gateway), a click into the
 * input, type, a click on the button. Once through the native tools at /mcp, once through
 * Anthropic's `computer` tool at /computer (a screenshot with every reply, no request_access:
 * the profile grants the desktop's apps on start).
 *
 * Reachability: desktops cannot reach this host's own addresses (install.sh's DESKGATE-DESKTOP
 * chain rejects every LOCAL destination but DNS — 127.0.0.1 and this host's LAN address alike),
 * so the page is served from a network namespace of its own, another machine as far as the
 * desktop is concerned: tests/support/web-page.ts. The firewall rule is not touched.
 *
 * Chromium's first start takes seconds: every wait here is screenshots taken until what the
 * agent looks for shows, bounded, never a fixed sleep.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { closeTo, decodeImage, hex, type DecodedImage } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { PAGE_COLORS, startWebPage, type WebPage } from '../support/web-page.ts';

const logDir = mkdtempSync(join(tmpdir(), 'deskgate-browser-agent-'));
/** How long chromium may take from open_application to showing the page. */
const PAGE_SHOWN_WITHIN_MS = 45_000;

let stack: Stack;
let page: WebPage;

before(async () => {
  // The sandbox profile, as `npm start` runs it; no policy file (a user's would win).
  [stack, page] = await Promise.all([
    startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_POLICY_PROFILE: 'sandbox', DESKGATE_POLICY_FILE: '' }, logDir }),
    startWebPage(),
  ]);
});
after(async () => {
  await page?.stop();
  await stack?.stop();
});

// ---- what the agent sees --------------------------------------------------------------------

function decodeScreenshot(result: ToolResult): DecodedImage {
  return decodeImage(imageOf(result).data);
}

interface Box { x: number; y: number; width: number; height: number }
const centre = (box: Box): [number, number] => [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)];

/**
 * The bounding box of the pixels of one colour, if they make a solid block at least
 * minWidth×minHeight (what an agent means by "the gold box"): scanned every 2 px.
 */
function findBlock(image: DecodedImage, color: string, minWidth: number, minHeight: number): Box | undefined {
  const want = hex(color);
  let [x0, y0, x1, y1, count] = [Infinity, Infinity, -1, -1, 0];
  for (let y = 0; y < image.height; y += 2) {
    for (let x = 0; x < image.width; x += 2) {
      if (!closeTo(image.pixel(x, y), want, 20)) continue;
      count++;
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
  }
  if (count === 0) return undefined;
  const box = { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
  // Text typed into the box and the caret are not its colour: a solid block is mostly filled.
  const filled = (count * 4) / (box.width * box.height);
  return box.width >= minWidth && box.height >= minHeight && filled > 0.6 ? box : undefined;
}

/** Dark pixels (text) inside a box. */
function darkPixels(image: DecodedImage, box: Box): number {
  let dark = 0;
  for (let y = box.y; y < box.y + box.height; y += 1) {
    for (let x = box.x; x < box.x + box.width; x += 1) if (image.pixel(x, y).every((channel) => channel < 90)) dark++;
  }
  return dark;
}

// ---- the agent ------------------------------------------------------------------------------

/** What an agent does, whichever endpoint it speaks to. Each call answers the tool's result. */
interface Agent {
  open(app: string): Promise<ToolResult>;
  click(at: [number, number]): Promise<ToolResult>;
  type(text: string): Promise<ToolResult>;
  key(chord: string): Promise<ToolResult>;
  screenshot(): Promise<ToolResult>;
}

const nativeAgent = (mcp: McpConnection): Agent => ({
  open: (app) => mcp.call('open_application', { app }),
  click: (coordinate) => mcp.call('left_click', { coordinate }),
  type: (text) => mcp.call('type', { text }),
  key: (text) => mcp.call('key', { text }),
  screenshot: () => mcp.call('screenshot'),
});

const computerAgent = (mcp: McpConnection): Agent => ({
  open: (app) => mcp.call('computer', { action: 'open_application', text: app }),
  click: (coordinate) => mcp.call('computer', { action: 'left_click', coordinate }),
  type: (text) => mcp.call('computer', { action: 'type', text }),
  key: (text) => mcp.call('computer', { action: 'key', text }),
  screenshot: () => mcp.call('computer', { action: 'screenshot' }),
});

function ok(result: ToolResult, what: string): ToolResult {
  assert.ok(!result.isError, `${what}: ${errorKind(result)} — ${textOf(result)}`);
  return result;
}

/** Screenshots until `look` finds what it wants in one, bounded. */
async function lookFor<T>(agent: Agent, look: (image: DecodedImage) => T | undefined, untilMs: number): Promise<{ found?: T; shots: number }> {
  let shots = 0;
  for (;;) {
    const found = look(decodeScreenshot(ok(await agent.screenshot(), 'screenshot')));
    shots++;
    if (found !== undefined || Date.now() > untilMs) return { found, shots };
    await sleep(200);
  }
}

/**
 * The whole task, as an agent does it: open the browser, go to the page by the address bar,
 * find the input in a screenshot, click it, type, find the button, click it, see the reply.
 * Returns the milestones (ms since the start) for the log.
 */
async function fillTheForm(agent: Agent, text: string): Promise<Record<string, number>> {
  const start = Date.now();
  const times: Record<string, number> = {};
  const mark = (name: string) => (times[name] = Date.now() - start);

  ok(await agent.open('chromium'), 'open_application chromium');
  mark('window');

  // The address bar by keyboard. The first keys may come before chromium listens (or before its
  // window holds the focus): when the page does not show, the agent types the address again.
  const deadline = start + PAGE_SHOWN_WITHIN_MS;
  const input = (image: DecodedImage) => findBlock(image, PAGE_COLORS.input, 300, 40);
  let box: Box | undefined;
  const attempts: string[] = [];
  while (!box) {
    assert.ok(Date.now() < deadline, `the page did not show within ${PAGE_SHOWN_WITHIN_MS / 1000} s (${attempts.join('; ')}); the server saw ${JSON.stringify(page.requests())}`);
    const steps = [() => agent.key('ctrl+l'), () => agent.type(page.url), () => agent.key('Return')];
    let refused: string | undefined;
    for (const step of steps) {
      const result = await step();
      if (!result.isError) continue;
      // Only a focus not (yet) on chromium is worth another try; any other refusal is an answer.
      assert.equal(errorKind(result), 'focus_not_granted', `typing the address: ${errorKind(result)} — ${textOf(result)}`);
      refused = 'focus_not_granted';
      break;
    }
    attempts.push(refused ?? 'typed the address');
    if (!times.addressTyped && !refused) mark('addressTyped');
    ({ found: box } = await lookFor(agent, input, Math.min(deadline, Date.now() + (refused ? 1000 : 10_000))));
  }
  mark('pageShown');

  ok(await agent.click(centre(box)), 'click into the input');
  ok(await agent.type(text), 'type into the input');
  mark('typed');
  // The agent checks its typing landed before it sends: text (dark pixels) in the gold box.
  const { found: typed } = await lookFor(agent, (image) => (darkPixels(image, box!) > 200 ? true : undefined), Date.now() + 5000);
  assert.ok(typed, 'the typed text shows in the input');

  const { found: button } = await lookFor(agent, (image) => findBlock(image, PAGE_COLORS.button, 120, 40), Date.now() + 5000);
  assert.ok(button, 'the send button shows');
  ok(await agent.click(centre(button)), 'click the button');
  mark('sent');
  const { found: reply } = await lookFor(agent, (image) => findBlock(image, PAGE_COLORS.received, 400, 200), Date.now() + 10_000);
  assert.ok(reply, "the server's reply page shows");
  mark('replyShown');
  console.log(`attempts at the address bar: ${attempts.join('; ')}`);
  return times;
}

test('sandbox profile: the desktop apps are granted on start, the browser up to the full tier', async () => {
  const agent = await connect('2026-07-28', `${stack.mcpUrl}/granted`, stack.apiKey);
  try {
    const listed = ok(await agent.call('list_granted_applications'), 'list_granted_applications');
    for (const app of ['chromium', 'mousepad', 'pcmanfm', 'xterm']) {
      assert.match(textOf(listed), new RegExp(`${app} \\(full\\)`), `${app} at full: ${textOf(listed)}`);
    }
  } finally {
    await agent.close();
  }
});

test('an agent opens the browser on a web page and types into its form (native tools, /mcp)', { timeout: 120_000 }, async () => {
  const text = 'Grüße from deskgate: 1+1=2 & "quotes" ✓';
  const mcp = await connect('2026-07-28', `${stack.mcpUrl}/browser-native`, stack.apiKey);
  try {
    const skip = page.submissions().length;
    const times = await fillTheForm(nativeAgent(mcp), text);
    assert.equal(await page.waitForSubmission(10_000, skip), text, 'the server received exactly the typed text');
    console.log(`/mcp milestones (ms): ${JSON.stringify(times)}`);
  } finally {
    await mcp.close();
  }
});

test('the same through /computer: Anthropic-style actions, a screenshot in every reply', { timeout: 120_000 }, async () => {
  const text = 'computer tool — typed, then sent';
  const mcp = await connect('2025-11-25', `${stack.mcpUrl.replace(/\/mcp$/, '/computer')}/browser-computer`, stack.apiKey);
  try {
    const agent = computerAgent(mcp);
    // Every action answers with the settled screenshot (the reference loop's contract).
    const clicked = ok(await agent.open('chromium'), 'open_application');
    assert.ok(decodeScreenshot(clicked).width > 0);
    const skip = page.submissions().length;
    const times = await fillTheForm(agent, text);
    assert.equal(await page.waitForSubmission(10_000, skip), text, 'the server received exactly the typed text');
    console.log(`/computer milestones (ms): ${JSON.stringify(times)}`);
  } finally {
    await mcp.close();
  }
});
