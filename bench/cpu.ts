/**
 * CPU time by component while a load runs, from /proc/<pid>/stat (utime + stime), so the
 * scale figures can say where the cores went: gateway, worker, Redis, the desktops' helpers
 * and X servers, and the bench's own MCP clients.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Stack } from '../scripts/lib/stack.ts';
import type { DesktopFacts } from '../tests/support/desktops.ts';
import { desktopPids } from './desktop.ts';

let ticksPerSecond = 100;
try {
  ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
} catch {
  // 100 on every Linux we run on
}

/** CPU time (user + system, all threads) a process has used so far, in ms; 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ": state is field 3, so utime (14) and stime (15) are at 11 and 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return 0;
  }
}

export type PidGroups = Record<string, number[]>;

/** A process and all its descendants (from the parent pid in /proc/<pid>/stat). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(parent) ?? [];
      list.push(Number(entry));
      children.set(parent, list);
    } catch {
      // gone
    }
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** The redis-server listening on the given redis://host:port URL. */
export function redisPid(redisUrl: string): number | undefined {
  const port = new URL(redisUrl).port;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'redis-server') continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(`:${port}`) || cmdline.includes(`--port ${port}`)) return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

/** The processes behind a stack and its desktops, grouped as the CPU figures name them. */
export function stackPidGroups(stack: Pick<Stack, 'gateway' | 'worker' | 'redisUrl'>, desktops: DesktopFacts[]): PidGroups {
  const pids = desktops.map((facts) => desktopPids(facts));
  const collect = (key: string) => pids.map((p) => p[key]).filter((pid): pid is number => typeof pid === 'number');
  return {
    gateway: [stack.gateway.process.pid!],
    worker: [stack.worker.process.pid!],
    redis: [redisPid(stack.redisUrl)].filter((pid): pid is number => typeof pid === 'number'),
    'input helpers': collect('input'),
    Xvfb: collect('xvfb'),
    openbox: collect('openbox'),
    'capture helpers': collect('capture'),
  };
}

export interface CpuMeter {
  /** CPU ms per group since the meter started; "bench client" is this process. */
  stop(): Record<string, number>;
}

/**
 * Like startCpuMeter, for several services measured side by side in one run: no "bench
 * client" entry, since this process drives all of them and its CPU cannot be split.
 */
export function startGroupMeter(groups: PidGroups): CpuMeter {
  const read = () => Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, pids.reduce((sum, pid) => sum + cpuMs(pid), 0)]));
  const before = read();
  return {
    stop() {
      const after = read();
      return Object.fromEntries(Object.keys(groups).map((name) => [name, after[name]! - before[name]!]));
    },
  };
}

export function startCpuMeter(groups: PidGroups): CpuMeter {
  const read = () => Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, pids.reduce((sum, pid) => sum + cpuMs(pid), 0)]));
  const before = read();
  const self = process.cpuUsage();
  return {
    stop() {
      const after = read();
      const used = process.cpuUsage(self);
      const out: Record<string, number> = {};
      for (const name of Object.keys(groups)) out[name] = after[name]! - before[name]!;
      out['bench client (MCP SDK)'] = (used.user + used.system) / 1000;
      return out;
    },
  };
}
