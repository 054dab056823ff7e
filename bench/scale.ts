/**
 * Scale on one worker: N sessions (each its own desktop and its own MCP client) clicking in a
 * loop at once; the time to a ready desktop, cold and with a warm spare; memory per idle
 * desktop.
 */
import { connectBench, type BenchClient } from './client.ts';
import type { CpuMeter } from './cpu.ts';
import type { ChildProcess } from 'node:child_process';
import { desktopMemory, sessionDesktop, showContent, type DesktopMemory } from './desktop.ts';
import { progress, sleep, summarize, type Summary } from './stats.ts';

export interface ScaleLevel {
  sessions: number;
  seconds: number;
  actions: number;
  actionsPerSecond: number;
  latency: Summary;
  errors: number;
  /** CPU milliseconds per action, by component (when a meter was given). */
  cpuMsPerAction?: Record<string, number>;
}

export interface StackRef {
  mcpUrl: string;
  apiKey: string;
  tenant: string;
  redisUrl: string;
}

export interface OpenedSessions {
  clients: BenchClient[];
  /** Closes the clients and the windows shown on their desktops. */
  close(): Promise<void>;
}

/**
 * Opens `count` sessions (spread over `gateways`, round robin), takes the screenshot each needs
 * before it may click, and shows a window of text on each desktop: clicks must land on a
 * granted app's window (the desktop background is never an input target).
 */
export async function openSessions(stack: StackRef, prefix: string, count: number, point: [number, number], gateways: readonly string[] = [stack.mcpUrl]): Promise<OpenedSessions> {
  const clients: BenchClient[] = [];
  const windows: ChildProcess[] = [];
  const close = async () => {
    for (const window of windows) window.kill('SIGKILL');
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  };
  try {
    for (let i = 0; i < count; i++) {
      const client = await connectBench(`${gateways[i % gateways.length]}/${prefix}-${i}`, stack.apiKey);
      clients.push(client);
      // Connecting asked for access, which gave the session its desktop; the screenshot comes after the window shows.
      windows.push(await showContent((await sessionDesktop(stack.redisUrl, stack.tenant, `${prefix}-${i}`)).display));
      await untilClickable(client, point);
      progress(`  session ${i + 1}/${count} has a desktop`);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { clients, close };
}

/**
 * Screenshot, then a click at `point`, until the click is taken: the window just shown may
 * still be drawing its text, and a click on pixels that changed since the screenshot is refused.
 */
async function untilClickable(client: BenchClient, point: [number, number], tries = 30): Promise<void> {
  let last = '';
  for (let i = 0; i < tries; i++) {
    await client.ok('screenshot');
    const click = await client.call('left_click', { coordinate: point });
    if (!click.isError) return;
    last = click.text;
    await sleep(300);
  }
  throw new Error(`a click at ${point.join(',')} was refused ${tries} times: ${last.slice(0, 200)}`);
}

/** Every client clicks in a loop for `seconds`; one point per session, bottom-right, off any window. */
export async function clickLoad(clients: BenchClient[], seconds: number, point: [number, number], meter?: () => CpuMeter): Promise<ScaleLevel> {
  // Short warm-up so each session's first-call costs are out of the figure.
  await Promise.all(clients.map(async (client) => { for (let i = 0; i < 5; i++) await client.ok('left_click', { coordinate: point }); }));
  const latencies: number[] = [];
  let errors = 0;
  const cpu = meter?.();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        const result = await client.call('left_click', { coordinate: point });
        if (result.isError) errors++;
        latencies.push(result.ms);
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const used = cpu?.stop();
  const cpuMsPerAction = used ? Object.fromEntries(Object.entries(used).map(([name, ms]) => [name, ms / latencies.length])) : undefined;
  return { sessions: clients.length, seconds: wall, actions: latencies.length, actionsPerSecond: latencies.length / wall, latency: summarize(latencies), errors, cpuMsPerAction };
}

export interface ReadyTimes {
  samples: number[];
  summary: Summary;
  memory: DesktopMemory[];
}

/**
 * Time from the first tools/call of a brand-new session to its answer — allocation through
 * the lifecycle queue, (cold) starting Xvfb + openbox + both helpers, then one screenshot.
 * `pauseMs` between trials lets a worker with warm spares start the next spare.
 */
export async function timeToReady(stack: StackRef, prefix: string, trials: number, pauseMs: number): Promise<ReadyTimes> {
  const samples: number[] = [];
  const memory: DesktopMemory[] = [];
  for (let i = 0; i < trials; i++) {
    await sleep(pauseMs);
    const session = `${prefix}-${i}`;
    // From the new session's first call (connect + request_access, which allocates the desktop) to its first screenshot.
    const started = performance.now();
    const client = await connectBench(`${stack.mcpUrl}/${session}`, stack.apiKey);
    await client.ok('screenshot');
    const ms = performance.now() - started;
    samples.push(ms);
    progress(`  ${prefix} trial ${i + 1}/${trials}: ${ms.toFixed(0)} ms`);
    await sleep(300);
    memory.push(desktopMemory(await sessionDesktop(stack.redisUrl, stack.tenant, session)));
    await client.close();
  }
  return { samples, summary: summarize(samples), memory };
}

/**
 * Open-loop load at an agent-like pace: each session sends one click every 1/rate seconds
 * (whether or not the last one took long), so the figure shows latency under a load below
 * capacity rather than the queueing a closed loop builds by construction.
 */
export async function pacedLoad(clients: BenchClient[], perSessionRate: number, seconds: number, point: [number, number]): Promise<ScaleLevel> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const interval = 1000 / perSessionRate;
  await Promise.all(
    clients.map(async (client, index) => {
      const inflight: Promise<void>[] = [];
      // Spread the sessions' first clicks over one interval.
      let next = started + (interval * index) / clients.length;
      while (next < started + seconds * 1000) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        inflight.push(
          client.call('left_click', { coordinate: point }).then((result) => {
            if (result.isError) errors++;
            latencies.push(result.ms);
          }),
        );
        next += interval;
      }
      await Promise.all(inflight);
    }),
  );
  const wall = (performance.now() - started) / 1000;
  return { sessions: clients.length, seconds: wall, actions: latencies.length, actionsPerSecond: latencies.length / wall, latency: summarize(latencies), errors };
}
