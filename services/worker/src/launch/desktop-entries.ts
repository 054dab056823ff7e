/**
 * Finding how to start an app the way a desktop environment would — but only the apps the
 * desktop offers: a .desktop entry in deskgate's own applications folder or the system's (by
 * file id, StartupWMClass or Exec basename), or a command the operator added
 * (DESKGATE_LAUNCH_EXTRA). Never a bare executable from PATH, never an entry from a folder the
 * desktop user can write (its ~/.local/share), and never an entry refused by launch-rules.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ToolError, type LaunchSpec } from '@deskgate/computer-use';
import { launchSettings } from '../config.ts';
import { splitExec } from './exec-line.ts';
import { refusalOf, type LaunchExtra } from './launch-rules.ts';
import type { DesktopEntry } from './desktop-entry.ts';

export { splitExec } from './exec-line.ts';

export type { DesktopEntry };

/**
 * Where entries are looked up, for launching and for naming windows: deskgate's own first,
 * then the system's (root-owned) folders — never the desktop user's own ~/.local/share.
 */
export function applicationDirs(desktopDir: string = launchSettings().desktopDir): string[] {
  return [join(desktopDir, 'share/applications'), '/usr/local/share/applications', '/usr/share/applications'];
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
  return {
    id: basename(path).replace(/\.desktop$/, ''),
    path,
    exec,
    wmClass: fields.get('StartupWMClass') ?? null,
    terminal: fields.get('Terminal') === 'true',
    noDisplay: fields.get('NoDisplay') === 'true',
  };
}

async function entriesIn(dir: string): Promise<DesktopEntry[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const entries = await Promise.all(
    names.filter((name) => name.endsWith('.desktop')).map(async (name) => parseDesktopEntry(await readFile(join(dir, name), 'utf8').catch(() => ''), join(dir, name))),
  );
  return entries.filter((entry): entry is DesktopEntry => entry !== null);
}

export interface LaunchOptions {
  dirs: string[];
  extra: LaunchExtra;
}

function defaultOptions(): LaunchOptions {
  const { desktopDir, launchExtra } = launchSettings();
  return { dirs: applicationDirs(desktopDir), extra: launchExtra };
}

/**
 * The way to start `app`, or a `bad_args` refusal saying why it may not be started (naming the
 * apps this desktop offers when it has no entry at all).
 */
export async function findLauncher(app: string, { dirs, extra }: LaunchOptions = defaultOptions()): Promise<LaunchSpec> {
  checkAppName(app);
  return launcherAmong(app, (await Promise.all(dirs.map(entriesIn))).flat(), extra, dirs[0]!);
}

/** A name with a slash is a path, not an app: never looked up. */
function checkAppName(app: string): void {
  if (!app || app.includes('/') || app.includes('\0')) throw new ToolError('bad_args', `"${app}" is a path, not an application name.`);
}

/**
 * findLauncher over entries already read (in XDG order, e.g. a desktop container's); the apps
 * offered, in a refusal, are those of `ownDir` (deskgate's folder) and the operator's extras.
 */
export function launcherAmong(app: string, entries: readonly DesktopEntry[], extra: LaunchExtra, ownDir: string): LaunchSpec {
  checkAppName(app);
  const name = app.toLowerCase().replace(/\.desktop$/, '');
  const added = extra.get(name);
  if (added) return { command: added, source: 'DESKGATE_LAUNCH_EXTRA' };
  const match =
    entries.find((entry) => entry.id.toLowerCase() === name) ??
    entries.find((entry) => entry.wmClass?.toLowerCase() === name) ??
    entries.find((entry) => basename(entry.exec[0]!).toLowerCase() === name);
  if (!match) {
    const offered = entries.filter((entry) => entry.path.startsWith(`${ownDir}/`)).map((entry) => entry.id);
    const list = [...new Set([...offered, ...extra.keys()])].sort().join(', ');
    throw new ToolError(
      'bad_args',
      `There is no .desktop entry or executable named "${app}" among this desktop's apps${list ? ` (it offers ${list})` : ''}: only the desktop's apps can be opened, not any program.`,
    );
  }
  const refusal = refusalOf(match);
  if (refusal) {
    throw new ToolError('bad_args', `"${app}" may not be opened: ${refusal} (entry ${match.id}.desktop). Only the operator can allow it (DESKGATE_LAUNCH_EXTRA).`);
  }
  // The source is shown to the agent: the entry's id, never a path on the host.
  return { command: match.exec, source: `${match.id}.desktop` };
}
