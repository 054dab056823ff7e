/**
 * Processes started on a desktop (open_application). Each runs in its own process group on the
 * desktop's display, with a minimal environment (never the worker's secrets), and every group
 * is ended when the desktop is torn down. A process that leaves its group (setsid, a daemon)
 * escapes this; the container provider is the boundary for that.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';

/** What a started app may see of the worker's environment. */
const PASSED_ON = /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z_]+|TZ)$/;

export function launchEnv(base: NodeJS.ProcessEnv, display: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (PASSED_ON.test(name) && value !== undefined) env[name] = value;
  return { ...env, ...display };
}

/**
 * Whether a process group still has a live member. Zombies do not count: a member orphaned
 * when its parent died may wait for an init that never reaps it (containers without one).
 */
export const groupAlive = (group: number) => {
  try {
    process.kill(-group, 0);
  } catch {
    return false;
  }
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // Fields after the parenthesised command: state ppid pgrp …
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === group && state !== 'Z') return true;
    } catch {
      // Gone while we looked.
    }
  }
  return false;
};

const signal = (group: number, name: NodeJS.Signals) => {
  try {
    process.kill(-group, name);
  } catch {
    // Already gone.
  }
};

export class ProcessLauncher {
  private readonly groups = new Set<number>();

  constructor(private readonly env: Record<string, string>) {}

  async launch(command: string[], env: Record<string, string> = {}): Promise<{ pid: number }> {
    const [file, ...args] = command;
    if (!file) throw new Error('empty command');
    const child = spawn(file, args, { env: { ...this.env, ...env }, cwd: this.env.HOME ?? homedir(), detached: true, stdio: 'ignore' });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`cannot start ${file}: ${error.message}`)));
    });
    child.unref();
    this.groups.add(child.pid!);
    return { pid: child.pid! };
  }

  get running(): number[] {
    return [...this.groups].filter(groupAlive);
  }

  /** SIGTERM to every group, SIGKILL to what is left after the grace period. */
  async stopAll(graceMs = 1500): Promise<void> {
    const groups = this.running;
    this.groups.clear();
    for (const group of groups) signal(group, 'SIGTERM');
    const until = Date.now() + graceMs;
    while (groups.some(groupAlive) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
    for (const group of groups.filter(groupAlive)) signal(group, 'SIGKILL');
  }
}
