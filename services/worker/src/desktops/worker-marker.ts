/**
 * Desktops die with their worker (docs/desktop.md, "When a worker dies"). Three layers:
 *
 * 1. Every desktop process the worker starts (Xvfb, openbox, tint2, xsetroot, the helpers,
 *    each app's first process) gets PR_SET_PDEATHSIG=SIGKILL from `setpriv --pdeathsig KILL`
 *    (process-provider.ts `runAs`): the kernel kills it the moment the worker dies, SIGKILL
 *    included. It does not reach their children, nor apps that left their process group.
 * 2. A watchdog per worker (`watchOver`): a `sh` blocked reading a pipe only the worker writes
 *    to. When the worker dies the pipe closes and the watchdog becomes `reaper-main.ts`, which
 *    sweeps what the worker left: every process of its desktop users (by uid: each slot user
 *    belongs to one desktop), their temp files, X sockets and private folders. A worker that
 *    stopped cleanly, every desktop torn down, stands it down instead (`standDown`): starting a
 *    reaper to find nothing cost seconds of Ctrl-C on a busy machine.
 * 3. A starting worker does the same sweep (`reapDeadWorkers`) for predecessors whose watchdog
 *    died with them (a process-group kill, the OOM killer).
 *
 * What the sweep may touch is decided by marks the dead worker owned, never by guessing: its
 * marker file here, `<dir>/<workerId>-<pid>.json`, lists the desktops it held (slot user,
 * display, private folder, the display's pids with their start times) with its own pid and
 * start time; a marker whose process is still that process is a live worker's and is left
 * alone. A slot user's processes are killed only under that slot's flock (desktop-users.ts),
 * which a live worker holds for as long as its desktop runs, so another live worker's desktop
 * is never touched, even on a host where several workers share the slots.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processStart, reapFreeSlots, sameProcessAlive, SLOT_DIR, type DesktopUser } from './desktop-users.ts';
import { removeDisplayLeftovers } from './xvfb.ts';

/** Root's markers live on a tmpfs, gone at reboot like the processes they name. */
export const WORKER_DIR = process.getuid?.() === 0 ? '/run/deskgate/workers' : join(tmpdir(), `deskgate-workers-${process.getuid?.() ?? 'user'}`);

export interface MarkedDesktop {
  /** The slot user (null when the worker runs desktops as itself). */
  user: string | null;
  uid: number | null;
  display: string;
  /** The desktop's private folder. */
  root: string;
  /** The display's own processes, with their start times (a reused pid is not theirs). */
  pids: { pid: number; start: number }[];
}

export interface MarkerRecord {
  workerId: string;
  pid: number;
  start: number;
  desktops: Record<string, MarkedDesktop>;
}

/** This worker's marker: rewritten (atomically) whenever a desktop starts or stops. */
export class WorkerMarker {
  readonly path: string;
  private readonly record: MarkerRecord;

  constructor(
    workerId: string,
    readonly dir = WORKER_DIR,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.record = { workerId, pid: process.pid, start: processStart(process.pid) ?? 0, desktops: {} };
    this.path = join(dir, `${workerId}-${process.pid}.json`);
    this.write();
  }

  add(key: string, desktop: MarkedDesktop): void {
    this.record.desktops[key] = desktop;
    this.write();
  }

  remove(key: string): void {
    if (!(key in this.record.desktops)) return;
    delete this.record.desktops[key];
    this.write();
  }

  /** Whether it names no desktop: everything the worker started has been torn down. */
  get empty(): boolean {
    return Object.keys(this.record.desktops).length === 0;
  }

  /** The worker stops cleanly with nothing left: its marker goes (no reaper need read it). */
  retire(): void {
    rmSync(this.path, { force: true });
  }

  private write(): void {
    const temp = `${this.path}.tmp`;
    writeFileSync(temp, JSON.stringify(this.record), { mode: 0o600 });
    renameSync(temp, this.path);
  }
}

/** pid → start, for the pids of a marked desktop that are still those processes. */
const stillRunning = (pids: MarkedDesktop['pids']) => pids.filter(({ pid, start }) => sameProcessAlive(pid, start));

export interface Reaped {
  /** Markers of dead workers that were removed. */
  workers: string[];
  /** Slot users that still ran something, or had left files, and were swept. */
  users: string[];
  /** Processes killed by pid (desktops run as the worker's own user). */
  killed: number;
}

/**
 * Reaps what dead workers left: for every marker whose worker is gone (or whose pid now names
 * another process), the displays' processes, leftovers and private folders; then every desktop
 * slot no live worker holds (its lock free) that still runs something or left files behind.
 * `held`: slots this process holds itself (never swept).
 */
export async function reapDeadWorkers(options: { users: DesktopUser[]; dir?: string; slotDir?: string; held?: ReadonlySet<string> }): Promise<Reaped> {
  const dir = options.dir ?? WORKER_DIR;
  const reaped: Reaped = { workers: [], users: [], killed: 0 };
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    // No marker folder yet: no worker ever ran here.
  }
  const roots: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let record: MarkerRecord;
    try {
      record = JSON.parse(readFileSync(path, 'utf8')) as MarkerRecord;
    } catch {
      continue; // being written, or not ours
    }
    if (sameProcessAlive(record.pid, record.start)) continue; // a live worker's
    for (const desktop of Object.values(record.desktops ?? {})) {
      if (desktop.user === null) {
        // No slot user to sweep by: the display's own processes, by pid and start time.
        for (const { pid } of stillRunning(desktop.pids)) {
          try {
            process.kill(pid, 'SIGKILL');
            reaped.killed++;
          } catch {
            // Gone meanwhile.
          }
        }
        removeDisplayLeftovers(desktop.display, desktop.uid ?? undefined);
      }
      roots.push(desktop.root);
    }
    reaped.workers.push(basename(name, '.json'));
    try {
      unlinkSync(path);
    } catch {
      // Another worker reaped it first.
    }
  }
  // Slot users: by uid, under each free slot's lock (a dead worker's locks went with it).
  if (options.users.length > 0) reaped.users = await reapFreeSlots(options.users, options.slotDir ?? SLOT_DIR, options.held);
  // Private folders last: their owner runs nothing any more. mkdtemp names are never reused.
  for (const root of roots) if (/\/deskgate-desktop-[^/]+$/.test(root)) rmSync(root, { recursive: true, force: true });
  return reaped;
}

/** The reaper's entry, beside this file (.ts under tsx, .js when built). */
const REAPER_MAIN = fileURLToPath(new URL(`./reaper-main${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

export interface ReaperArgs {
  /** The worker watched: it is reaped once this pid is no longer the process that started at `start`. */
  pid: number;
  start: number;
  userPrefix: string | null;
  dir: string;
  slotDir: string;
}

/** What the worker writes to its watchdog once nothing is left to reap. */
const STAND_DOWN = 'stand-down';

export interface Watchdog {
  /** The worker tore every desktop down: the watchdog exits without starting a reaper. */
  standDown(): void;
}

/**
 * Starts the watchdog: a `sh` in a session of its own (a kill of the worker's process group
 * spares it), blocked on a pipe only the worker holds open. When the worker dies, for any
 * reason, the read ends and the shell becomes the reaper — unless the worker wrote STAND_DOWN
 * first, which it does only once every desktop is gone.
 */
export function watchOver(args: ReaperArgs): Watchdog {
  const node = [process.execPath, ...process.execArgv.filter((arg) => !arg.startsWith('--inspect')), REAPER_MAIN, JSON.stringify(args)];
  const script = `read -r line; [ "$line" = ${STAND_DOWN} ] && exit 0; exec "$@"`;
  const watchdog = spawn('/bin/sh', ['-c', script, 'deskgate-reaper', ...node], { detached: true, stdio: ['pipe', 'ignore', 'inherit'] });
  watchdog.on('error', () => undefined);
  watchdog.stdin!.on('error', () => undefined);
  // Neither the pipe nor the child keeps the worker's event loop alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void }).unref?.();
  return { standDown: () => void watchdog.stdin!.end(`${STAND_DOWN}\n`) };
}
