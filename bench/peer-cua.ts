/**
 * A real peer measured side by side with deskgate over MCP: trycua's `cua-computer-server`
 * (PyPI, pinned in scripts/bench.sh), one Python process (FastAPI + FastMCP, Streamable HTTP
 * at /mcp, no auth, no gates, no queue) driving its own Xvfb + openbox desktop of the same
 * size, with the same xterm of text on it. Both services are driven by the same MCP client code
 * (the v1 SDK over Streamable HTTP, one fetch signal per call), call for call interleaved, so
 * both see the same machine; server CPU per action comes from /proc of each side's processes.
 *
 * The peer lives in a venv under .deskgate/peers/ (gitignored); where it is missing the bench
 * reports why and goes on.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../scripts/lib/free-port.ts';
import { repoRoot, startStack, type Stack } from '../scripts/lib/stack.ts';
import { BACKGROUND } from '../services/worker/src/desktops/process-provider.ts';
import { BENCH_POLICY_FILE, connectSdkClient, sessionAround, type Timings } from './client.ts';
import { breakdown, type BreakdownStep } from './e2e.ts';
import { processTree, stackPidGroups, startGroupMeter, type PidGroups } from './cpu.ts';
import { sessionDesktop, showContent, untilStill } from './desktop.ts';
import type { Row } from './report.ts';
import { fromSummary, ms, ratio, renderTable } from './report.ts';
import { progress, round, sleep, summarize, type Summary } from './stats.ts';

export const CUA_PACKAGE = 'cua-computer-server';
export const CUA_VERSION = '0.3.46';
export const CUA_VENV = join(repoRoot, '.deskgate/peers/cua-venv');
/** deskgate's desktop files (openbox and tint2 configuration), which the peer's desktop uses too. */
const DESKTOP_DIR = join(repoRoot, 'desktop');

/** The venv's Python, or BENCH_CUA_PYTHON (a Python with cua-computer-server installed). */
export function cuaPython(): string | undefined {
  const configured = process.env.BENCH_CUA_PYTHON;
  if (configured) return configured;
  const python = join(CUA_VENV, 'bin/python');
  return existsSync(python) ? python : undefined;
}

// ─── the peer's desktop and server ──────────────────────────────────────────────────────────

export interface CuaPeer {
  url: string;
  display: string;
  version: string;
  serverPid: number;
  xvfbPid: number;
  wmPid: number;
  panelPid: number;
  startupMs: number;
  stop(): void;
}

/** Xvfb exactly as deskgate's process provider starts it (same depth, extensions, flags). */
async function startXvfb(size: { width: number; height: number }): Promise<{ xvfb: ChildProcess; display: string }> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${size.width}x${size.height}x24`, '-nolisten', 'tcp', '-noreset', '+extension', 'RANDR'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  xvfb.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const display = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('Xvfb did not report a display within 10 s')), 10_000);
    (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(`:${out.trim()}`);
      }
    });
    xvfb.once('error', (error) => reject(new Error(`cannot start Xvfb: ${error.message}`)));
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}: ${stderr.trim()}`)));
  });
  return { xvfb, display };
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`${what} not ready within ${timeoutMs / 1000} s`);
}

/**
 * Brings up the peer: its own Xvfb (same size and flags as deskgate's desktops) dressed as
 * deskgate's desktops are (the same background colour, openbox with deskgate's rc.xml, the
 * tint2 panel), the bench's xterm of text, then `python -m computer_server` on a free loopback
 * port with telemetry off. The peer runs as the bench's user, as its docs run it.
 */
export async function startCuaPeer(size: { width: number; height: number }): Promise<CuaPeer> {
  const python = cuaPython();
  if (!python) throw new Error(`${CUA_PACKAGE} is not installed (no ${CUA_VENV}; scripts/bench.sh installs it with Python 3.12, or set BENCH_CUA_PYTHON)`);
  const version = execFileSync(python, ['-c', `import importlib.metadata as m; print(m.version('${CUA_PACKAGE}'))`]).toString().trim();
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const child of [...children].reverse()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    const { xvfb, display } = await startXvfb(size);
    children.push(xvfb);
    const env = { ...process.env, DISPLAY: display };
    execFileSync('xsetroot', ['-solid', BACKGROUND], { env });
    const wm = spawn('openbox', ['--config-file', join(DESKTOP_DIR, 'openbox/rc.xml')], { env: { ...env, XDG_CONFIG_HOME: DESKTOP_DIR, XDG_CONFIG_DIRS: DESKTOP_DIR }, stdio: 'ignore' });
    children.push(wm);
    await waitFor(`openbox on ${display}`, 10_000, () => {
      try {
        return execFileSync('xprop', ['-display', display, '-root', '_NET_SUPPORTING_WM_CHECK']).toString().includes('window id');
      } catch {
        return false;
      }
    });
    // The panel as deskgate's desktops have it (DESKGATE_DESKTOP_PANEL, on by default).
    const panel = /^(0|false|no|off)$/i.test(process.env.DESKGATE_DESKTOP_PANEL ?? '') ? undefined : spawn('tint2', ['-c', join(DESKTOP_DIR, 'tint2/tint2rc')], { env, stdio: 'ignore' });
    panel?.on('error', () => undefined);
    if (panel) children.push(panel);
    children.push(await showContent(display));
    const port = await freePort();
    const logDir = mkdtempSync(join(tmpdir(), 'deskgate-bench-cua-'));
    const log: string[] = [];
    const started = performance.now();
    const server = spawn(python, ['-m', 'computer_server', '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warning'], {
      cwd: logDir,
      // The package reports usage to PostHog unless told not to.
      env: { ...env, DO_NOT_TRACK: '1', CUA_TELEMETRY_ENABLED: 'false', CUA_TELEMETRY: 'off', PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(server);
    for (const stream of [server.stdout!, server.stderr!]) stream.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    let exited: string | undefined;
    server.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${CUA_PACKAGE} on port ${port}`, 60_000, async () => {
      if (exited) throw new Error(`${CUA_PACKAGE} ${exited}: ${log.join('').trim().slice(-600)}`);
      try {
        const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(1000) });
        return response.ok && ((await response.json()) as { features?: string[] }).features?.includes('mcp') === true;
      } catch {
        return false;
      }
    });
    const startupMs = performance.now() - started;
    writeFileSync(join(logDir, 'server.log'), log.join(''));
    return { url: `${url}/mcp`, display, version, serverPid: server.pid!, xvfbPid: xvfb.pid!, wmPid: wm.pid!, panelPid: panel?.pid ?? 0, startupMs, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

// ─── one MCP client code path for both ──────────────────────────────────────────────────────

export interface PeerCall {
  ms: number;
  /** deskgate's own timings of the call (`_meta["deskgate/timings"]`); {} for the peer. */
  timings: Timings;
  isError: boolean;
  text: string;
  image?: { bytes: number; base64Chars: number; mimeType: string; width?: number; height?: number; data: string };
}

export interface McpUnderTest {
  call(name: string, args?: Record<string, unknown>): Promise<PeerCall>;
  ok(name: string, args?: Record<string, unknown>): Promise<PeerCall>;
  ping(): Promise<number>;
  close(): Promise<void>;
}

/** Width and height from a JPEG's SOF or a PNG's IHDR. */
export function imageSize(bytes: Buffer): { width?: number; height?: number } {
  if (bytes.length > 24 && bytes.readUInt32BE(0) === 0x89504e47) return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  let at = 2;
  while (bytes[0] === 0xff && bytes[1] === 0xd8 && at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return {};
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return {};
}

interface RawResult {
  isError?: boolean;
  content?: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export async function connectMcp(url: string, headers: Record<string, string> = {}, name = 'deskgate-bench-side-by-side'): Promise<McpUnderTest> {
  const client = await connectSdkClient(url, headers, name);
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<PeerCall> => {
    const started = performance.now();
    const result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 })) as RawResult;
    const elapsed = performance.now() - started;
    const blocks = result.content ?? [];
    const text = blocks.map((block) => (block.type === 'text' ? (block.text ?? '') : `[${block.type}]`)).join(' ');
    const imageBlock = blocks.find((block) => block.type === 'image' && block.data);
    let image: PeerCall['image'];
    if (imageBlock?.data) {
      const bytes = Buffer.from(imageBlock.data, 'base64');
      image = { bytes: bytes.length, base64Chars: imageBlock.data.length, mimeType: imageBlock.mimeType ?? '?', ...imageSize(bytes), data: imageBlock.data };
    }
    // The peer answers a failed action with {"success": false} and no isError.
    const isError = result.isError === true || result.structuredContent?.success === false;
    return { ms: elapsed, timings: (result._meta?.['deskgate/timings'] as Timings | undefined) ?? {}, isError, text, image };
  };
  return sessionAround(client, call);
}

// ─── the side-by-side run ───────────────────────────────────────────────────────────────────

export type SideName = 'deskgate' | 'cua';

/**
 * Blank cells inside the bench's xterm (showContent: 110×42 cells of 9 pt at +0+0, the tail of
 * /etc/services), on both screens. Clicks always hit the first: xterm counts clicks at two
 * places within its multi-click time as a double click and highlights a word, which changes
 * the screen under the next click (deskgate then refuses it as stale). Moves alternate.
 */
export const XTERM_POINTS: [number, number][] = [
  [300, 200],
  [340, 290],
];

/** One action as each side names it. */
interface Action {
  key: string;
  label: string;
  deskgate: (i: number) => [string, Record<string, unknown>];
  cua: (i: number) => [string, Record<string, unknown>];
  n: number;
  warmup: number;
}

export interface SideResult {
  summary: Summary;
  samples: number[];
  errors: number;
  /** CPU ms per call by process group (server processes and the display's). */
  cpuMsPerCall: Record<string, number>;
  serverCpuMsPerCall: number;
  displayCpuMsPerCall: number;
  /** deskgate only: its layers of these calls (bench/e2e.ts breakdown, p50 and mean). */
  layers?: BreakdownStep[];
}

export interface ComparisonAction {
  key: string;
  label: string;
  n: number;
  deskgate: SideResult;
  cua: SideResult;
  /** Screenshots only: bytes per frame. */
  frames?: Record<SideName, { bytes: Summary; base64Chars: number; mimeType: string; width?: number; height?: number }>;
}

export interface Comparison {
  peer: string;
  version: string;
  display: { deskgate: string; cua: string };
  size: { width: number; height: number };
  startupMs: number;
  /** 1-minute load average when the side-by-side began (other work skews both sides). */
  loadAtStart: number;
  actions: ComparisonAction[];
  /** Where the last frame of each side was written. */
  frameDir?: string;
}

export interface Sides {
  deskgate: { client: McpUnderTest; server: PidGroups; display: PidGroups; displayName: string };
  cua: { client: McpUnderTest; server: PidGroups; display: PidGroups; displayName: string };
}

const sum = (values: Record<string, number>) => Object.values(values).reduce((total, value) => total + value, 0);

/**
 * Every action n times on each side, call for call interleaved (the side that goes first
 * alternates), after `warmup` unmeasured calls of the same action. CPU is metered per side over
 * the whole interleaved run; each side's processes only work for its own calls.
 */
async function runInterleaved(sides: Sides, action: Action, frameDir?: string): Promise<ComparisonAction> {
  const names: SideName[] = ['deskgate', 'cua'];
  for (let i = 0; i < action.warmup; i++) {
    for (const side of names) await sides[side].client.ok(...action[side](i));
  }
  const samples: Record<SideName, number[]> = { deskgate: [], cua: [] };
  const timings: Timings[] = [];
  const errors: Record<SideName, number> = { deskgate: 0, cua: 0 };
  const frameBytes: Record<SideName, number[]> = { deskgate: [], cua: [] };
  const lastImage: Partial<Record<SideName, NonNullable<PeerCall['image']>>> = {};
  const meters = Object.fromEntries(names.map((side) => [side, startGroupMeter({ ...sides[side].server, ...sides[side].display })])) as Record<SideName, ReturnType<typeof startGroupMeter>>;
  for (let i = 0; i < action.n; i++) {
    const order = i % 2 ? names : [...names].reverse();
    for (const side of order) {
      const result = await sides[side].client.call(...action[side](i));
      samples[side].push(result.ms);
      if (side === 'deskgate') timings.push(result.timings);
      if (result.isError) errors[side]++;
      if (result.image) {
        frameBytes[side].push(result.image.bytes);
        lastImage[side] = result.image;
      }
    }
  }
  const cpu = Object.fromEntries(names.map((side) => [side, meters[side].stop()])) as Record<SideName, Record<string, number>>;
  const sideResult = (side: SideName): SideResult => {
    const perCall = Object.fromEntries(Object.entries(cpu[side]).map(([group, used]) => [group, used / action.n]));
    const server = Object.fromEntries(Object.keys(sides[side].server).map((group) => [group, perCall[group]!]));
    const display = Object.fromEntries(Object.keys(sides[side].display).map((group) => [group, perCall[group]!]));
    const layers =
      side === 'deskgate' ? breakdown({ summary: summarize(samples.deskgate), calls: samples.deskgate.map((ms, i) => ({ ms, timings: timings[i]! })) }, action.key === 'screenshot' ? 'screenshot' : 'click') : undefined;
    return { summary: summarize(samples[side]), samples: samples[side].map((v) => round(v, 3)), errors: errors[side], cpuMsPerCall: perCall, serverCpuMsPerCall: sum(server), displayCpuMsPerCall: sum(display), layers };
  };
  const out: ComparisonAction = { key: action.key, label: action.label, n: action.n, deskgate: sideResult('deskgate'), cua: sideResult('cua') };
  if (lastImage.deskgate && lastImage.cua) {
    out.frames = Object.fromEntries(
      names.map((side) => {
        const image = lastImage[side]!;
        return [side, { bytes: summarize(frameBytes[side]), base64Chars: image.base64Chars, mimeType: image.mimeType, width: image.width, height: image.height }];
      }),
    ) as ComparisonAction['frames'];
    if (frameDir) {
      mkdirSync(frameDir, { recursive: true });
      for (const side of names) writeFileSync(join(frameDir, `${side}.${lastImage[side]!.mimeType.split('/')[1] ?? 'img'}`), Buffer.from(lastImage[side]!.data, 'base64'));
    }
  }
  return out;
}

export interface CompareOptions {
  size: { width: number; height: number };
  /** Iterations per action (both sides get the same). */
  count: (n: number) => number;
  warmupSeconds: number;
  /** Where the last frame of each side is written (for a look at what was encoded). */
  frameDir?: string;
  /** Only these actions (by key: ping, screenshot, left_click, mouse_move, type); all when absent. */
  only?: string[];
}

/**
 * The side-by-side run. `deskgate` must already hold access to the xterm on its desktop (the
 * bench session does); its screen then shows the same text as the peer's.
 */
export async function compareWithPeer(sides: Sides, peer: CuaPeer, options: CompareOptions): Promise<Comparison> {
  const { width, height } = options.size;
  const loadAtStart = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  // Inside the xterm (deskgate's gates refuse input to the bare desktop, which belongs to no
  // granted app): clicks on one blank cell, moves between two so every move moves the pointer.
  const at = (i: number) => XTERM_POINTS[i % 2]!;
  const xy = (i: number) => ({ x: at(i)[0], y: at(i)[1] });
  const click = XTERM_POINTS[0]!;
  const clickXy = { x: click[0], y: click[1] };

  progress(`side by side: ${options.warmupSeconds} s of mixed warm-up calls on both`);
  const until = performance.now() + options.warmupSeconds * 1000;
  while (performance.now() < until) {
    // Xvfb draws the pointer into the frame, so a click is only judged fresh (deskgate's
    // staleness gate) with the pointer where the last screenshot saw it: move there and back.
    for (let i = 0; i < 4; i++) {
      await sides.deskgate.client.ok('left_click', { coordinate: click });
      await sides.cua.client.ok('computer_click', clickXy);
      for (const j of [1, 0]) {
        await sides.deskgate.client.ok('mouse_move', { coordinate: at(j) });
        await sides.cua.client.ok('computer_move', xy(j));
      }
    }
    await sides.deskgate.client.ping();
    await sides.cua.client.ping();
    await sides.deskgate.client.ok('screenshot');
    await sides.cua.client.ok('computer_screenshot');
  }

  const actions: Action[] = [
    { key: 'screenshot', label: `screenshot ${width}×${height}`, deskgate: () => ['screenshot', {}], cua: () => ['computer_screenshot', {}], n: options.count(200), warmup: 5 },
    { key: 'left_click', label: 'left_click', deskgate: () => ['left_click', { coordinate: click }], cua: () => ['computer_click', { ...clickXy, button: 'left' }], n: options.count(400), warmup: 10 },
    { key: 'mouse_move', label: 'mouse_move', deskgate: (i) => ['mouse_move', { coordinate: at(i) }], cua: (i) => ['computer_move', xy(i)], n: options.count(400), warmup: 10 },
    { key: 'type', label: 'type "hello world"', deskgate: () => ['type', { text: 'hello world' }], cua: () => ['computer_type', { text: 'hello world' }], n: options.count(200), warmup: 5 },
  ];
  const results: ComparisonAction[] = [];
  const wanted = (key: string) => !options.only || options.only.includes(key);
  // MCP ping: the protocol floor of each server, interleaved the same way.
  if (wanted('ping')) {
    const n = options.count(400);
    const samples: Record<SideName, number[]> = { deskgate: [], cua: [] };
    const meters = { deskgate: startGroupMeter(sides.deskgate.server), cua: startGroupMeter(sides.cua.server) };
    for (let i = 0; i < n; i++) {
      for (const side of (i % 2 ? ['deskgate', 'cua'] : ['cua', 'deskgate']) as SideName[]) samples[side].push(await sides[side].client.ping());
    }
    const ping = (side: SideName): SideResult => {
      const used = meters[side].stop();
      const perCall = Object.fromEntries(Object.entries(used).map(([group, value]) => [group, value / n]));
      return { summary: summarize(samples[side]), samples: samples[side].map((v) => round(v, 3)), errors: 0, cpuMsPerCall: perCall, serverCpuMsPerCall: sum(perCall), displayCpuMsPerCall: 0 };
    };
    results.push({ key: 'ping', label: 'MCP ping (no tool)', n, deskgate: ping('deskgate'), cua: ping('cua') });
  }
  for (const action of actions.filter((a) => wanted(a.key))) {
    // Keys go to the xterm on both screens (clicked last; its shell never reads, so they only echo).
    progress(`side by side: ${action.label} (${action.n}× each, interleaved)`);
    const result = await runInterleaved(sides, action, action.key === 'screenshot' ? options.frameDir : undefined);
    progress(`  deskgate p50 ${ms(result.deskgate.summary.p50)} ms · ${peer.version} p50 ${ms(result.cua.summary.p50)} ms`);
    results.push(result);
  }
  return {
    peer: CUA_PACKAGE,
    version: peer.version,
    display: { deskgate: sides.deskgate.displayName, cua: sides.cua.displayName },
    size: options.size,
    startupMs: peer.startupMs,
    loadAtStart,
    actions: results,
    frameDir: options.frameDir,
  };
}

/** The peer's CPU groups: the server's process tree, and its display (Xvfb, openbox, panel). */
export function peerGroups(peer: CuaPeer): { server: PidGroups; display: PidGroups } {
  return { server: { [CUA_PACKAGE]: processTree(peer.serverPid) }, display: { Xvfb: [peer.xvfbPid], openbox: [peer.wmPid], tint2: [peer.panelPid].filter(Boolean) } };
}

// ─── table rows ─────────────────────────────────────────────────────────────────────────────

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** deskgate | peer | ratio rows for the bench table. */
export function comparisonRows(comparison: Comparison | undefined, failure: string | undefined, section: string): Row[] {
  if (!comparison) return [{ section, name: `${CUA_PACKAGE} ${CUA_VERSION}`, value: 'not run', compare: (failure ?? 'skipped').slice(0, 200) }];
  const rows: Row[] = [];
  const peerName = `cua ${comparison.version}`;
  for (const action of comparison.actions) {
    const d = action.deskgate;
    const c = action.cua;
    const faster = (a: number, b: number) => (a <= b ? `deskgate ${ratio(b / a)} faster` : `deskgate ${ratio(a / b)} slower`);
    rows.push({ section, name: `${action.label}: deskgate`, ...fromSummary(d.summary), compare: d.errors ? `${d.errors} errors` : undefined });
    rows.push({
      section,
      name: `${action.label}: ${peerName}`,
      ...fromSummary(c.summary),
      compare: `p50 ${faster(d.summary.p50, c.summary.p50)}; p99 ${faster(d.summary.p99, c.summary.p99)}${c.errors ? `; ${c.errors} errors` : ''}`,
    });
    const cpuRatio = d.serverCpuMsPerCall / c.serverCpuMsPerCall;
    const parts = Object.entries(d.cpuMsPerCall)
      .filter(([, value]) => value >= 0.005)
      .sort((a, b) => b[1] - a[1])
      .map(([group, value]) => `${group} ${value.toFixed(2)}`);
    rows.push({
      section,
      name: `  server CPU ms per ${action.key}: deskgate | cua`,
      value: `${d.serverCpuMsPerCall.toFixed(2)} | ${c.serverCpuMsPerCall.toFixed(2)}`,
      compare: `deskgate ${ratio(cpuRatio)} the peer's${action.key === 'ping' ? '' : `; desktop (Xvfb, openbox, tint2) ${d.displayCpuMsPerCall.toFixed(2)} | ${c.displayCpuMsPerCall.toFixed(2)}`} · deskgate: ${parts.join(' · ')}`,
    });
    if (d.layers) {
      const short: Record<string, string> = { 'HTTP + MCP layers': 'HTTP+MCP', 'gateway → worker dispatch': 'dispatch', 'worker session state': 'session', 'tool outside the helper': 'tool', 'input helper': 'input runtime', 'tool outside the capture call': 'tool', 'capture helper I/O': 'helper I/O', '  JPEG encode': 'encode', '  MIT-SHM capture': 'capture' };
      const parts = d.layers.filter((layer) => short[layer.step]).map((layer) => `${short[layer.step]} ${ms(layer.p50)}`);
      rows.push({ section, name: `  deskgate layers per ${action.key} (p50 ms)`, compare: parts.join(' · ') });
    }
    if (action.frames) {
      const fd = action.frames.deskgate;
      const fc = action.frames.cua;
      rows.push({
        section,
        name: '  bytes per frame: deskgate | cua',
        value: `${kb(fd.bytes.p50)} | ${kb(fc.bytes.p50)}`,
        compare: `deskgate ${ratio(fd.bytes.p50 / fc.bytes.p50)} the peer's; ${fd.mimeType} ${fd.width}×${fd.height} vs ${fc.mimeType} ${fc.width}×${fc.height}`,
      });
    }
  }
  rows.push({ section, name: `  peer start-up (python -m computer_server to /status)`, value: `${ms(comparison.startupMs)} ms` });
  return rows;
}

// ─── the whole step, as bench/main.ts runs it ───────────────────────────────────────────────

export interface SideBySideOptions extends CompareOptions {
  stack: Pick<Stack, 'mcpUrl' | 'apiKey' | 'tenant' | 'redisUrl' | 'gateway' | 'worker'>;
  /** The deskgate session to drive (its desktop already shows the bench's xterm). */
  session: string;
  /** The session's xterm shows the bench's text unchanged (nothing typed into it yet). */
  xtermUntouched?: boolean;
  /** Called with the peer's stop function as soon as it runs (for the bench's Ctrl-C cleanup). */
  onStarted?: (stop: () => void) => void;
}

/** The tint2 panel of a display (found by its DISPLAY, as bench/desktop.ts finds openbox). */
function panelOf(display: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'tint2') continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`DISPLAY=${display}`)) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** Screenshots with `tool` until the screen is still (desktop.ts untilStill). */
const screenStill = (client: McpUnderTest, tool: string) => untilStill(async () => (await client.ok(tool)).image?.data, tool);

/** Starts the peer, drives both side by side, stops the peer. */
export async function runSideBySide(options: SideBySideOptions): Promise<Comparison> {
  const { stack, session } = options;
  progress(`side by side: starting ${CUA_PACKAGE} on its own Xvfb ${options.size.width}×${options.size.height}`);
  const peer = await startCuaPeer(options.size);
  options.onStarted?.(peer.stop);
  const opened: McpUnderTest[] = [];
  let closeXterm = () => undefined as unknown;
  try {
    progress(`  ${CUA_PACKAGE} ${peer.version} up at ${peer.url} on ${peer.display} after ${ms(peer.startupMs)} ms`);
    const facts = await sessionDesktop(stack.redisUrl, stack.tenant, session);
    // Unless the session's xterm is known untouched, a fresh one on top of it (earlier steps may
    // have typed into it), so both screens show the same pixels; closed at the end.
    if (!options.xtermUntouched) {
      const fresh = await showContent(facts.display);
      closeXterm = () => fresh.kill('SIGKILL');
    }
    const deskgate = await connectMcp(`${stack.mcpUrl}/${session}`, { Authorization: `Bearer ${stack.apiKey}` });
    opened.push(deskgate);
    // Grant the xterm so deskgate's screenshot shows it rather than blacking it out.
    await deskgate.ok('request_access', { apps: ['xterm'], reason: 'benchmark: side by side with a peer' });
    const cua = await connectMcp(peer.url);
    opened.push(cua);
    // The xterms print ~600 lines first: wait until both screens are still.
    await screenStill(deskgate, 'screenshot');
    await screenStill(cua, 'computer_screenshot');
    const all = stackPidGroups(stack, [facts]);
    const { Xvfb, openbox, ...server } = all;
    const peerPids = peerGroups(peer);
    return await compareWithPeer(
      {
        deskgate: { client: deskgate, server, display: { Xvfb: Xvfb ?? [], openbox: openbox ?? [], tint2: panelOf(facts.display) }, displayName: facts.display },
        cua: { client: cua, ...peerPids, displayName: peer.display },
      },
      peer,
      options,
    );
  } finally {
    for (const client of opened) await client.close().catch(() => undefined);
    closeXterm();
    peer.stop();
  }
}

// ─── on a stack of its own: what `npm run bench` and the standalone run call ────────────────

export interface OwnStackOptions extends CompareOptions {
  /** Seconds of mixed calls on deskgate alone first (a fresh gateway and worker are slower). */
  deskgateWarmupSeconds: number;
  /** Called with each thing to stop on Ctrl-C (the stack, the xterm, the peer). */
  onCleanup?: (stop: () => unknown) => void;
}

/**
 * A deskgate stack of its own (1 session, no spares, the bench's policy), so the side-by-side
 * figures do not depend on the other bench steps or share the worker with their desktops; the
 * session's xterm, a warm-up, then runSideBySide.
 */
export async function sideBySideOnOwnStack(options: OwnStackOptions): Promise<Comparison> {
  const { size } = options;
  progress(`side by side: starting a deskgate stack of its own (${size.width}×${size.height})`);
  const stack = await startStack({
    env: {
      REDIS_URL: '',
      DESKGATE_PORT: '0',
      DESKGATE_DESKTOP_SIZE: `${size.width}x${size.height}`,
      DESKGATE_LOG_LEVEL: 'info',
      DESKGATE_SESSION_IDLE_SECONDS: '3600',
      DESKGATE_WARM_DESKTOPS: '0',
      // One tenant at full speed: no per-tenant call rate (as bench/main.ts).
      DESKGATE_TENANT_CALLS_PER_SECOND: '0',
      DESKGATE_POLICY_FILE: BENCH_POLICY_FILE,
    },
    tenant: 'bench',
    logDir: mkdtempSync(join(tmpdir(), 'deskgate-bench-side-by-side-')),
  });
  let stopping: Promise<void> | undefined;
  const stopStack = () => (stopping ??= stack.stop());
  options.onCleanup?.(stopStack);
  let xterm: ChildProcess | undefined;
  try {
    const session = 'side-by-side';
    const client = await connectMcp(`${stack.mcpUrl}/${session}`, { Authorization: `Bearer ${stack.apiKey}` });
    await client.ok('request_access', { apps: ['xterm'], reason: 'benchmark' });
    await client.ok('screenshot');
    xterm = await showContent((await sessionDesktop(stack.redisUrl, stack.tenant, session)).display);
    const shown = xterm;
    options.onCleanup?.(() => shown.kill('SIGKILL'));
    await screenStill(client, 'screenshot');
    progress(`side by side: deskgate warm-up, ${options.deskgateWarmupSeconds} s of mixed calls`);
    const until = performance.now() + options.deskgateWarmupSeconds * 1000;
    let calls = 0;
    while (performance.now() < until) {
      for (let i = 0; i < 6; i++) await client.ok('left_click', { coordinate: XTERM_POINTS[0] });
      await client.ping();
      await client.ok('screenshot');
      calls += 8;
    }
    progress(`  ${calls} calls`);
    await client.close();
    // The warm-up only clicked a blank cell: the xterm is as it started, so the panels match too.
    return await runSideBySide({ ...options, stack, session, xtermUntouched: true, onStarted: (stop) => options.onCleanup?.(stop) });
  } finally {
    xterm?.kill('SIGKILL');
    await stopStack();
  }
}

// ─── standalone: `node --import tsx bench/peer-cua.ts` ──────────────────────────────────────
// The side-by-side only (no other bench figures); BENCH_SCALE as in the bench, BENCH_ACTIONS
// (e.g. "left_click,mouse_move") for some actions only. Prints its rows and writes
// bench-results/side-by-side.json.

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const cleanups: (() => unknown)[] = [];
  process.on('SIGINT', () => {
    void Promise.allSettled(cleanups.reverse().map(async (stop) => stop())).finally(() => process.exit(130));
  });
  const comparison = await sideBySideOnOwnStack({
    size: { width: 1280, height: 800 },
    count: (n) => Math.max(5, Math.round(n * scale)),
    deskgateWarmupSeconds: Math.max(3, 15 * scale),
    warmupSeconds: Math.max(3, 8 * scale),
    frameDir: join(repoRoot, 'bench-results/frames'),
    ...(process.env.BENCH_ACTIONS ? { only: process.env.BENCH_ACTIONS.split(',').map((key) => key.trim()) } : {}),
    onCleanup: (stop) => cleanups.push(stop),
  });
  const rows = comparisonRows(comparison, undefined, `deskgate vs ${CUA_PACKAGE} ${comparison.version}`);
  const report = { title: 'deskgate side by side', machine: { date: new Date().toISOString(), cpus: `${cpus().length}× ${cpus()[0]?.model.trim() ?? '?'}`, 'load avg at start': comparison.loadAtStart, scale }, rows, extra: { sideBySide: comparison } };
  process.stdout.write(`${renderTable(report)}\n`);
  mkdirSync(join(repoRoot, 'bench-results'), { recursive: true });
  writeFileSync(join(repoRoot, 'bench-results/side-by-side.json'), JSON.stringify(report, null, 2));
  process.exit(0);
}
