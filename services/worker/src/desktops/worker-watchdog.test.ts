import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const MARKER_MODULE = fileURLToPath(new URL('./worker-marker.ts', import.meta.url));

/**
 * A stand-in worker: a node process that writes its marker, starts its watchdog, then either
 * stands it down after retiring its marker (a clean stop) or just exits (a death).
 */
function runWorker(dir: string, clean: boolean): Promise<void> {
  // A file, not \`node -e\`: the watchdog re-runs the worker's node with its execArgv.
  const file = join(dir, 'worker.ts');
  writeFileSync(
    file,
    `import { watchOver, WorkerMarker } from ${JSON.stringify(MARKER_MODULE)};
import { processStart } from ${JSON.stringify(MARKER_MODULE.replace('worker-marker.ts', 'desktop-users.ts'))};
const marker = new WorkerMarker('w-test', ${JSON.stringify(dir)});
const watchdog = watchOver({ pid: process.pid, start: processStart(process.pid) ?? 0, userPrefix: null, dir: ${JSON.stringify(dir)}, slotDir: ${JSON.stringify(join(dir, 'slots'))} });
if (${clean}) { marker.retire(); watchdog.standDown(); }
`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit' });
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}`)))));
}

/** The watchdogs watching over `dir`: their pid and what they run now. */
function watchdogsOf(dir: string): { pid: number; comm: string }[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return args.includes(dir) && (args.includes('deskgate-reaper') || args.includes('reaper-main'))
          ? [{ pid: Number(pid), comm: readFileSync(`/proc/${pid}/comm`, 'utf8').trim() }]
          : [];
      } catch {
        return [];
      }
    });
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a worker that stops cleanly retires its marker and stands its watchdog down: no reaper starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-watchdog-clean-'));
  const becameReaper: number[] = [];
  await runWorker(dir, true);
  // Watch the watchdog until it is gone: it must exit as the shell, never become node.
  // Watch for 2 s: a watchdog not stood down would exec the reaper (node) well within that.
  const end = Date.now() + 2000;
  while (Date.now() < end) {
    for (const { pid, comm } of watchdogsOf(dir)) if (comm !== 'sh') becameReaper.push(pid);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.deepEqual(watchdogsOf(dir), [], 'the watchdog has exited');
  assert.deepEqual(becameReaper, [], 'no reaper process started');
  assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith('.json')), [], 'the marker is gone');
});

test('a worker that dies without standing down is reaped: the watchdog becomes the reaper and removes its marker', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-watchdog-dead-'));
  await runWorker(dir, false);
  await until('the reaper to remove the dead worker’s marker', () => readdirSync(dir).filter((name) => name.endsWith('.json')).length === 0 && watchdogsOf(dir).length === 0, 30_000);
  assert.equal(existsSync(dir), true);
});
