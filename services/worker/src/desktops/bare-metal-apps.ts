/**
 * The apps of a bare-metal desktop, all through its input helper (the worker may run as
 * another user than the console's): the installed apps are read once from `desktop_entries`,
 * apps are started with `launch`, and at the end of a session the desktop is reset instead of
 * torn down (bare-metal-provider.ts).
 *
 * On Linux the entries are the host's .desktop files in the system folders. A Mac helper
 * answers `desktop_entries` with one entry per app bundle in /Applications and
 * /System/Applications (docs/macos.md): the file id is the bundle id, StartupWMClass the app's
 * name and Exec the bundle id, which its `launch` opens through NSWorkspace. ~/Applications is
 * never read: the console user can write it.
 */
import type { Platform } from '@deskgate/dispatch';
import type { Logger } from 'pino';
import { launchSettings } from '../config.ts';
import { DesktopIndex } from '../executor/desktop-identity.ts';
import type { InputClient } from '../helpers/input-client.ts';
import { containerApps, type DesktopApps } from '../launch/desktop-apps.ts';
import { launcherAmong, parseDesktopEntry, type DesktopEntry } from '../launch/desktop-entries.ts';

/** Folders whose app bundles a Mac desktop offers (root-owned). */
export const MAC_APPLICATION_DIRS = ['/Applications', '/System/Applications'] as const;

interface RawEntryFile {
  path: string;
  text: string;
}

/** The Mac helper's entries, parsed; anything outside the trusted folders is dropped. */
export function macEntries(files: readonly RawEntryFile[]): DesktopEntry[] {
  const trusted = (path: string) => MAC_APPLICATION_DIRS.some((dir) => path.startsWith(`${dir}/`) && !path.includes('/../'));
  return files
    .filter((file) => typeof file?.path === 'string' && typeof file.text === 'string' && trusted(file.path))
    .map((file) => parseDesktopEntry(file.text, file.path))
    .filter((entry): entry is DesktopEntry => entry !== null);
}

export async function bareMetalApps(input: InputClient, platform: Platform, log: Logger): Promise<DesktopApps> {
  const started = new Set<number>();
  // Launching through the helper, with its error table, as a container desktop does.
  let base = await containerApps(input);
  if (platform === 'macos') {
    const { files } = await input.call<{ files: RawEntryFile[] }>('desktop_entries', { user: false });
    const entries = macEntries(Array.isArray(files) ? files : []);
    base = {
      ...base,
      index: new DesktopIndex(async () => entries, Infinity),
      find: async (app) => launcherAmong(app, entries, launchSettings().launchExtra, MAC_APPLICATION_DIRS[0]),
    };
  }
  return {
    index: base.index,
    find: (app) => base.find(app),
    launch: async (command, env) => {
      const result = await base.launch(command, env);
      started.add(result.pid);
      return result;
    },
    stopAll: () => resetDesktop(input, started, log),
  };
}

/**
 * What a bare-metal desktop's reset undoes between sessions: the apps the session started are
 * asked to quit (SIGTERM: the worker and the helpers run on the same host), every key and button
 * is released, and the clipboard is emptied so nothing passes to the next session.
 */
async function resetDesktop(input: InputClient, started: Set<number>, log: Logger): Promise<void> {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ESRCH') log.warn({ pid, code }, 'an app the session started could not be asked to quit');
    }
  }
  started.clear();
  for (const [op, params] of [['release_all', {}], ['clipboard_write', { text: '' }]] as const) {
    await input.call(op, params).catch((error: unknown) => log.warn({ err: error, op }, 'bare-metal reset step failed'));
  }
}

