/**
 * "Action → screenshot of the screen after it stopped changing", the step every agent loop
 * repeats, three ways on the same desktop, interleaved trial by trial:
 *
 * - deskgate: one `left_click` call on `/mcp/<session>?screenshot_after=settled`, which waits
 *   for XDamage to go quiet (80 ms, at most 2 s) and replies with the screenshot;
 * - Anthropic's reference loop: `left_click`, a fixed 2 s sleep, `screenshot`;
 * - Bytebot: `left_click`, a fixed 750 ms sleep, `screenshot`;
 * - and, to show what the core's reaction window costs, `left_click`, then a `settle` of a
 *   capture helper of the bench's own on the same display (80 ms quiet, no reaction window),
 *   then `screenshot`.
 *
 * for a click that changes nothing (a blank cell of an idle, focused xterm) and one that starts
 * a ~300 ms redraw (an xterm running bench/click_redraw.py). After each loop, once the redraw is long over, a
 * reference screenshot tells whether the loop's screenshot showed the final screen.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot, type Stack } from '../scripts/lib/stack.ts';
import { sessionDesktop } from './desktop.ts';
import { encoderFigures, encoderRows, type EncoderFigures } from './encoders.ts';
import type { Row } from './report.ts';
import { fromSummary, ms, ratio } from './report.ts';
import { progress, sleep, summarize, type Summary } from './stats.ts';

interface Reply {
  isError: boolean;
  text: string;
  image?: string;
  settle?: { settled: boolean; waitedMs: number };
}

interface Session {
  call(name: string, args?: Record<string, unknown>): Promise<Reply>;
  close(): Promise<void>;
}

/** The v1 SDK client over Streamable HTTP, like bench/client.ts, keeping images and structuredContent. */
async function open(url: string, apiKey: string): Promise<Session> {
  const client = new Client({ name: 'deskgate-bench-settle', version: '1.0.0' });
  const ownSignal: typeof fetch = (input, init) => fetch(input, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: ownSignal, requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }));
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Reply> => {
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as {
      isError?: boolean;
      content?: { type: string; text?: string; data?: string }[];
      structuredContent?: { settle?: Reply['settle'] };
    };
    const content = result.content ?? [];
    return {
      isError: result.isError === true,
      text: content.map((block) => block.text ?? `[${block.type}]`).join(' '),
      image: content.find((block) => block.type === 'image')?.data,
      settle: result.structuredContent?.settle,
    };
  };
  const access = await call('request_access', { apps: ['xterm'], reason: 'benchmark' });
  if (access.isError) throw new Error(`request_access failed: ${access.text.slice(0, 300)}`);
  return { call, close: () => client.close() };
}

async function ok(session: Session, name: string, args?: Record<string, unknown>): Promise<Reply> {
  const reply = await session.call(name, args);
  if (reply.isError) throw new Error(`${name} failed: ${reply.text.slice(0, 300)}`);
  return reply;
}

/** A capture helper of the bench's own (docs/capture-helper.md's framed protocol), for its `settle` op alone. */
class SettleHelper {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private waiting: ((header: Record<string, unknown>) => void)[] = [];
  private id = 0;

  constructor(display: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(`${repoRoot}helpers/linux-capture/target/release/deskgate-capture`, ['--display', display], { env });
    this.child.stderr.resume();
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      for (;;) {
        if (this.buffer.length < 4) return;
        const h = this.buffer.readUInt32LE(0);
        if (this.buffer.length < 8 + h) return;
        const end = 8 + h + this.buffer.readUInt32LE(4 + h);
        if (this.buffer.length < end) return;
        const header = JSON.parse(this.buffer.subarray(4, 4 + h).toString()) as Record<string, unknown>;
        this.buffer = this.buffer.subarray(end);
        this.waiting.shift()?.(header);
      }
    });
  }

  settle(quietMs: number, maxMs: number): Promise<Record<string, unknown>> {
    const body = Buffer.from(JSON.stringify({ id: ++this.id, op: 'settle', quiet_ms: quietMs, max_ms: maxMs }));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin.write(Buffer.concat([length, body]));
    });
  }

  stop(): void {
    this.child.stdin.end();
  }
}

export const LOOPS = [
  { key: 'settled', label: 'deskgate: click + settled screenshot, one call', sleepMs: null },
  { key: 'quiet', label: 'click, helper settle (80 ms quiet, no reaction window), screenshot', sleepMs: null },
  { key: 'reference', label: 'click, sleep 2 s, screenshot (Anthropic reference loop)', sleepMs: 2000 },
  { key: 'bytebot', label: 'click, sleep 750 ms, screenshot (Bytebot)', sleepMs: 750 },
] as const;

type LoopKey = (typeof LOOPS)[number]['key'];

export interface LoopFigure {
  latency: Summary;
  /** Trials whose screenshot was the final screen. */
  final: number;
  trials: number;
  /** deskgate only: how many waits ended settled, and the waits themselves. */
  settled?: number;
  waited?: Summary;
}

export interface ScenarioFigure {
  scenario: string;
  loops: Record<LoopKey, LoopFigure>;
}

/** How long after a loop's screenshot the reference screenshot is taken: the redraw lasts ~300 ms. */
const AFTERMATH_MS = 700;

/** Where the two xterms are (cells of 9 pt) and where each scenario clicks (root = image pixels at 1280×800). */
const IDLE_XTERM = '60x20+40+120';
const REDRAW_XTERM = '80x24+600+100';
const SCENARIOS = [
  // An xterm whose program ignores clicks: once focused, a click there changes nothing.
  { scenario: 'a click that changes nothing (idle xterm)', point: [250, 290] as [number, number] },
  // Inside the xterm running click_redraw.py.
  { scenario: 'a click that starts a ~300 ms redraw (xterm)', point: [880, 300] as [number, number] },
];

export async function settleFigures(stack: Stack, session: string, display: string, xauthority: string | undefined, trials: number): Promise<ScenarioFigure[]> {
  const env = { ...process.env, DISPLAY: display, ...(xauthority ? { XAUTHORITY: xauthority } : {}) };
  const xterm = (geometry: string, command: string[]) => spawn('xterm', ['-geometry', geometry, '-fa', 'Monospace', '-fs', '9', '-e', ...command], { env, stdio: 'ignore' });
  // Both xterms report clicks to their program (mouse tracking), so a click never starts a
  // selection; the idle one prints nothing when clicked.
  const redraw = (lines: number) => ['/usr/bin/python3', `${repoRoot}bench/click_redraw.py`, String(lines)];
  const terminals = [xterm(IDLE_XTERM, redraw(0)), xterm(REDRAW_XTERM, redraw(15))];
  for (const t of terminals) t.on('error', () => undefined);
  const helper = new SettleHelper(display, env);
  const settledSession = await open(`${stack.mcpUrl}/${session}?screenshot_after=settled`, stack.apiKey);
  const plain = await open(`${stack.mcpUrl}/${session}`, stack.apiKey);
  try {
    await sleep(1000);
    const figures: ScenarioFigure[] = [];
    for (const { scenario, point } of SCENARIOS) {
      progress(`settle: ${scenario}, ${trials} trials of each loop, interleaved`);
      // Xvfb draws the pointer into the frame: put it on the point and look, so the first click
      // is judged fresh; one click first, so focus changes are over before the trials.
      await ok(plain, 'screenshot');
      await ok(plain, 'mouse_move', { coordinate: point });
      await ok(plain, 'screenshot');
      await ok(plain, 'left_click', { coordinate: point });
      await sleep(AFTERMATH_MS);
      await ok(plain, 'screenshot');
      const samples = Object.fromEntries(LOOPS.map((loop) => [loop.key, { ms: [] as number[], final: 0, settled: 0, waited: [] as number[] }]));
      for (let trial = 0; trial < trials; trial++) {
        for (const loop of LOOPS) {
          const started = performance.now();
          let image: string | undefined;
          if (loop.key === 'settled') {
            const reply = await ok(settledSession, 'left_click', { coordinate: point });
            image = reply.image;
            if (reply.settle?.settled) samples[loop.key]!.settled++;
            if (reply.settle) samples[loop.key]!.waited.push(reply.settle.waitedMs);
          } else if (loop.key === 'quiet') {
            await ok(plain, 'left_click', { coordinate: point });
            const answer = await helper.settle(80, 2000);
            if (answer.settled === true) samples[loop.key]!.settled++;
            if (typeof answer.waited_ms === 'number') samples[loop.key]!.waited.push(answer.waited_ms);
            image = (await ok(plain, 'screenshot')).image;
          } else {
            await ok(plain, 'left_click', { coordinate: point });
            await sleep(loop.sleepMs!);
            image = (await ok(plain, 'screenshot')).image;
          }
          samples[loop.key]!.ms.push(performance.now() - started);
          await sleep(AFTERMATH_MS);
          const after = (await ok(plain, 'screenshot')).image;
          if (image !== undefined && image === after) samples[loop.key]!.final++;
        }
      }
      const loops = Object.fromEntries(
        LOOPS.map((loop) => {
          const s = samples[loop.key]!;
          const figure: LoopFigure = { latency: summarize(s.ms), final: s.final, trials };
          if (loop.sleepMs === null && s.waited.length) Object.assign(figure, { settled: s.settled, waited: summarize(s.waited) });
          return [loop.key, figure];
        }),
      ) as Record<LoopKey, LoopFigure>;
      figures.push({ scenario, loops });
      progress(`  settled ${ms(loops.settled.latency.p50)} ms p50 vs 2 s loop ${ms(loops.reference.latency.p50)} ms; final frames ${loops.settled.final}/${trials}, ${loops.reference.final}/${trials}, ${loops.bytebot.final}/${trials}`);
    }
    return figures;
  } finally {
    for (const t of terminals) t.kill('SIGKILL');
    helper.stop();
    await Promise.all([settledSession.close(), plain.close()].map((p) => p.catch(() => undefined)));
  }
}

export function settleRows(figures: ScenarioFigure[] | undefined, failure: string | undefined): Row[] {
  const section = 'Action → settled screenshot (1280×800; the final screen, measured by a screenshot 700 ms later)';
  if (!figures) return [{ section, name: 'settle', value: 'failed', compare: failure }];
  const rows: Row[] = [];
  for (const { scenario, loops } of figures) {
    for (const loop of LOOPS) {
      const figure = loops[loop.key];
      const final = `final screen in ${figure.final}/${figure.trials}`;
      const compare =
        loop.key === 'settled' || loop.key === 'quiet'
          ? `${final}; settled ${figure.settled}/${figure.trials}, waited p50 ${ms(figure.waited?.p50)} ms`
          : `${final}; deskgate ${ratio(figure.latency.p50 / loops.settled.latency.p50)} sooner`;
      rows.push({ section, name: `${scenario}: ${loop.label}`, ...fromSummary(figure.latency), compare });
    }
  }
  return rows;
}

export interface CaptureFigures {
  encoders?: EncoderFigures[];
  encodersFailure?: string;
  settle?: ScenarioFigure[];
  settleFailure?: string;
}

const SESSION = 'bench-settle';

/**
 * Both studies on a session of their own (its desktop ended afterwards, so the stack's other
 * steps keep their room): the encoders on a text-heavy screen and the synthetic photo, then
 * action → settled screenshot.
 */
export async function measureCapture(stack: Stack, options: { encoderIterations: number; settleTrials: number }): Promise<CaptureFigures> {
  const figures: CaptureFigures = {};
  const first = await open(`${stack.mcpUrl}/${SESSION}`, stack.apiKey);
  try {
    await ok(first, 'screenshot');
    const facts = await sessionDesktop(stack.redisUrl, stack.tenant, SESSION);
    try {
      progress(`encoders: jpeg/png/webp/auto on a text-heavy screen and a photo-like frame (${options.encoderIterations} iterations each)`);
      figures.encoders = await encoderFigures(facts.display, facts.xauthority, options.encoderIterations);
    } catch (error) {
      figures.encodersFailure = error instanceof Error ? error.message : String(error);
    }
    try {
      figures.settle = await settleFigures(stack, SESSION, facts.display, facts.xauthority, options.settleTrials);
    } catch (error) {
      figures.settleFailure = error instanceof Error ? error.message : String(error);
    }
  } finally {
    await first.close().catch(() => undefined);
    await fetch(new URL(`/v1/sessions/${SESSION}`, stack.mcpUrl), { method: 'DELETE', headers: { Authorization: `Bearer ${stack.apiKey}` } }).catch(() => undefined);
  }
  return figures;
}

export function captureRows(figures: CaptureFigures | undefined): Row[] {
  return [...encoderRows(figures?.encoders, figures?.encodersFailure), ...settleRows(figures?.settle, figures?.settleFailure)];
}
