/**
 * A desktop's apps, as the executor sees them: the installed entries (to name windows and to
 * find how an app starts) and the processes open_application started. A process desktop reads
 * the host's folders and spawns as the desktop user (ProcessLauncher); a container desktop's
 * apps live inside the container, so its entries are read once from the input runtime there
 * when the desktop starts (before any agent acts on it) and its apps are started by the
 * runtime, within the container's limits.
 */
import { ToolError, type LaunchSpec } from '@deskgate/computer-use';
import { toolErrorFor } from '@deskgate/helper-protocol';
import { launchSettings } from '../config.ts';
import { DesktopIndex, workerDesktopIndex } from '../executor/desktop-identity.ts';
import { HelperError } from '../helpers/helper-process.ts';
import type { InputClient } from '../helpers/input-client.ts';
import { findLauncher, launcherAmong, parseDesktopEntry, type DesktopEntry } from './desktop-entries.ts';
import type { ProcessLauncher } from './launcher.ts';

export interface DesktopApps {
  /** Installed apps, to name a window by its .desktop id. */
  readonly index: DesktopIndex;
  /** How `app` starts, or a bad_args refusal. */
  find(app: string): Promise<LaunchSpec>;
  launch(command: string[], env?: Record<string, string>): Promise<{ pid: number }>;
  /** Ends every app started; the desktop is going. */
  stopAll(): Promise<void>;
}

/** Apps of a desktop on this host: the host's entries, processes spawned by the worker. */
export function hostApps(launcher: ProcessLauncher): DesktopApps {
  return {
    index: workerDesktopIndex,
    find: (app) => findLauncher(app),
    launch: (command, env) => launcher.launch(command, env),
    stopAll: () => launcher.stopAll(),
  };
}

/** Where a container desktop keeps deskgate's entries (docs/containers.md). */
export const CONTAINER_DESKTOP_DIR = '/opt/deskgate/desktop';

/**
 * The folders whose entries count inside a container: deskgate's and the image's, all on its
 * read-only root; never the desktop user's own ~/.local/share.
 */
const CONTAINER_APPLICATION_DIRS = [`${CONTAINER_DESKTOP_DIR}/share/applications`, '/usr/local/share/applications', '/usr/share/applications'];

interface RawEntryFile {
  path: string;
  text: string;
}

/** The input runtime's `desktop_entries` answer, parsed; files outside the trusted folders are dropped. */
export function containerEntries(files: readonly RawEntryFile[]): DesktopEntry[] {
  const rank = (path: string) => CONTAINER_APPLICATION_DIRS.findIndex((dir) => path.startsWith(`${dir}/`) && !path.slice(dir.length + 1).includes('/'));
  return files
    .filter((file) => typeof file?.path === 'string' && typeof file.text === 'string' && rank(file.path) >= 0)
    .sort((a, b) => rank(a.path) - rank(b.path))
    .map((file) => parseDesktopEntry(file.text, file.path))
    .filter((entry): entry is DesktopEntry => entry !== null);
}

/** Apps of a desktop container, through its input runtime. */
export async function containerApps(input: InputClient): Promise<DesktopApps> {
  const { files } = await input.call<{ files: RawEntryFile[] }>('desktop_entries', { user: false });
  const entries = containerEntries(Array.isArray(files) ? files : []);
  return {
    index: new DesktopIndex(async () => entries, Infinity),
    find: async (app) => launcherAmong(app, entries, launchSettings().launchExtra, CONTAINER_APPLICATION_DIRS[0]!),
    launch: async (command, env = {}) => {
      try {
        const { pid } = await input.call<{ pid: number }>('launch', { argv: command, env });
        return { pid };
      } catch (error) {
        if (!(error instanceof HelperError)) throw error;
        const { kind, message } = toolErrorFor('input', error.kind, error.message, `starting ${command[0]}`);
        const advice = kind === 'quota_exceeded' ? ': this desktop is at its process limit. Close an app (or end the session) before starting another.' : '';
        throw new ToolError(kind, `${message}${advice}`);
      }
    },
    // The container goes with the desktop, and every process in it.
    stopAll: async () => undefined,
  };
}
