/**
 * The unprivileged users desktops run as. scripts/install.sh creates `<prefix>-0` … `<prefix>-N`
 * (no login shell, no home, each in a group of its own plus the shared `<prefix>` group that
 * the loopback firewall rule matches). A desktop holds one user — a slot — for its whole life,
 * so two sessions' apps never share a uid: they cannot signal, ptrace or read each other.
 *
 * Slots are claimed across every worker on the host with a lock file holding the claimer's
 * pid; a claim left by a dead worker is taken over. Before a slot is used, and after it is
 * given back, every process of its user is killed and the files it left in the shared temp
 * folders are removed: nothing of one session reaches the next.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, lstatSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface DesktopUser {
  name: string;
  uid: number;
  gid: number;
  /** The shared group (firewall rules match it), as a supplementary group. */
  groupGid: number;
}

/** Where slot claims live: root's, on a tmpfs, gone at reboot like the processes they guard. */
export const SLOT_DIR = '/run/deskgate/desktop-slots';
/** Shared temp folders whose entries a desktop user may leave behind. */
const SHARED_TEMP = ['/tmp', '/var/tmp', '/dev/shm'];

/** The desktop users in the passwd database, ordered by slot number. */
export function parseDesktopUsers(passwd: string, group: string, prefix: string): DesktopUser[] {
  const shared = group.split('\n').find((line) => line.startsWith(`${prefix}:`));
  if (!shared) return [];
  const groupGid = Number(shared.split(':')[2]);
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)$`);
  return passwd
    .split('\n')
    .map((line) => line.split(':'))
    .flatMap(([name, , uid, gid]) => {
      const slot = pattern.exec(name ?? '');
      return slot && Number(uid) > 0 ? [{ slot: Number(slot[1]), user: { name: name!, uid: Number(uid), gid: Number(gid), groupGid } }] : [];
    })
    .sort((a, b) => a.slot - b.slot)
    .map(({ user }) => user);
}

export async function loadDesktopUsers(prefix: string): Promise<DesktopUser[]> {
  const [{ stdout: passwd }, { stdout: group }] = await Promise.all([execFileAsync('getent', ['passwd']), execFileAsync('getent', ['group'])]);
  return parseDesktopUsers(passwd, group, prefix);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The pids of every living process (not thread) whose real uid is `uid`, and the task count
 * the kernel holds against its RLIMIT_NPROC (zombies included). A zombie is dead already — it
 * runs nothing and holds nothing but its pid until its parent reaps it, which for an orphan
 * (an xterm's shell) is the init process, slow to do so in some containers — so waiting for
 * it would only delay a desktop's teardown.
 */
export function processesOf(uid: number): { pids: number[]; tasks: number } {
  const pids: number[] = [];
  let tasks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) !== uid) continue;
      if (!/^State:\s+Z/m.test(status)) pids.push(Number(entry));
      tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
    } catch {
      // Gone while we looked.
    }
  }
  return { pids, tasks };
}

/**
 * Kills every process of `user`, setsid'd daemons included. `kill -KILL -1` run as the user
 * itself signals all its processes in one pass over the task list (a fork bomb cannot outrun
 * it); repeated until none is left.
 */
export async function killAllOf(user: DesktopUser, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (processesOf(user.uid).pids.length > 0) {
    await execFileAsync('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', 'kill', '-KILL', '-1']).catch(() => undefined);
    if (Date.now() > until) throw new Error(`processes of ${user.name} survived SIGKILL: ${processesOf(user.uid).pids.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Removes what the user left at the top of the shared temp folders (its own files only). */
export function removeTempFilesOf(uid: number, folders = SHARED_TEMP): void {
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(folder, name);
      try {
        if (lstatSync(path).uid === uid) rmSync(path, { recursive: true, force: true });
      } catch {
        // Gone already.
      }
    }
  }
}

export class DesktopSlots {
  private readonly free: DesktopUser[];

  constructor(
    users: DesktopUser[],
    private readonly dir = SLOT_DIR,
  ) {
    this.free = [...users];
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  get size(): number {
    return this.free.length;
  }

  /** Claims a user no other worker holds and clears it; null when every slot is taken. */
  async take(): Promise<DesktopUser | null> {
    for (let i = 0; i < this.free.length; i++) {
      const user = this.free[i]!;
      if (!this.claim(user)) continue;
      this.free.splice(i, 1);
      try {
        await this.clear(user);
      } catch (error) {
        this.give(user);
        throw error;
      }
      return user;
    }
    return null;
  }

  /** Ends everything the user still runs and removes its leftovers, then frees the slot. */
  async release(user: DesktopUser): Promise<void> {
    try {
      await this.clear(user);
    } finally {
      this.give(user);
    }
  }

  private async clear(user: DesktopUser): Promise<void> {
    await killAllOf(user);
    removeTempFilesOf(user.uid);
  }

  private give(user: DesktopUser): void {
    try {
      unlinkSync(this.lockPath(user));
    } catch {
      // Not ours any more.
    }
    this.free.push(user);
  }

  private lockPath(user: DesktopUser): string {
    return join(this.dir, user.name);
  }

  private claim(user: DesktopUser): boolean {
    const path = this.lockPath(user);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(path, String(process.pid), { flag: 'wx', mode: 0o600 });
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number(readFileSync(path, 'utf8').trim() || 0);
      if (holder === process.pid || (holder > 0 && alive(holder))) return false;
      // The claimer died (a crashed worker): its desktop's processes are killed by clear().
      try {
        unlinkSync(path);
      } catch {
        // Another worker took it over first.
      }
    }
    return false;
  }
}
