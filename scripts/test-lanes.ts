/**
 * Runs test files in lanes: `node scripts/test-lanes.ts --lanes 3 [--alone NAME…] -- <node --test flags> -- file…`.
 *
 * Each lane takes the next file from one shared queue and runs it in a `node --test` of its
 * own, so a lane that drew short files takes more of them. The end-to-end files mostly wait
 * (on Xvfb, Chromium, a worker starting, a timeout being proven), so three of them share two
 * cores well. Each file's output is printed whole when it ends — never interleaved — with one
 * line naming it, its lane and its time. Files run longest-first by the times of the last run
 * on this machine (.deskgate/test-times.json), or on a fresh clone by the typical times kept in
 * scripts/test-times.json (so the longest file never starts last and leaves a lane idle).
 * Files named with `--alone` (by file name) run last, by themselves: those whose tests bound a
 * duration the product promises (how fast Ctrl-C stops the sandbox) and must not share the CPU.
 * Exits non-zero when any file failed.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const TIMES_FILE = fileURLToPath(new URL('../.deskgate/test-times.json', import.meta.url));
const TYPICAL_TIMES_FILE = fileURLToPath(new URL('./test-times.json', import.meta.url));

interface Plan {
  lanes: number;
  alone: string[];
  nodeArgs: string[];
  files: string[];
}

function parseArgs(argv: string[]): Plan {
  const usage = 'usage: node scripts/test-lanes.ts --lanes N [--alone NAME…] -- <node --test flags> -- file…';
  const first = argv.indexOf('--');
  const second = argv.indexOf('--', first + 1);
  const own = argv.slice(0, first);
  const lanesAt = own.indexOf('--lanes');
  const lanes = Number(own[lanesAt + 1]);
  if (lanesAt < 0 || !Number.isInteger(lanes) || lanes < 1 || lanes > 8 || first < 0 || second < 0) throw new Error(usage);
  const aloneAt = own.indexOf('--alone');
  const alone = aloneAt < 0 ? [] : own.slice(aloneAt + 1).filter((name) => !name.startsWith('--'));
  const files = argv.slice(second + 1);
  if (files.length === 0) throw new Error(`no test files given\n${usage}`);
  const unknown = alone.filter((name) => !files.some((file) => basename(file) === name));
  if (unknown.length) throw new Error(`--alone names no file given: ${unknown.join(', ')}\n${usage}`);
  return { lanes, alone, nodeArgs: argv.slice(first + 1, second), files };
}

function readTimes(path: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

function runFile(file: string, nodeArgs: string[]): Promise<{ output: string; ok: boolean; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({ output: signal ? `${output}\nkilled by ${signal}\n` : output, ok: code === 0, seconds: (performance.now() - started) / 1000 });
    });
  });
}

async function main(): Promise<void> {
  const { lanes, alone, nodeArgs, files } = parseArgs(process.argv.slice(2));
  const times = { ...readTimes(TYPICAL_TIMES_FILE), ...readTimes(TIMES_FILE) };
  const isAlone = (file: string) => alone.includes(basename(file));
  const queue = files.filter((file) => !isAlone(file)).sort((a, b) => (times[b] ?? 0) - (times[a] ?? 0));
  const failed: string[] = [];
  const took: Record<string, number> = {};
  const started = performance.now();
  const lane = async (number: number) => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      // Its output comes whole when it ends; meanwhile, this line says what runs.
      process.stdout.write(`# [lane ${number}] ${basename(file)}: started\n`);
      const result = await runFile(file, nodeArgs);
      took[file] = result.seconds;
      if (!result.ok) failed.push(file);
      process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
      process.stdout.write(`# [lane ${number}] ${basename(file)}: ${result.ok ? 'passed' : 'FAILED'} in ${result.seconds.toFixed(1)} s\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, (_, i) => lane(i + 1)));
  queue.push(...files.filter(isAlone));
  await lane(1);
  mkdirSync(dirname(TIMES_FILE), { recursive: true });
  writeFileSync(TIMES_FILE, `${JSON.stringify({ ...times, ...took }, null, 2)}\n`);
  process.stdout.write(`# ${files.length} files in ${lanes} lanes: ${((performance.now() - started) / 1000).toFixed(1)} s${failed.length ? `; failed: ${failed.map((f) => basename(f)).join(', ')}` : ''}\n`);
  process.exitCode = failed.length ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
});
