/**
 * The files desktop users must read: the capture helper, the Python input runtime and the
 * desktop's own configuration (openbox, panel, .desktop entries). They run as unprivileged
 * users, so a checkout under a private folder (/root is 0700 on many systems) is out of their
 * reach. Then the worker stages a copy, root-owned and world-readable, under
 * /var/lib/deskgate/staged/<content hash>: the same files give the same folder, so workers
 * share it and a rebuilt helper gets a new one.
 */
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export interface DesktopFiles {
  captureBin: string;
  runtimeDir: string;
  desktopDir: string;
}

export const STAGING_ROOT = '/var/lib/deskgate/staged';

const OTHER_R = 0o004;
const OTHER_X = 0o001;

/** Whether a user with no special rights can reach `path` (every folder above it searchable). */
function ancestorsSearchable(path: string): boolean {
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & OTHER_X) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

/** Whether every file under `path` is readable (and every folder listable) by anyone. */
function treeReadable(path: string): boolean {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    if ((stat.mode & (OTHER_R | OTHER_X)) !== (OTHER_R | OTHER_X)) return false;
    return readdirSync(path).every((name) => name === '__pycache__' || treeReadable(join(path, name)));
  }
  return (stat.mode & OTHER_R) !== 0;
}

export function reachableByOthers(path: string, executable = false): boolean {
  if (!existsSync(path) || !ancestorsSearchable(path) || !treeReadable(path)) return false;
  return !executable || (statSync(path).mode & OTHER_X) !== 0;
}

function hashTree(hash: ReturnType<typeof createHash>, path: string, name: string): void {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) if (entry !== '__pycache__') hashTree(hash, join(path, entry), `${name}/${entry}`);
  } else {
    hash.update(`${name}\0${statSync(path).mode & 0o111 ? 'x' : '-'}\0`).update(readFileSync(path));
  }
}

/** World-readable modes for a staged copy, root-owned, nothing writable by others. */
function openUp(path: string): void {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) openUp(join(path, entry));
  } else {
    chmodSync(path, stat.mode & 0o111 ? 0o755 : 0o644);
  }
}

const resolved = new Map<string, DesktopFiles>();

/** desktopFiles() of the worker's configured files, worked out once per process. */
export function stagedDesktopFiles({ captureBin, runtimeDir, desktopDir }: DesktopFiles): DesktopFiles {
  const key = JSON.stringify([captureBin, runtimeDir, desktopDir]);
  let result = resolved.get(key);
  if (!result) {
    const { staged: _staged, ...paths } = desktopFiles({ captureBin, runtimeDir, desktopDir });
    result = paths;
    resolved.set(key, result);
  }
  return result;
}

/** The files as they are when desktop users can reach them, else a staged copy. */
export function desktopFiles(files: DesktopFiles, stagingRoot = STAGING_ROOT): DesktopFiles & { staged: string | null } {
  if (reachableByOthers(files.captureBin, true) && reachableByOthers(files.runtimeDir) && reachableByOthers(files.desktopDir)) {
    return { ...files, staged: null };
  }
  const parts: [string, string][] = [
    [files.captureBin, basename(files.captureBin)],
    [files.runtimeDir, 'runtime'],
    [files.desktopDir, 'desktop'],
  ];
  const hash = createHash('sha256');
  for (const [source, name] of parts) hashTree(hash, source, name);
  const target = join(stagingRoot, hash.digest('hex').slice(0, 16));
  if (!existsSync(target)) {
    mkdirSync(stagingRoot, { recursive: true, mode: 0o755 });
    const building = `${target}.${process.pid}.tmp`;
    rmSync(building, { recursive: true, force: true });
    for (const [source, name] of parts) cpSync(source, join(building, name), { recursive: true, filter: (path) => basename(path) !== '__pycache__' });
    openUp(building);
    try {
      renameSync(building, target);
    } catch {
      // Another worker staged the same files first.
      rmSync(building, { recursive: true, force: true });
    }
  }
  if (!reachableByOthers(target)) throw new Error(`the staged desktop files in ${target} are not readable by the desktop users: a folder above it is private`);
  return { captureBin: join(target, basename(files.captureBin)), runtimeDir: join(target, 'runtime'), desktopDir: join(target, 'desktop'), staged: target };
}
