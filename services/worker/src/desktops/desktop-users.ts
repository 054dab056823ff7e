/**
 * The unprivileged users desktops run as. scripts/install.sh creates `<prefix>-0` … `<prefix>-N`
 * (no login shell, no home, each in a group of its own plus the shared `<prefix>` group that
 * the loopback firewall rule matches). A desktop holds one user — a slot — for its whole life,
 * so two sessions' apps never share a uid: they cannot signal, ptrace or read each other.
 *
 * Slots are claimed across every worker on the host with flock(2) on a file per slot, held
 * for the desktop's whole life: the kernel drops the lock when its holder dies, however it
 * dies, so a claim is never stale and two workers never hold one slot (no pid files to read
 * and race on). The file names its holder (worker id, pid, start time) for people and for
 * reaping. Before a slot is used, and after it is given back, every process of its user is
 * killed and the files it left in the shared temp folders are removed: nothing of one session
 * reaches the next. A slot nobody holds has no business running anything, so whatever its user
 * still runs is a dead worker's leftover: `reapFreeSlots` sweeps it (worker-marker.ts).
 */
import { execFile, spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, lstatSync, writeSync } from 'node:fs';
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

/**
 * The pids of every living process (not thread) whose real uid is `uid`, and the task count
 * the kernel holds against its RLIMIT_NPROC (zombies included). A zombie is dead already — it
 * runs nothing and holds nothing but its pid until its parent reaps it, which for an orphan
 * (an xterm's shell) is the init process, slow to do so in some containers — so waiting for
 * it would only delay a desktop's teardown.
 */
export function processesOf(uid: number): { pids: number[]; tasks: number } {
  return processesByUid(new Set([uid])).get(uid) ?? { pids: [], tasks: 0 };
}

/** processesOf for several uids in one pass over /proc (a host has a thousand processes; a worker, 64 slot users). */
export function processesByUid(uids: ReadonlySet<number>): Map<number, { pids: number[]; tasks: number }> {
  const found = new Map<number, { pids: number[]; tasks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      if (!uids.has(uid)) continue;
      let of = found.get(uid);
      if (!of) found.set(uid, (of = { pids: [], tasks: 0 }));
      if (!/^State:\s+Z/m.test(status)) of.pids.push(Number(entry));
      of.tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
    } catch {
      // Gone while we looked.
    }
  }
  return found;
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

/** Removes what the users left at the top of the shared temp folders (their own files only), and their X sockets. */
export function removeTempFilesOf(uid: number | number[], folders = SHARED_TEMP): void {
  const uids = new Set(Array.isArray(uid) ? uid : [uid]);
  for (const folder of [...folders, ...(folders === SHARED_TEMP ? ['/tmp/.X11-unix'] : [])]) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(folder, name);
      try {
        if (uids.has(lstatSync(path).uid)) rmSync(path, { recursive: true, force: true });
      } catch {
        // Gone already.
      }
    }
  }
}

/**
 * flock(2) on `path` (created if needed), not waiting: the open descriptor while held, else
 * null. Node has no flock of its own; `flock -n 3` locks the open file description it is
 * handed, which the worker keeps open, so the lock outlives that little process and lasts
 * until the worker closes the descriptor or dies. The descriptor is close-on-exec: nothing the
 * worker starts later holds it.
 */
export function tryLock(path: string): number | null {
  const fd = openSync(path, 'a+', 0o600);
  const locked = spawnSync('flock', ['-x', '-n', '3'], { stdio: ['ignore', 'ignore', 'ignore', fd] });
  if (locked.error) {
    closeSync(fd);
    throw new Error(`cannot lock ${path} with flock (util-linux): ${locked.error.message}`);
  }
  if (locked.status === 0) return fd;
  closeSync(fd);
  return null;
}

/** Replaces what a held lock file says about its holder. */
export function writeHolder(fd: number, holder: object | null): void {
  ftruncateSync(fd, 0);
  if (holder) writeSync(fd, JSON.stringify(holder), 0);
}

/** The start time of `pid` (clock ticks since boot, /proc/<pid>/stat field 22); null when it is gone or a zombie. */
export function processStart(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    return Number(fields[19]);
  } catch {
    return null;
  }
}

/** Whether the process `pid` that started at `start` still runs (a reused pid is another process). */
export const sameProcessAlive = (pid: number, start: number) => pid > 0 && processStart(pid) === start;

/** Who this worker is, as its slot files and marker name it. */
export const thisWorker = (workerId: string) => ({ workerId, pid: process.pid, start: processStart(process.pid) ?? 0 });

/**
 * Sweeps every slot no live worker holds that has something to sweep: its user's processes
 * killed, its temp files and X sockets removed, under the slot's lock (so a worker taking the
 * slot meanwhile waits for nothing and finds it clean, and a slot a live worker holds is never
 * touched). A slot whose user runs nothing and owns no temp file is not locked at all: each
 * lock is a `flock` process, and 64 of them cost a starting worker ~0.5 s of CPU. Returns the
 * users that had something to sweep.
 */
export async function reapFreeSlots(users: DesktopUser[], dir = SLOT_DIR, skip: ReadonlySet<string> = new Set()): Promise<string[]> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const byUid = processesByUid(new Set(users.map((user) => user.uid)));
  const running = new Set(users.filter((user) => (byUid.get(user.uid)?.pids.length ?? 0) > 0).map((user) => user.name));
  const owners = tempFileOwners();
  const dirty = users.filter((user) => !skip.has(user.name) && (running.has(user.name) || owners.has(user.uid)));
  const swept: string[] = [];
  const locks: { user: DesktopUser; fd: number }[] = [];
  try {
    for (const user of dirty) {
      const fd = tryLock(join(dir, user.name));
      if (fd === null) continue; // a live worker's desktop
      locks.push({ user, fd });
    }
    await Promise.all(locks.filter(({ user }) => running.has(user.name)).map(({ user }) => killAllOf(user)));
    const held = locks.map(({ user }) => user);
    // Whatever they wrote until they were killed goes too.
    removeTempFilesOf(held.map((user) => user.uid));
    swept.push(...held.map((user) => user.name));
  } finally {
    for (const { fd } of locks) {
      writeHolder(fd, null);
      closeSync(fd);
    }
  }
  return swept;
}

/** The uids owning an entry of the shared temp folders: one pass over them, whatever the number of users. */
function tempFileOwners(): Set<number> {
  const owners = new Set<number>();
  for (const folder of [...SHARED_TEMP, '/tmp/.X11-unix']) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue; // Not there.
    }
    for (const name of names) {
      try {
        owners.add(lstatSync(join(folder, name)).uid);
      } catch {
        // Gone while we looked.
      }
    }
  }
  return owners;
}

export class DesktopSlots {
  private readonly free: DesktopUser[];
  /** The lock descriptor of every slot this worker holds. */
  private readonly held = new Map<string, number>();

  constructor(
    readonly users: DesktopUser[],
    readonly dir = SLOT_DIR,
    /** What the slot files say about their holder: this worker. */
    private readonly holder: object = { pid: process.pid },
  ) {
    this.free = [...users];
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  get size(): number {
    return this.free.length;
  }

  /** The names of the slots this worker holds now. */
  get names(): ReadonlySet<string> {
    return new Set(this.held.keys());
  }

  /** Claims a user no other worker holds and clears it; null when every slot is taken. */
  async take(): Promise<DesktopUser | null> {
    for (let i = 0; i < this.free.length; i++) {
      const user = this.free[i]!;
      const fd = tryLock(this.lockPath(user));
      if (fd === null) continue;
      this.free.splice(i, 1);
      this.held.set(user.name, fd);
      try {
        writeHolder(fd, this.holder);
        // Whatever a dead holder left runs no more.
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
    const fd = this.held.get(user.name);
    if (fd !== undefined) {
      this.held.delete(user.name);
      try {
        writeHolder(fd, null);
      } finally {
        closeSync(fd); // the lock goes with the last descriptor
      }
    }
    this.free.push(user);
  }

  private lockPath(user: DesktopUser): string {
    return join(this.dir, user.name);
  }
}
