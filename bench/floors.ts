/**
 * The floors each end-to-end figure is measured against, in the same run and on the same
 * gateway / display: an MCP `ping` (protocol + HTTP + auth, no tool), a bare HTTP round trip
 * (`GET /healthz`), the capture helper's in-process MIT-SHM capture + JPEG encode, and one
 * in-process XTest click.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot } from '../scripts/lib/stack.ts';
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

export async function captureFloor(display: string, iterations: number): Promise<CaptureFloor> {
  const bin = `${repoRoot}helpers/linux-capture/target/release/deskgate-capture`;
  const { stdout } = await run(bin, ['bench', '--display', display, '--iterations', String(iterations)], { maxBuffer: 1 << 20 });
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
