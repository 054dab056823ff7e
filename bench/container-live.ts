/**
 * A container desktop's live view against the agent's screenshots, measured below the MCP
 * layer: the agent's capture helper (capture.sock) answers `capture` calls on a screen that
 * keeps changing, first with nobody watching, then while a live loop like the worker's
 * (services/worker/src/sessions/live-frames.ts) streams `frame`s from live.sock. Both phases
 * draw the same; the difference is what the watcher costs the agent. Also: how long a live
 * helper takes to answer its first call, its memory, and that it is gone after the hang-up.
 * Needs the Docker engine and the desktop image (scripts/install-containers.sh). Prints one
 * JSON object. Run alone: node --import tsx bench/container-live.ts
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { ContainerDesktopProvider } from '../services/worker/src/desktops/container-provider.ts';
import { CaptureClient } from '../services/worker/src/helpers/capture-client.ts';
import { LIVE_DEFAULTS, liveTransport } from '../services/worker/src/sessions/live-frames.ts';
import { summarize } from './stats.ts';

const CAPTURES = Number(process.env.BENCH_CAPTURES ?? 40);
const GAP_MS = 50;
const log = pino({ level: 'warn' });
const runDir = mkdtempSync(join(tmpdir(), 'deskgate-live-bench-'));
const provider = new ContainerDesktopProvider(
  { workerId: `bench-live-${process.pid}`, image: process.env.DESKGATE_DESKTOP_IMAGE ?? 'deskgate/linux-desktop:dev', runDir, memoryBytes: 2 * 1024 ** 3, cpus: 2, maxProcesses: 512, panel: true },
  log,
);

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim();
const round = (n: number) => Math.round(n * 10) / 10;

/** The agent's captures, one every GAP_MS: round trip as the worker sees it. */
async function captures(agent: CaptureClient): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < CAPTURES; i++) {
    const began = performance.now();
    await agent.call({ op: 'capture', format: 'jpeg', quality: 75 });
    took.push(performance.now() - began);
    await sleep(GAP_MS);
  }
  return took;
}

await provider.prepare();
const handle = await provider.start({ width: 1280, height: 800 });
const container = String(handle.where().container);
const rss = (args: string) =>
  docker('exec', container, 'sh', '-c', `for p in $(pgrep -f '^/opt/deskgate/bin/deskgate-capture ${args}$'); do grep VmRSS /proc/$p/status; done`);
// The whole root repainted in turn by two colours, as fast as xsetroot goes.
const painter = spawn('docker', ['exec', container, 'sh', '-c', 'while :; do xsetroot -solid "#203040"; xsetroot -solid "#506070"; done'], { stdio: 'ignore' });
const agent = new CaptureClient(handle.helpers.capture, log);
agent.start();
try {
  await agent.call({ op: 'ping' });
  await sleep(500);
  const unwatched = await captures(agent);

  const connectedAt = performance.now();
  const live = new CaptureClient(liveTransport(handle.helpers.capture)!, log);
  live.start();
  await live.call({ op: 'ping' });
  const firstAnswerMs = performance.now() - connectedAt;
  let streaming = true;
  let frames = 0;
  const loop = (async () => {
    let after = 0;
    while (streaming) {
      const began = performance.now();
      const frame = await live.nextFrame(after, LIVE_DEFAULTS.waitMs, LIVE_DEFAULTS.quality);
      after = frame.damageEvents;
      if (frame.changed) frames++;
      const gap = LIVE_DEFAULTS.minGapMs - (performance.now() - began);
      if (gap > 0) await sleep(gap);
    }
  })();
  await sleep(500);
  const framesBefore = frames;
  const streamStart = performance.now();
  const watched = await captures(agent);
  const fps = ((frames - framesBefore) * 1000) / (performance.now() - streamStart);
  const liveRss = rss('--display :0');
  streaming = false;
  await loop;
  await live.stop();
  await sleep(500);
  const left = rss('--display :0');

  const figures = (samples: number[]) => Object.fromEntries(Object.entries(summarize(samples)).map(([key, value]) => [key, round(value)]));
  console.log(
    JSON.stringify({
      agentCaptureMs: { unwatched: figures(unwatched), watched: figures(watched) },
      liveFps: round(fps),
      liveHelper: { firstAnswerMs: round(firstAnswerMs), rssWhileStreaming: liveRss.replace(/\s+/g, ' '), leftAfterHangUp: left === '' ? 'none' : left },
      load: execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).trim(),
    }),
  );
} finally {
  painter.kill();
  await agent.stop();
  await handle.stop();
  rmSync(runDir, { recursive: true, force: true });
}
