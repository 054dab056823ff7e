/**
 * Peer paths, each spawned per call against the same display deskgate drives:
 * `xdotool click 1` (its default 100 ms delay between press and release) and with
 * `--delay 0`; the Anthropic demo's screenshot (scrot to a file, then ImageMagick
 * `convert -resize` to the scaled size); and a Python process per click (the seed's path).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../scripts/lib/stack.ts';
import { sample, summarize, type Summary } from './stats.ts';

const run = promisify(execFile);

/**
 * The real ImageMagick. On some hosts `convert` on PATH is a wrapper script in front of it;
 * peers are measured with ImageMagick itself.
 */
export function imagemagickConvert(): string {
  for (const candidate of ['/usr/bin/convert-im6.q16', '/usr/bin/convert']) if (existsSync(candidate)) return candidate;
  return 'convert';
}

const envFor = (display: string) => ({ ...process.env, DISPLAY: display });

export async function xdotoolClick(display: string, n: number, delayZero: boolean): Promise<Summary> {
  const args = delayZero ? ['click', '--delay', '0', '1'] : ['click', '1'];
  return summarize(await sample(n, 3, () => run('xdotool', args, { env: envFor(display) })));
}

export async function pythonSpawnClick(display: string, n: number): Promise<Summary> {
  return summarize(await sample(n, 3, () => run('/usr/bin/python3', [`${repoRoot}bench/spawn_click.py`], { env: envFor(display) })));
}

export async function scrotConvert(display: string, target: { width: number; height: number }, n: number): Promise<Summary> {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-bench-scrot-'));
  const convert = imagemagickConvert();
  try {
    return summarize(
      await sample(n, 2, async (i) => {
        const path = join(dir, `shot-${i}.png`);
        await run('scrot', ['-o', '-p', path], { env: envFor(display) });
        await run(convert, [path, '-resize', `${target.width}x${target.height}!`, path], { env: envFor(display) });
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
