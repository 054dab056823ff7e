/**
 * Processes started on a desktop (open_application). Each runs as the desktop's user, in its
 * own process group on the desktop's display, with the desktop's environment (never the
 * worker's secrets), and only while the desktop is under its process cap. Every group is ended
 * when the desktop is torn down; a process that left its group (setsid, a daemon) is still the
 * desktop user's, and the provider kills all of that user's processes after the desktop stops.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ToolError } from '@deskgate/computer-use';

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

/** The executable `file` names: itself when it has a slash, else the first match on PATH. */
export async function resolveExecutable(file: string, path: string): Promise<string | null> {
  const candidates = file.includes('/') ? [file] : path.split(':').filter(Boolean).map((dir) => join(dir, file));
  for (const candidate of candidates) {
    const ok = await access(candidate, constants.X_OK).then(() => stat(candidate).then((s) => s.isFile()), () => false);
    if (ok) return candidate;
  }
  return null;
}

export interface LaunchLimits {
  /** The argument vector that runs a command as the desktop's user (identity when none). */
  runAs: (command: string[]) => string[];
  /** Processes and threads the desktop runs now. */
  tasks: () => number;
  /** The cap: no launch when the desktop already runs this many. */
  maxTasks: number;
}

const NO_LIMITS: LaunchLimits = { runAs: (command) => command, tasks: () => 0, maxTasks: Infinity };

export class ProcessLauncher {
  private readonly groups = new Set<number>();

  constructor(
    private readonly env: Record<string, string>,
    private readonly limits: LaunchLimits = NO_LIMITS,
  ) {}

  async launch(command: string[], env: Record<string, string> = {}): Promise<{ pid: number }> {
    const [file, ...args] = command;
    if (!file) throw new Error('empty command');
    const merged = { ...this.env, ...env };
    const executable = await resolveExecutable(file, merged.PATH ?? '/usr/bin:/bin');
    if (!executable) throw new Error(`cannot start ${file}: no such executable`);
    const used = this.limits.tasks();
    if (used >= this.limits.maxTasks) {
      throw new ToolError(
        'quota_exceeded',
        `cannot start ${basename(file)}: this desktop already runs ${used} processes and threads, its limit is ${this.limits.maxTasks}. Close an app (or end the session) before starting another.`,
      );
    }
    const [wrapper, ...wrapped] = this.limits.runAs([executable, ...args]);
    const child = spawn(wrapper!, wrapped, { env: merged, cwd: merged.HOME ?? '/', detached: true, stdio: 'ignore' });
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
