/**
 * Finding how to start an app the way a desktop environment would: a .desktop entry in the
 * XDG application directories (by file id, StartupWMClass or Exec basename), else an
 * executable of that name on PATH. Exec lines are split per the Desktop Entry spec, with the
 * field codes (%f, %u, …) dropped: the app is started with no files.
 */
import { constants } from 'node:fs';
import { access, readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { LaunchSpec } from '@deskgate/computer-use';

export interface DesktopEntry {
  /** The file name without .desktop. */
  id: string;
  path: string;
  exec: string[];
  wmClass: string | null;
}

/** XDG order: the user's own entries first, then the system's. */
export function applicationDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local/share');
  const system = (env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':').filter(Boolean);
  return [...new Set([home, ...system, '/usr/local/share', '/usr/share'].map((dir) => join(dir, 'applications')))];
}

const STRING_ESCAPES: Record<string, string> = { s: ' ', n: '\n', t: '\t', r: '\r', '\\': '\\' };

/** An Exec value as an argument vector, without field codes. */
export function splitExec(exec: string): string[] {
  const unescaped = exec.replace(/\\([sntr\\])/g, (_m, c: string) => STRING_ESCAPES[c]!);
  const args: string[] = [];
  let current = '';
  let inToken = false;
  let quoted = false;
  for (let i = 0; i < unescaped.length; i++) {
    const c = unescaped[i]!;
    if (quoted) {
      if (c === '\\' && i + 1 < unescaped.length) current += unescaped[++i]!;
      else if (c === '"') quoted = false;
      else current += c;
    } else if (c === '"') {
      quoted = inToken = true;
    } else if (c === ' ' || c === '\t') {
      if (inToken) args.push(current);
      current = '';
      inToken = false;
    } else {
      current += c;
      inToken = true;
    }
  }
  if (inToken) args.push(current);
  // %% is a literal %; every other field code stands for files, URLs, the icon or the name.
  // A token that was only field codes goes; an explicit "" stays.
  return args.flatMap((arg) => {
    const stripped = arg.replace(/%(.)/g, (_m, c: string) => (c === '%' ? '%' : ''));
    return stripped === '' && arg !== '' ? [] : [stripped];
  });
}

/** The [Desktop Entry] group of a .desktop file, or null when it is not a launchable application. */
export function parseDesktopEntry(text: string, path: string): DesktopEntry | null {
  const fields = new Map<string, string>();
  let inMain = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      inMain = line === '[Desktop Entry]';
      continue;
    }
    const eq = line.indexOf('=');
    if (inMain && eq > 0) fields.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  if (fields.get('Type') !== 'Application' || fields.get('Hidden') === 'true') return null;
  const exec = splitExec(fields.get('Exec') ?? '');
  if (exec.length === 0) return null;
  return { id: basename(path).replace(/\.desktop$/, ''), path, exec, wmClass: fields.get('StartupWMClass') ?? null };
}

async function entriesIn(dir: string): Promise<DesktopEntry[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const entries = await Promise.all(
    names.filter((name) => name.endsWith('.desktop')).map(async (name) => parseDesktopEntry(await readFile(join(dir, name), 'utf8').catch(() => ''), join(dir, name))),
  );
  return entries.filter((entry): entry is DesktopEntry => entry !== null);
}

async function onPath(app: string, path: string): Promise<string | null> {
  for (const dir of path.split(':').filter(Boolean)) {
    const candidate = join(dir, app);
    const ok = await access(candidate, constants.X_OK).then(() => stat(candidate).then((s) => s.isFile()), () => false);
    if (ok) return candidate;
  }
  return null;
}

export async function findLauncher(app: string, { dirs = applicationDirs(), path = process.env.PATH ?? '' }: { dirs?: string[]; path?: string } = {}): Promise<LaunchSpec | null> {
  // A name with a slash is a path, not an app: never look it up.
  if (!app || app.includes('/') || app.includes('\0')) return null;
  const entries = (await Promise.all(dirs.map(entriesIn))).flat();
  const name = app.toLowerCase().replace(/\.desktop$/, '');
  const match =
    entries.find((entry) => entry.id.toLowerCase() === name) ??
    entries.find((entry) => entry.wmClass?.toLowerCase() === name) ??
    entries.find((entry) => basename(entry.exec[0]!).toLowerCase() === name);
  if (match) return { command: match.exec, source: match.path };
  const executable = await onPath(app, path);
  return executable ? { command: [executable], source: executable } : null;
}
