/**
 * The floors each end-to-end figure is measured against, in the same run and on the same
 * gateway / display: an MCP `ping` (protocol + HTTP + auth, no tool), a bare HTTP round trip
 * (`GET /healthz`), the capture helper's in-process MIT-SHM capture + JPEG encode, and one
 * in-process XTest click.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { repoRoot } from '../scripts/lib/stack.ts';
import type { DesktopFacts } from '../tests/support/desktops.ts';
import type { BenchClient } from './client.ts';
import { sample, summarize, type Summary } from './stats.ts';

const run = promisify(execFile);

export async function mcpPing(client: BenchClient, n: number): Promise<Summary> {
  return summarize(await sample(n, 30, () => client.ping()));
}

/** `GET /healthz` is the bare HTTP floor; `GET /readyz` adds one Redis PING to it. */
export async function httpRoundTrip(mcpUrl: string, n: number, path: '/healthz' | '/readyz' = '/healthz'): Promise<Summary> {
  const url = new URL(path, mcpUrl).toString();
  return summarize(
    await sample(n, 30, async () => {
      const response = await fetch(url);
      await response.arrayBuffer();
    }),
  );
}

export interface CaptureFloor {
  width: number;
  height: number;
  /** Full-screen MIT-SHM capture + BGRX→RGB + JPEG q75, in process (the helper's own bench). */
  shmJpegTotal: { p50: number; p90: number };
  stages: Record<string, { p50: number; p90: number } | null>;
  raw: Record<string, unknown>;
}

/** The real and group ids a process runs as (from /proc). */
function idsOf(pid: number): { uid: number; gid: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return { uid: field('Uid'), gid: field('Gid') };
}

/**
 * The capture helper's own bench on a session's desktop, run as that desktop's capture helper
 * runs: as its user (a desktop's Xvfb refuses MIT-SHM segments of another user — root's
 * included — with BadAccess) and with its X cookie.
 */
export async function captureFloor(desktop: Pick<DesktopFacts, 'display' | 'xauthority' | 'capturePid'>, iterations: number): Promise<CaptureFloor> {
  const bin = `${repoRoot}helpers/linux-capture/target/release/deskgate-capture`;
  const args = ['bench', '--display', desktop.display, '--iterations', String(iterations)];
  const env = { ...process.env, ...(desktop.xauthority ? { XAUTHORITY: desktop.xauthority } : {}) };
  const asHelper = desktop.capturePid > 0 ? idsOf(desktop.capturePid) : undefined;
  const [command, ...argv] = asHelper && asHelper.uid !== process.getuid?.() ? ['setpriv', `--reuid=${asHelper.uid}`, `--regid=${asHelper.gid}`, '--clear-groups', bin, ...args] : [bin, ...args];
  const { stdout } = await run(command!, argv, { env, maxBuffer: 1 << 20 });
  const raw = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  const stages: CaptureFloor['stages'] = {};
  for (const [key, value] of Object.entries(raw)) if (key.endsWith('_ms')) stages[key] = value as { p50: number; p90: number } | null;
  const total = stages.shm_jpeg_total_ms;
  if (!total) throw new Error(`capture bench reported no MIT-SHM total: ${stdout}`);
  return { width: raw.width as number, height: raw.height as number, shmJpegTotal: total, stages, raw };
}

export async function xtestClickFloor(display: string, n: number): Promise<Summary> {
  const { stdout } = await run('/usr/bin/python3', [`${repoRoot}bench/xtest_floor.py`, display, String(n)]);
  return summarize((JSON.parse(stdout) as { samples_ms: number[] }).samples_ms);
}
