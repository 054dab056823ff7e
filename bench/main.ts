/**
 * `npm run bench`: brings up the real stack (private Redis, a worker with real desktops, the
 * gateway), measures every figure of docs/performance.md in one run, prints one table on
 * stdout (progress on stderr) and writes the same as JSON, text and an SVG chart under
 * bench-results/. A benchmark reports; it never fails on a missed target.
 *
 * BENCH_SCALE=0.3 shrinks every iteration count (a quick smoke run).
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { targetImageSize } from '@deskgate/computer-use';
import { Redis } from 'ioredis';
import { readWorkerCapacities } from '@deskgate/dispatch';
import { repoRoot, startStack, type Stack } from '../scripts/lib/stack.ts';
import type { DesktopFacts } from '../tests/support/desktops.ts';
import { BENCH_POLICY_FILE, connectBench, type BenchClient } from './client.ts';
import { stackPidGroups, startCpuMeter } from './cpu.ts';
import { desktopMemory, memoryOf, sessionDesktop, showContent, untilStill } from './desktop.ts';
import { breakdown, measureAction, TYPE_TEXT, type ActionRun } from './e2e.ts';
import { captureFloor, httpRoundTrip, mcpPing, xtestClickFloor, type CaptureFloor } from './floors.ts';
import { captureRows, measureCapture, type CaptureFigures } from './settle.ts';
import { imagemagickConvert, pythonSpawnClick, scrotConvert, xdotoolClick } from './peers.ts';
import { comparisonRows, CUA_PACKAGE, CUA_VERSION, sideBySideOnOwnStack, type Comparison } from './peer-cua.ts';
import { fromSummary, ms, ratio, renderTable, verdict, writeReport, type Report, type Row } from './report.ts';
import { clickLoad, openSessions, pacedLoad, timeToReady, type ScaleLevel } from './scale.ts';
import { progress, round, summarize, type Summary } from './stats.ts';
import { consoleLiveBench } from './console-live.ts';
import { FLEET_SECTION, fleetBench, fleetRows, type FleetFigures, type FleetShape } from './fleet.ts';
import { CONTAINER_SECTION, containerBench, containerPrerequisite, containerRows, type ContainerFigures } from './containers.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
// BENCH_ONLY=containers runs the container provider's step alone (bench/containers.ts);
// BENCH_ONLY=fleet the fleet's (bench/fleet.ts); BENCH_ONLY=console the console's live view (bench/console-live.ts).
const ONLY = process.env.BENCH_ONLY;
// Other work on the machine skews every figure: the 1-minute load average at start is recorded.
const LOAD_AT_START = loadavg()[0]!.toFixed(2);
const count = (n: number, min = 5) => Math.max(min, Math.round(n * SCALE));
const LOAD_SECONDS = Math.max(2, 6 * SCALE);
const WARMUP_SECONDS = Math.max(3, 15 * SCALE);

const SMALL = { width: 1280, height: 800 };
const LARGE = { width: 1920, height: 1080 };
const LEVELS = [1, 4, 16];
const PACED_RATE = 10;

const stacks = new Set<Stack>();
const cleanups: (() => unknown)[] = [];

async function bringUp(size: { width: number; height: number }, extra: Record<string, string>, label: string, shape: FleetShape = { gateways: 1, workers: 1 }): Promise<Stack> {
  progress(`starting a stack (${label}: ${size.width}×${size.height}, ${Object.entries(extra).map(([k, v]) => `${k.replace('DESKGATE_', '')}=${v}`).join(' ')})`);
  const stack = await startStack({
    env: {
      REDIS_URL: '',
      DESKGATE_PORT: '0',
      DESKGATE_DESKTOP_SIZE: `${size.width}x${size.height}`,
      // 'info' (the default): the stack helper waits for the services' info-level ready lines.
      DESKGATE_LOG_LEVEL: 'info',
      DESKGATE_SESSION_IDLE_SECONDS: '3600',
      // The bench is one tenant at full speed: no per-tenant call rate or session quota.
      DESKGATE_TENANT_CALLS_PER_SECOND: '0',
      DESKGATE_TENANT_MAX_SESSIONS: '1000',
      // The bench types into its xterm, so it classifies xterm as a full-tier app.
      DESKGATE_POLICY_FILE: BENCH_POLICY_FILE,
      ...extra,
    },
    tenant: 'bench',
    ...shape,
    logDir: mkdtempSync(join(tmpdir(), `deskgate-bench-${label}-`)),
  });
  stacks.add(stack);
  progress(`  stack up at ${stack.mcpUrl} (logs in ${stack.logDir})`);
  return stack;
}

async function tearDown(stack: Stack): Promise<void> {
  stacks.delete(stack);
  await stack.stop();
}

async function cleanup(): Promise<void> {
  for (const fn of cleanups.splice(0)) {
    try {
      await fn();
    } catch {
      // already gone
    }
  }
  for (const stack of [...stacks]) await tearDown(stack).catch(() => undefined);
}

process.on('SIGINT', () => {
  progress('interrupted: stopping the stacks');
  void cleanup().finally(() => process.exit(130));
});

/** A session with text on its screen and a screenshot of it taken once it settled (so clicks on it are judged against it). */
async function mainSession(stack: Stack, name: string): Promise<{ client: BenchClient; display: string; facts: DesktopFacts }> {
  const client = await connectBench(`${stack.mcpUrl}/${name}`, stack.apiKey);
  await client.ok('screenshot'); // starts the session's desktop
  const facts = await sessionDesktop(stack.redisUrl, stack.tenant, name);
  const xterm = await showContent(facts.display);
  cleanups.push(() => xterm.kill('SIGKILL'));
  await untilStill(async () => (await client.ok('screenshot')).image, 'screenshot');
  return { client, display: facts.display, facts };
}

/**
 * A fresh gateway and worker are about twice as slow for their first ~2,000 calls (V8 has not
 * optimised the hot paths yet): click p50 fell from ~5 ms to ~3 ms over the first 2,400 calls
 * in a trial. Every figure is taken after this mixed warm-up so they describe a warmed service.
 */
async function warmUp(client: BenchClient, point: [number, number], seconds: number): Promise<number> {
  progress(`warm-up: ${seconds} s of mixed calls (left_click, ping, screenshot, key)`);
  const until = performance.now() + seconds * 1000;
  let calls = 0;
  while (performance.now() < until) {
    for (let i = 0; i < 5; i++) await client.ok('left_click', { coordinate: point });
    await client.ping();
    await client.ping();
    await client.ok('screenshot');
    await client.ok('key', { text: 'Escape' });
    calls += 9;
  }
  progress(`  ${calls} calls`);
  return calls;
}

interface Results {
  e2e: Record<string, ActionRun>;
  ping?: Summary;
  http?: Summary;
  readyz?: Summary;
  capture: Record<string, CaptureFloor>;
  xtest?: Summary;
  peers: Record<string, Summary>;
  /** deskgate and cua-computer-server side by side over MCP (bench/peer-cua.ts). */
  sideBySide?: Comparison;
  sideBySideFailure?: string;
  /** Screenshot encoders and action → settled screenshot (bench/encoders.ts, bench/settle.ts). */
  captureStudy?: CaptureFigures;
  scale: ScaleLevel[];
  paced?: ScaleLevel;
  cold?: Awaited<ReturnType<typeof timeToReady>>;
  warm?: Awaited<ReturnType<typeof timeToReady>>;
  idleMemory: ReturnType<typeof desktopMemory>[];
  serviceMemory: Record<string, { rssKiB: number; pssKiB: number }>;
  /** The container provider beside the process provider (bench/containers.ts). */
  containers?: ContainerFigures;
  containersSkipped?: string;
  /** 32 sessions through 2 gateways × 2 workers and through 1 × 1 (bench/fleet.ts). */
  fleet?: FleetFigures[];
  /** The web console's live view in Chromium (bench/console-live.ts). */
  live?: Awaited<ReturnType<typeof consoleLiveBench>>;
  errors: string[];
}

const results: Results = { e2e: {}, capture: {}, peers: {}, scale: [], idleMemory: [], serviceMemory: {}, errors: [] };

async function step(name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    const message = `${name}: ${error instanceof Error ? error.message : String(error)}`;
    results.errors.push(message);
    progress(`\x1b[31mFAILED\x1b[0m ${message}`);
  }
}

const smallImage = targetImageSize(SMALL);
// Inside the session's xterm (top-left, ~770×600 px), below its text: the gates refuse the bare desktop.
const clickPoint = (image: { width: number; height: number }): [number, number] => [Math.round(image.width * 0.3), Math.round(image.height * 0.5)];

async function runSmallStack(): Promise<void> {
  // WARM_DESKTOPS=0: every new session starts its desktop cold, which the cold-start figure needs.
  const stack = await bringUp(SMALL, { DESKGATE_MAX_DESKTOPS: '20', DESKGATE_WARM_DESKTOPS: '0' }, 'main');
  try {
    await step('cold start', async () => {
      progress('time to a ready desktop, cold (no warm spare): 3 new sessions');
      results.cold = await timeToReady(stack, 'cold', 3, 300);
    });
    const { client, display, facts } = await mainSession(stack, 'bench-main');
    const point = clickPoint(smallImage);
    await warmUp(client, point, WARMUP_SECONDS);

    await step('e2e screenshot 1280', async () => {
      progress(`e2e: screenshot ${SMALL.width}×${SMALL.height} (${count(300)}×)`);
      results.e2e.screenshotSmall = await measureAction(client, 'screenshot', () => ({}), count(300), 20);
    });
    await step('e2e left_click', async () => {
      progress(`e2e: left_click (${count(600)}×)`);
      results.e2e.click = await measureAction(client, 'left_click', () => ({ coordinate: point }), count(600), 30);
    });
    await step('e2e type', async () => {
      progress(`e2e: type of ${TYPE_TEXT.length} characters (${count(100)}×)`);
      results.e2e.type = await measureAction(client, 'type', () => ({ text: TYPE_TEXT }), count(100), 5);
    });
    await step('e2e key', async () => {
      progress(`e2e: key "Escape" (${count(400)}×)`);
      results.e2e.key = await measureAction(client, 'key', () => ({ text: 'Escape' }), count(400), 20);
    });

    await step('e2e zoom', async () => {
      progress(`e2e: zoom of a 300×200 region (${count(200)}×)`);
      await client.ok('screenshot', {});
      results.e2e.zoom = await measureAction(client, 'zoom', () => ({ region: [100, 100, 400, 300] }), count(200), 10);
    });
    await step('e2e batch', async () => {
      progress(`e2e: computer_batch of 10 actions (${count(200)}×)`);
      const actions = Array.from({ length: 10 }, (_, i) => (i % 2 ? { action: 'left_click', coordinate: point } : { action: 'mouse_move', coordinate: point }));
      results.e2e.batch = await measureAction(client, 'computer_batch', () => ({ actions }), count(200), 10);
    });
    await step('floor ping', async () => {
      progress(`floor: MCP ping (${count(1000)}×)`);
      results.ping = await mcpPing(client, count(1000));
    });
    await step('floor http', async () => {
      progress(`floor: GET /healthz (${count(1000)}×)`);
      results.http = await httpRoundTrip(stack.mcpUrl, count(1000));
    });
    await step('floor readyz', async () => {
      progress(`floor: GET /readyz, HTTP + one Redis PING (${count(500)}×)`);
      results.readyz = await httpRoundTrip(stack.mcpUrl, count(500), '/readyz');
    });
    await step('floor capture 1280', async () => {
      progress('floor: in-process MIT-SHM capture + JPEG (capture helper bench, 60 iterations)');
      results.capture.small = await captureFloor(facts, count(60, 10));
    });
    await step('capture study', async () => {
      results.captureStudy = await measureCapture(stack, { encoderIterations: count(40, 10), settleTrials: count(6, 3) });
    });
    await step('floor xtest', async () => {
      progress(`floor: in-process XTest click (${count(1000)}×)`);
      results.xtest = await xtestClickFloor(display, count(1000));
    });

    await step('peer xdotool', async () => {
      progress(`peer: xdotool click 1 (${count(40)}×, ~105 ms each)`);
      results.peers.xdotool = await xdotoolClick(display, count(40), false);
    });
    await step('peer xdotool delay 0', async () => {
      progress(`peer: xdotool click --delay 0 1 (${count(100)}×)`);
      results.peers.xdotoolNoDelay = await xdotoolClick(display, count(100), true);
    });
    await step('peer python spawn', async () => {
      progress(`peer: python-xlib process per click (${count(40)}×)`);
      results.peers.pythonSpawn = await pythonSpawnClick(display, count(40));
    });
    await step('peer scrot 1280', async () => {
      progress(`peer: scrot + ${imagemagickConvert()} -resize at ${SMALL.width}×${SMALL.height} (${count(25)}×)`);
      results.peers.scrotSmall = await scrotConvert(display, smallImage, count(25));
    });

    await step('scale', async () => {
      const most = Math.max(...LEVELS);
      progress(`scale: opening ${most} sessions (each a cold desktop)`);
      const opened = await openSessions(stack, 'scale', most, point);
      cleanups.push(() => void opened.close());
      const clients = opened.clients;
      const desktops = await Promise.all(clients.map((_, i) => sessionDesktop(stack.redisUrl, stack.tenant, `scale-${i}`)));
      const groups = stackPidGroups(stack, desktops);
      for (const level of LEVELS) {
        progress(`scale: ${level} session(s) clicking for ${LOAD_SECONDS} s`);
        const outcome = await clickLoad(clients.slice(0, level), LOAD_SECONDS, point, () => startCpuMeter(groups));
        results.scale.push(outcome);
        progress(`  ${outcome.actionsPerSecond.toFixed(0)} actions/s, p50 ${ms(outcome.latency.p50)} ms, p99 ${ms(outcome.latency.p99)} ms`);
      }
      progress(`scale: ${most} sessions paced at ${PACED_RATE} clicks/s each for ${LOAD_SECONDS} s (open loop)`);
      results.paced = await pacedLoad(clients, PACED_RATE, LOAD_SECONDS, point);
      progress(`  ${results.paced.actionsPerSecond.toFixed(0)} actions/s, p50 ${ms(results.paced.latency.p50)} ms, p99 ${ms(results.paced.latency.p99)} ms`);
      progress('scale: memory of the idle desktops');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (let i = 0; i < most; i++) {
        const facts = await sessionDesktop(stack.redisUrl, stack.tenant, `scale-${i}`);
        results.idleMemory.push(desktopMemory(facts));
      }
      for (const service of [stack.worker, stack.gateway]) {
        if (service.process.pid) results.serviceMemory[`${service.name} process (with ${most + 4} desktops held)`] = memoryOf(service.process.pid);
      }
    });
    await client.close().catch(() => undefined);
  } finally {
    await tearDown(stack);
  }
}

async function runLargeStack(): Promise<void> {
  const stack = await bringUp(LARGE, { DESKGATE_MAX_DESKTOPS: '2', DESKGATE_WARM_DESKTOPS: '0' }, 'large');
  try {
    const { client, display, facts } = await mainSession(stack, 'bench-large');
    await warmUp(client, clickPoint(targetImageSize(LARGE)), WARMUP_SECONDS);
    await step('e2e screenshot 1920', async () => {
      progress(`e2e: screenshot ${LARGE.width}×${LARGE.height} (${count(300)}×)`);
      results.e2e.screenshotLarge = await measureAction(client, 'screenshot', () => ({}), count(300), 20);
    });
    await step('floor capture 1920', async () => {
      progress('floor: in-process MIT-SHM capture + JPEG at 1920×1080');
      results.capture.large = await captureFloor(facts, count(60, 10));
    });
    await step('peer scrot 1920', async () => {
      const image = targetImageSize(LARGE);
      progress(`peer: scrot + convert -resize ${image.width}x${image.height} at ${LARGE.width}×${LARGE.height} (${count(25)}×)`);
      results.peers.scrotLarge = await scrotConvert(display, image, count(25));
    });
    await client.close().catch(() => undefined);
  } finally {
    await tearDown(stack);
  }
}

async function runWarmStack(): Promise<void> {
  const stack = await bringUp(SMALL, { DESKGATE_MAX_DESKTOPS: '6', DESKGATE_WARM_DESKTOPS: '1' }, 'warm');
  try {
    await step('warm start', async () => {
      progress('time to a ready desktop with a warm spare: 3 new sessions, 4 s apart so the spare refills');
      results.warm = await timeToReady(stack, 'warm', 3, 4000);
    });
  } finally {
    await tearDown(stack);
  }
}

/** The fleet beside one process of each (bench/fleet.ts). */
async function runFleetStep(): Promise<void> {
  results.fleet = await fleetBench({
    bringUp: (extra, label, shape) => bringUp(SMALL, extra, label, shape),
    tearDown,
    onCleanup: (fn) => cleanups.push(fn),
    clickPoint: clickPoint(smallImage),
    loadSeconds: LOAD_SECONDS,
    pacedRate: PACED_RATE,
    desktopsByWorker: async (stack) => {
      const redis = new Redis(stack.redisUrl, { maxRetriesPerRequest: 1 });
      try {
        return Object.fromEntries([...(await readWorkerCapacities(redis))].map(([id, room]) => [id, room.busy]));
      } finally {
        redis.disconnect();
      }
    },
  });
}

/** Both desktop providers side by side: stacks of each, then the providers directly. */
async function runContainerStep(): Promise<void> {
  const image = process.env.DESKGATE_DESKTOP_IMAGE ?? 'deskgate/linux-desktop:dev';
  const missing = await containerPrerequisite(image);
  if (missing) {
    results.containersSkipped = missing;
    progress(`container rows skipped: ${missing}`);
    return;
  }
  results.containers = await containerBench({
    size: SMALL,
    count,
    warmupSeconds: WARMUP_SECONDS,
    bringUp: (extra, label) => bringUp(SMALL, extra, label),
    tearDown,
    onCleanup: (fn) => cleanups.push(fn),
    clickPoint: clickPoint(smallImage),
    idleDesktops: Number(process.env.BENCH_IDLE_DESKTOPS ?? 8),
  });
}

function buildReport(): Report {
  const rows: Row[] = [];
  const e2e = 'End to end: MCP tools/call over HTTP (v1 SDK client)';
  const floors = 'Floors (same run, same gateway / display)';
  const peers = 'Peers, spawned per call on the same display';
  const where = 'Where the time goes (p50 of each layer; mean in brackets)';
  const scale = 'Scale: one worker, N sessions clicking at once';
  const ping = results.ping?.p50 ?? Number.NaN;
  const click = results.e2e.click?.summary;
  const capSmall = results.capture.small?.shmJpegTotal.p50 ?? Number.NaN;
  const capLarge = results.capture.large?.shmJpegTotal.p50 ?? Number.NaN;

  const shotRow = (name: string, run: ActionRun | undefined, capture: number) => {
    if (!run) return rows.push({ section: e2e, name, value: 'failed' });
    const limit = ping + 1.5 * capture;
    rows.push({
      section: e2e,
      name,
      ...fromSummary(run.summary),
      compare: `${ratio(run.summary.p50 / capture)} capture floor; ${ratio(run.summary.p50 / (ping + capture))} (ping+capture)`,
      target: `≤ ping + 1.5×capture = ${ms(limit)}`,
      status: verdict(run.summary.p50 <= limit),
    });
  };
  shotRow(`screenshot ${SMALL.width}×${SMALL.height}`, results.e2e.screenshotSmall, capSmall);
  shotRow(`screenshot ${LARGE.width}×${LARGE.height} → ${targetImageSize(LARGE).width}×${targetImageSize(LARGE).height}`, results.e2e.screenshotLarge, capLarge);
  if (click) {
    rows.push({
      section: e2e,
      name: 'left_click',
      ...fromSummary(click),
      compare: `${ratio(click.p50 / ping)} MCP ping; ${ratio(click.p50 / (results.xtest?.p50 ?? Number.NaN))} in-process XTest`,
      target: `≤ 1.5× ping = ${ms(1.5 * ping)}`,
      status: verdict(click.p50 <= 1.5 * ping),
    });
  } else rows.push({ section: e2e, name: 'left_click', value: 'failed' });
  if (results.e2e.type) rows.push({ section: e2e, name: `type (${TYPE_TEXT.length} characters)`, ...fromSummary(results.e2e.type.summary), compare: `${ratio(results.e2e.type.summary.p50 / ping)} MCP ping` });
  if (results.e2e.key) rows.push({ section: e2e, name: 'key (Escape)', ...fromSummary(results.e2e.key.summary), compare: `${ratio(results.e2e.key.summary.p50 / ping)} MCP ping` });
  if (results.e2e.zoom) rows.push({ section: e2e, name: 'zoom (300×200 region)', ...fromSummary(results.e2e.zoom.summary), compare: `${ratio(results.e2e.zoom.summary.p50 / ping)} MCP ping` });
  if (results.e2e.batch) {
    const perAction = results.e2e.batch.summary.p50 / 10;
    rows.push({ section: e2e, name: 'computer_batch (10 actions)', ...fromSummary(results.e2e.batch.summary), compare: `${ms(perAction)} per action; ${click ? ratio(click.p50 / perAction) : '?'} cheaper than single calls` });
  }

  if (results.ping) rows.push({ section: floors, name: 'MCP ping (HTTP + auth + MCP, no tool)', ...fromSummary(results.ping), compare: results.http ? `${ratio(results.ping.p50 / results.http.p50)} bare HTTP` : undefined });
  if (results.http) rows.push({ section: floors, name: 'bare HTTP: GET /healthz', ...fromSummary(results.http) });
  if (results.readyz) rows.push({ section: floors, name: 'GET /readyz (HTTP + one Redis PING)', ...fromSummary(results.readyz), compare: results.http ? `Redis round trip ≈ ${ms(results.readyz.p50 - results.http.p50)}` : undefined });
  for (const [key, size] of [['small', SMALL], ['large', LARGE]] as const) {
    const floor = results.capture[key];
    if (!floor) continue;
    rows.push({
      section: floors,
      name: `in-process SHM capture + JPEG q75 ${size.width}×${size.height}`,
      n: floor.raw.iterations as number,
      p50: floor.shmJpegTotal.p50,
      p90: floor.shmJpegTotal.p90,
      compare: `shm ${ms(floor.stages.shm_capture_ms?.p50)} + rgb ${ms(floor.stages.convert_ms?.p50)} + jpeg ${ms(floor.stages.jpeg_q75_ms?.p50)}`,
    });
  }
  if (results.xtest) rows.push({ section: floors, name: 'in-process XTest click (press+release+sync)', ...fromSummary(results.xtest) });

  const peer = (name: string, summary: Summary | undefined, ours: Summary | undefined, target?: number) => {
    if (!summary) return rows.push({ section: peers, name, value: 'failed' });
    const speedup = ours ? summary.p50 / ours.p50 : Number.NaN;
    rows.push({
      section: peers,
      name,
      ...fromSummary(summary),
      compare: `deskgate ${ratio(speedup)} faster`,
      ...(target ? { target: `deskgate ≥ ${target}× faster`, status: verdict(speedup >= target) } : {}),
    });
  };
  peer('xdotool click 1', results.peers.xdotool, click, 30);
  peer('xdotool click --delay 0 1', results.peers.xdotoolNoDelay, click);
  peer('python-xlib process per click', results.peers.pythonSpawn, click);
  peer(`scrot + convert -resize ${SMALL.width}×${SMALL.height}`, results.peers.scrotSmall, results.e2e.screenshotSmall?.summary, 20);
  peer(`scrot + convert -resize ${LARGE.width}×${LARGE.height}`, results.peers.scrotLarge, results.e2e.screenshotLarge?.summary, 20);

  rows.push(...captureRows(results.captureStudy));
  rows.push(...comparisonRows(results.sideBySide, results.sideBySideFailure, `Side by side over MCP: deskgate vs ${CUA_PACKAGE} ${CUA_VERSION} (own Xvfb ${SMALL.width}×${SMALL.height}, same client, interleaved)`));

  for (const [label, run, kind] of [
    [`screenshot ${SMALL.width}×${SMALL.height}`, results.e2e.screenshotSmall, 'screenshot'],
    ['left_click', results.e2e.click, 'click'],
  ] as const) {
    if (!run) continue;
    for (const layer of breakdown(run, kind)) {
      rows.push({ section: where, name: `${label}: ${layer.step}`, value: `${ms(layer.p50)} (${ms(layer.mean)})`, compare: layer.how });
    }
  }

  const single = results.scale.find((level) => level.sessions === 1);
  for (const level of results.scale) {
    const isTop = level.sessions === Math.max(...LEVELS);
    rows.push({
      section: scale,
      name: `${level.sessions} session${level.sessions > 1 ? 's' : ''}: left_click loop`,
      n: level.actions,
      p50: level.latency.p50,
      p90: level.latency.p90,
      p99: level.latency.p99,
      compare: `${level.actionsPerSecond.toFixed(0)} actions/s${level.errors ? `, ${level.errors} errors` : ''}`,
      ...(isTop && single ? { target: `p99 ≤ 5× 1-session p50 = ${ms(5 * single.latency.p50)}`, status: verdict(level.latency.p99 <= 5 * single.latency.p50) } : {}),
    });
    if (level.cpuMsPerAction) {
      const total = Object.values(level.cpuMsPerAction).reduce((sum, value) => sum + value, 0);
      const parts = Object.entries(level.cpuMsPerAction).sort((a, b) => b[1] - a[1]).map(([name, value]) => `${name} ${value.toFixed(2)}`);
      rows.push({ section: scale, name: `  CPU per click at ${level.sessions}`, value: `${total.toFixed(2)} ms`, compare: parts.join(' · ') });
    }
  }
  if (results.paced) {
    const paced = results.paced;
    rows.push({
      section: scale,
      name: `${paced.sessions} sessions paced at ${PACED_RATE} clicks/s each`,
      ...fromSummary(paced.latency),
      compare: `${paced.actionsPerSecond.toFixed(0)} actions/s, open loop${paced.errors ? `, ${paced.errors} errors` : ''}`,
      ...(single ? { target: `(same limit: ${ms(5 * single.latency.p50)})`, status: verdict(paced.latency.p99 <= 5 * single.latency.p50) } : {}),
    });
  }
  for (const [name, ready] of [['time to ready desktop, cold (first screenshot)', results.cold], ['time to ready desktop, warm spare (first screenshot)', results.warm]] as const) {
    if (ready) rows.push({ section: scale, name, ...fromSummary(ready.summary), compare: `trials: ${ready.samples.map((v) => ms(v)).join(', ')}` });
  }
  if (results.idleMemory.length) {
    const rss = summarize(results.idleMemory.map((m) => m.rssKiB / 1024));
    const pss = summarize(results.idleMemory.map((m) => m.pssKiB / 1024));
    const first = results.idleMemory[0]!.byProcess;
    rows.push({
      section: scale,
      name: 'memory per idle desktop (RSS sum)',
      n: rss.n,
      value: `${rss.p50.toFixed(1)} MiB`,
      compare: `PSS ${pss.p50.toFixed(1)} MiB; ${Object.entries(first).map(([proc, m]) => `${proc} ${(m.rssKiB / 1024).toFixed(0)}`).join(' + ')} MiB RSS`,
    });
  }
  for (const [name, m] of Object.entries(results.serviceMemory)) {
    rows.push({ section: scale, name: `${name} RSS`, value: `${(m.rssKiB / 1024).toFixed(0)} MiB` });
  }
  rows.push(...fleetRows(results.fleet, PACED_RATE));
  if (results.live) {
    const live = results.live;
    const section = 'Console live view (Chromium, 1280×800)';
    rows.push({
      section,
      name: 'moving window: frames shown per second',
      value: `${live.movingWindow.fps} fps`,
      compare: `capture → shown p50 ${live.movingWindow.captureToShownMs.p50} ms, p95 ${live.movingWindow.captureToShownMs.p95} ms; over ${live.movingWindow.seconds} s`,
      target: '≥ 20 fps',
      status: verdict(live.movingWindow.fps >= 20),
    });
    rows.push({
      section,
      name: 'screen change → frame shown in the page',
      value: `p50 ${live.screenChangeToShownMs.p50} ms`,
      compare: `p95 ${live.screenChangeToShownMs.p95} ms, max ${live.screenChangeToShownMs.max} ms; ${live.screenChangeToShownMs.seen} of ${live.screenChangeToShownMs.flips} flips seen`,
      target: '< 100 ms',
      status: verdict((live.screenChangeToShownMs.p50 ?? Infinity) < 100),
    });
    rows.push({
      section,
      name: 'CPU of the live path (gateway, worker, capture helpers)',
      value: `${live.movingWindow.cpuCores.liveServices} cores`,
      compare: `Xvfb drawing the moving window: ${live.movingWindow.cpuCores.xvfb} cores`,
      target: '≤ 1 core',
      status: verdict(live.movingWindow.cpuCores.liveServices <= 1),
    });
  }
  rows.push(...containerRows(results.containers, results.containersSkipped, SMALL));
  for (const error of results.errors) rows.push({ section: 'Errors', name: error.slice(0, 120) });
  const only = ONLY === 'containers' ? CONTAINER_SECTION : ONLY === 'fleet' ? FLEET_SECTION : ONLY === 'console' ? 'Console live view' : undefined;
  const shown = only ? rows.filter((row) => row.section.startsWith(only) || row.section === 'Errors') : rows;

  return {
    title: ONLY ? `deskgate bench (BENCH_ONLY=${ONLY})` : 'deskgate bench',
    machine: { date: new Date().toISOString(), cpus: `${cpus().length}× ${cpus()[0]?.model.trim() ?? '?'}`, memory: `${Math.round(totalmem() / 2 ** 30)} GiB`, node: process.version, 'load avg at start': LOAD_AT_START, scale: SCALE },
    rows: shown,
    extra: {
      breakdownRaw: {
        screenshotSmall: results.e2e.screenshotSmall ? breakdown(results.e2e.screenshotSmall, 'screenshot') : null,
        screenshotLarge: results.e2e.screenshotLarge ? breakdown(results.e2e.screenshotLarge, 'screenshot') : null,
        click: results.e2e.click ? breakdown(results.e2e.click, 'click') : null,
        type: results.e2e.type ? breakdown(results.e2e.type, 'click') : null,
        key: results.e2e.key ? breakdown(results.e2e.key, 'click') : null,
      },
      sideBySide: results.sideBySide ?? { failure: results.sideBySideFailure },
      captureStudy: results.captureStudy,
      capture: Object.fromEntries(Object.entries(results.capture).map(([k, v]) => [k, v.raw])),
      scale: results.scale,
      paced: results.paced,
      cold: results.cold,
      warm: results.warm,
      idleMemory: results.idleMemory,
      serviceMemory: results.serviceMemory,
      containers: results.containers ?? { skipped: results.containersSkipped },
      errors: results.errors,
      // Every sample, for anyone who wants other percentiles.
      samples: Object.fromEntries(Object.entries(results.e2e).map(([k, run]) => [k, run.calls.map((c) => ({ ms: round(c.ms, 3), timings: c.timings }))])),
    },
  };
}

const started = performance.now();
if (ONLY && !['containers', 'fleet', 'console'].includes(ONLY)) throw new Error(`BENCH_ONLY=${ONLY}: the steps that run alone are "containers", "fleet" and "console"`);
// First, on a stack of its own, so its rows come out whatever happens to the other steps.
if (!ONLY) await step('side by side with cua-computer-server', async () => {
  try {
    results.sideBySide = await sideBySideOnOwnStack({
      size: SMALL,
      count,
      deskgateWarmupSeconds: WARMUP_SECONDS,
      warmupSeconds: Math.max(3, 8 * SCALE),
      frameDir: `${repoRoot}bench-results/frames`,
      onCleanup: (stop) => cleanups.push(stop),
    });
  } catch (error) {
    results.sideBySideFailure = error instanceof Error ? error.message : String(error);
    throw error;
  }
});
try {
  if (!ONLY) {
    await runSmallStack();
    await runLargeStack();
    await runWarmStack();
  }
  if (!ONLY || ONLY === 'fleet') await step('fleet', runFleetStep);
  if (!ONLY || ONLY === 'console') await step('console live view', async () => void (results.live = await consoleLiveBench()));
  if (!ONLY || ONLY === 'containers') await step('containers', runContainerStep);
} catch (error) {
  results.errors.push(`harness: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  progress(`\x1b[31mharness error\x1b[0m ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await cleanup();
}
const report = buildReport();
const files = writeReport(report, `${repoRoot}bench-results`);
process.stdout.write(`${renderTable(report)}\n`);
progress(`done in ${((performance.now() - started) / 1000).toFixed(0)} s; wrote ${files.txt}, ${files.json}, ${files.svg} (and latest.*)`);
process.exit(0);
