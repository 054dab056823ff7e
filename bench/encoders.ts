/**
 * Bytes per frame and encode time of each screenshot format (jpeg q75, png, webp, auto), in
 * the capture helper's own process (`deskgate-capture encoders`), on two 1280×800 frames:
 * a text-heavy one (a session's desktop with two xterms of text side by side, as an agent
 * sees a terminal or an editor) and a photo-like one (the helper's deterministic synthetic
 * photo: smooth colour fields plus grain). Over a WAN the bytes are the latency, so both
 * figures matter; docs/capture-helper.md explains the `auto` rule they justify.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot } from '../scripts/lib/stack.ts';
import type { Row } from './report.ts';
import { ms } from './report.ts';
import { sleep } from './stats.ts';

const run = promisify(execFile);

export const FORMATS = ['jpeg', 'png', 'webp', 'auto'] as const;

export interface FormatFigure {
  bytes: number;
  ms: { p50: number; p90: number };
  /** auto only: the format it chose and why (palette, colours, time, bytes). */
  chose?: string;
  reason?: string;
}

export interface EncoderFigures {
  frame: 'text' | 'photo';
  width: number;
  height: number;
  iterations: number;
  formats: Record<(typeof FORMATS)[number], FormatFigure>;
  /** The colour-index pass alone (auto's first step). */
  indexMs: { p50: number; p90: number };
}

const helper = `${repoRoot}helpers/linux-capture/target/release/deskgate-capture`;

async function encoders(args: string[], env: NodeJS.ProcessEnv, frame: EncoderFigures['frame']): Promise<EncoderFigures> {
  const { stdout } = await run(helper, ['encoders', ...args], { env, maxBuffer: 1 << 20 });
  const raw = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  const formats = Object.fromEntries(FORMATS.map((f) => [f, raw[f] as FormatFigure])) as EncoderFigures['formats'];
  return { frame, width: raw.width as number, height: raw.height as number, iterations: raw.iterations as number, formats, indexMs: raw.index_ms as EncoderFigures['indexMs'] };
}

/** Two xterms of text covering the screen side by side (9 pt, like the rest of the bench). */
async function textScreen(display: string, env: NodeJS.ProcessEnv): Promise<ChildProcess[]> {
  const listing = (what: string) => ['-fa', 'Monospace', '-fs', '9', '-e', 'sh', '-c', `${what}; exec sleep 100000`];
  const terminals = [
    spawn('xterm', ['-geometry', '105x61+0+0', ...listing('ls -la /usr/bin /usr/lib | head -400')], { env: { ...env, DISPLAY: display }, stdio: 'ignore' }),
    spawn('xterm', ['-geometry', '105x61+640+0', ...listing('cat /etc/services')], { env: { ...env, DISPLAY: display }, stdio: 'ignore' }),
  ];
  for (const t of terminals) t.on('error', () => undefined);
  await sleep(1200);
  return terminals;
}

/** Both frames on `display` (a desktop of the bench's stack); `xauthority` is its cookie file, if any. */
export async function encoderFigures(display: string, xauthority: string | undefined, iterations: number): Promise<EncoderFigures[]> {
  const env = { ...process.env, ...(xauthority ? { XAUTHORITY: xauthority } : {}) };
  const terminals = await textScreen(display, env);
  try {
    const text = await encoders(['--display', display, '--iterations', String(iterations)], env, 'text');
    const photo = await encoders(['--photo', `${text.width}x${text.height}`, '--iterations', String(iterations)], env, 'photo');
    return [text, photo];
  } finally {
    for (const t of terminals) t.kill('SIGKILL');
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

export function encoderRows(figures: EncoderFigures[] | undefined, failure: string | undefined): Row[] {
  const section = 'Screenshot encoders, in the capture helper (1280×800; bytes are the latency over a WAN)';
  if (!figures) return [{ section, name: 'encoders', value: 'failed', compare: failure }];
  const rows: Row[] = [];
  for (const f of figures) {
    const jpeg = f.formats.jpeg;
    const what = f.frame === 'text' ? 'text-heavy frame (two xterms)' : 'photo-like frame (synthetic)';
    for (const name of FORMATS) {
      const figure = f.formats[name];
      const label = name === 'jpeg' ? 'jpeg q75' : name === 'png' ? 'png (indexed ≤ 256 colours, else RGB)' : name === 'webp' ? 'webp lossless' : 'auto';
      const vsJpeg = name === 'jpeg' ? '' : ` (${(figure.bytes / jpeg.bytes).toFixed(2)}× jpeg's bytes)`;
      const chose = figure.chose ? `; chose ${figure.chose}: ${figure.reason}` : '';
      rows.push({ section, name: `${what}: ${label}`, n: f.iterations, p50: figure.ms.p50, p90: figure.ms.p90, compare: `${kb(figure.bytes)}${vsJpeg}${chose}` });
    }
    rows.push({ section, name: `${what}: colour-index pass (auto's first step)`, n: f.iterations, p50: f.indexMs.p50, p90: f.indexMs.p90, compare: 'counts colours; gives up past 4096 (photos: within the first rows)' });
  }
  return rows;
}
