/**
 * Looking at a session's desktop from the outside: its display (from Redis), the four
 * processes that make it up (Xvfb, the window manager, the two helpers) and their memory,
 * and a window of text on it so screenshots encode a realistic frame rather than a black one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Redis } from 'ioredis';
import { desktopOf, type DesktopFacts } from '../tests/support/desktops.ts';
import { sleep } from './stats.ts';

export async function sessionDesktop(redisUrl: string, tenant: string, session: string): Promise<DesktopFacts> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return await desktopOf(redis, tenant, session);
  } finally {
    redis.disconnect();
  }
}

const readOr = (path: string, fallback = ''): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
};

/**
 * Xvfb is the process holding the listening socket /tmp/.X11-unix/X<N> (found through
 * /proc/net/unix; a lock file is not always written); the window manager is found by its DISPLAY.
 */
export function desktopPids(facts: Pick<DesktopFacts, 'display' | 'capturePid' | 'inputPid'>): Record<string, number | undefined> {
  const number = facts.display.replace(/^:/, '').split('.')[0];
  const socketPaths = new Set([`/tmp/.X11-unix/X${number}`, `@/tmp/.X11-unix/X${number}`]);
  const inodes = new Set<string>();
  for (const line of readOr('/proc/net/unix').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 8 && socketPaths.has(fields[7]!)) inodes.add(fields[6]!);
  }
  let xvfb: number | undefined;
  let wm: number | undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = readOr(`/proc/${entry}/comm`).trim();
    if (comm === 'Xvfb' && xvfb === undefined) {
      let fds: string[] = [];
      try {
        fds = readdirSync(`/proc/${entry}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        let target = '';
        try {
          target = readlinkSync(`/proc/${entry}/fd/${fd}`);
        } catch {
          continue;
        }
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode && inodes.has(inode)) {
          xvfb = Number(entry);
          break;
        }
      }
    } else if (comm === 'openbox' && wm === undefined) {
      if (readOr(`/proc/${entry}/environ`).split('\0').includes(`DISPLAY=${facts.display}`)) wm = Number(entry);
    }
  }
  return { xvfb, openbox: wm, capture: facts.capturePid || undefined, input: facts.inputPid || undefined };
}

/** Resident and proportional set size of one process, in KiB (PSS shares shared pages fairly). */
export function memoryOf(pid: number): { rssKiB: number; pssKiB: number } {
  const status = readOr(`/proc/${pid}/status`);
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const rollup = readOr(`/proc/${pid}/smaps_rollup`);
  const pssKiB = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
  return { rssKiB, pssKiB };
}

export interface DesktopMemory {
  display: string;
  rssKiB: number;
  pssKiB: number;
  byProcess: Record<string, { pid?: number; rssKiB: number; pssKiB: number }>;
}

export function desktopMemory(facts: Pick<DesktopFacts, 'display' | 'capturePid' | 'inputPid'>): DesktopMemory {
  const pids = desktopPids(facts);
  const byProcess: DesktopMemory['byProcess'] = {};
  let rssKiB = 0;
  let pssKiB = 0;
  for (const [name, pid] of Object.entries(pids)) {
    const memory = pid ? memoryOf(pid) : { rssKiB: 0, pssKiB: 0 };
    byProcess[name] = { pid, ...memory };
    rssKiB += memory.rssKiB;
    pssKiB += memory.pssKiB;
  }
  return { display: facts.display, rssKiB, pssKiB, byProcess };
}

/**
 * A text-heavy xterm in the top-left part of the screen (clicks in the benches go to the
 * bare desktop in the bottom-right). Its shell never reads the terminal, so typed keys only
 * echo. Returns the process to kill when done.
 */
export async function showContent(display: string): Promise<ChildProcess> {
  const child = spawn(
    'xterm',
    ['-geometry', '110x42+0+0', '-fa', 'Monospace', '-fs', '9', '-e', 'sh', '-c', 'ls -l /usr/bin /usr/lib | head -400; cat /etc/services; exec sleep 100000'],
    { env: { ...process.env, DISPLAY: display }, stdio: 'ignore' },
  );
  child.on('error', () => undefined);
  await sleep(800);
  return child;
}

/**
 * Takes screenshots (`shoot` answers with the image's data) until two in a row are the same
 * image, so the last one shows what later clicks land on — the staleness gate judges them
 * against it (an xterm still printing would have them refused). At most `timeoutMs`.
 */
export async function untilStill(shoot: () => Promise<string | undefined>, what: string, timeoutMs = 20_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  let previous: string | undefined;
  while (performance.now() < until) {
    const data = await shoot();
    if (data && data === previous) return;
    previous = data;
    await sleep(300);
  }
  throw new Error(`the screen behind ${what} did not settle within ${timeoutMs / 1000} s`);
}
