/**
 * The web console's live view, measured: frames per second in the page while a window moves
 * across a 1280×800 desktop, screen change → frame shown in the page (a window flipping its
 * colour, each flip stamped by the app, each frame's pixels read in the page), and the CPU the
 * live path used meanwhile (gateway, worker, its capture helpers; Xvfb drawing the moving
 * window apart). Prints one JSON object. Run alone: node --import tsx bench/console-live.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startStack } from '../scripts/lib/stack.ts';
import { launchChromium, logLivePixel, monotonicToWall, openConsole, originOf, shownPixels, signIn, type ShownPixel } from '../tests/support/console.ts';
import { desktopOf, onDisplay, type DesktopFacts } from '../tests/support/desktops.ts';
import { connect } from '../tests/support/mcp-clients.ts';
import { cpuMs, processTree } from './cpu.ts';
import { desktopPids } from './desktop.ts';

const MEASURE_MS = Number(process.env.BENCH_LIVE_SECONDS ?? 10) * 1000;
const dir = mkdtempSync(join(tmpdir(), 'deskgate-live-bench-'));

// A window that moves 8 px every 16 ms (what a dragged window or a scrolling page does).
const MOVER = `import tkinter as tk
root = tk.Tk(); root.title("mover"); root.configure(bg="#cc3366"); root.geometry("300x200+0+100")
x = [0]
def step():
    x[0] = (x[0] + 8) % 900; root.geometry(f"300x200+{x[0]}+100"); root.after(16, step)
root.after(300, step); root.mainloop()`;
// A window that flips between two colours every 300 ms and prints each flip's CLOCK_MONOTONIC time.
const FLIPPER = `import tkinter as tk, time, sys
root = tk.Tk(); root.title("flipper"); root.geometry("300x300+900+400")
colours = ["#0000ff", "#00ff00"]; n = [0]
def flip():
    n[0] += 1; root.configure(bg=colours[n[0] % 2]); root.update_idletasks()
    print(n[0] % 2, time.monotonic(), flush=True); root.after(300, flip)
root.after(1000, flip); root.mainloop()`;

function run(desktop: DesktopFacts, name: string, source: string, onLine?: (line: string) => void) {
  const file = join(dir, `${name}.py`);
  writeFileSync(file, source);
  const { file: command, args, env } = onDisplay(desktop, ['/usr/bin/python3', file]);
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop()!;
    for (const line of lines) onLine?.(line);
  });
  return child;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10 : null;
};

export async function consoleLiveBench() {
  const stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_DESKTOP_SIZE: '1280x800' }, logDir: dir });
  const redis = new Redis(stack.redisUrl);
  const browser = await launchChromium();
  try {
    const agent = await connect('2026-07-28', `${stack.mcpUrl}/live-bench`, stack.apiKey);
    await agent.call('screenshot');
    const desktop = await desktopOf(redis, stack.tenant, 'live-bench');
    const origin = originOf(stack.mcpUrl);
    const { page } = await openConsole(browser, origin);
    await signIn(page, stack.operatorKey);
    await page.goto(`${origin}/console#/live/live-bench`);
    await page.waitForFunction(() => (window as unknown as { deskgateLive?: { frames: number } }).deskgateLive?.frames! > 0);
    const live = () => page.evaluate(() => (window as unknown as { deskgateLive: { frames: number; delays: number[] } }).deskgateLive);

    // 1. A moving window: frames per second, capture → shown delay, CPU.
    const mover = run(desktop, 'mover', MOVER);
    await sleep(2000);
    const services = () => [...processTree(stack.gateway.process.pid!), ...processTree(stack.worker.process.pid!)];
    const xvfb = desktopPids(desktop).xvfb;
    const cpu = () => {
      const pids = services().filter((pid) => pid !== xvfb);
      return { services: pids.reduce((sum, pid) => sum + cpuMs(pid), 0), xvfb: xvfb ? cpuMs(xvfb) : 0 };
    };
    const before = { live: await live(), cpu: cpu(), at: performance.now() };
    await sleep(MEASURE_MS);
    const after = { live: await live(), cpu: cpu(), at: performance.now() };
    mover.kill();
    const seconds = (after.at - before.at) / 1000;
    const delays = after.live.delays.slice(-(after.live.frames - before.live.frames));

    // 2. Screen change → frame shown, from the app's own stamp of each flip to the page.
    await logLivePixel(page, 1050, 550);
    const flips: { colour: number; at: number }[] = [];
    const wallOffset = monotonicToWall();
    const flipper = run(desktop, 'flipper', FLIPPER, (line) => {
      const [colour, t] = line.split(' ');
      flips.push({ colour: Number(colour), at: Number(t) * 1000 + wallOffset });
    });
    await sleep(1000 + 30 * 300);
    flipper.kill();
    const colourOf = ({ rgb: [r, g, b] }: ShownPixel) => (b > 200 && g < 60 ? 0 : g > 200 && b < 60 ? 1 : -1);
    const shown = (await shownPixels(page)).map((pixel) => ({ colour: colourOf(pixel), shownAt: pixel.shownAt }));
    const latencies = flips.flatMap((flip) => {
      const seen = shown.find((s) => s.colour === flip.colour && s.shownAt >= flip.at - 5);
      return seen ? [seen.shownAt - flip.at] : [];
    });
    await agent.close();
    return {
      display: '1280x800',
      movingWindow: {
        seconds: Math.round(seconds * 10) / 10,
        fps: Math.round(((after.live.frames - before.live.frames) / seconds) * 10) / 10,
        captureToShownMs: { p50: percentile(delays, 50), p95: percentile(delays, 95) },
        cpuCores: {
          liveServices: Math.round(((after.cpu.services - before.cpu.services) / (seconds * 1000)) * 100) / 100,
          xvfb: Math.round(((after.cpu.xvfb - before.cpu.xvfb) / (seconds * 1000)) * 100) / 100,
        },
      },
      screenChangeToShownMs: { flips: flips.length, seen: latencies.length, p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: percentile(latencies, 100) },
    };
  } finally {
    await browser.close();
    redis.disconnect();
    await stack.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await consoleLiveBench(), null, 2));
}
