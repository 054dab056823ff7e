/**
 * A desktop's private folder: a fresh temp folder (mode 0700, owned by the desktop's user)
 * holding its HOME, XDG folders, TMPDIR, runtime dir and X cookie, deleted with the desktop.
 * Apps and helpers get an environment built from it and nothing of the worker's (no Redis
 * URL, no keys): whatever one session's apps write is gone before the next session starts.
 */
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DesktopUser } from './desktop-users.ts';

export interface DesktopHome {
  root: string;
  home: string;
  xauthority: string;
  /** The desktop user's name and ids, or null when the worker runs desktops as itself. */
  user: DesktopUser | null;
  remove(): void;
}

/** Folders inside HOME that desktop apps expect. */
const HOME_DIRS = ['.config', '.cache', '.local', '.local/share', 'Desktop', 'Documents', 'Downloads'];

export function createDesktopHome(user: DesktopUser | null, parent = tmpdir()): DesktopHome {
  const root = mkdtempSync(join(parent, 'deskgate-desktop-'));
  const home = join(root, 'home');
  const own = (path: string) => user && chownSync(path, user.uid, user.gid);
  for (const dir of [root, home, ...HOME_DIRS.map((name) => join(home, name)), join(root, 'run'), join(root, 'tmp')]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    own(dir);
  }
  return {
    root,
    home,
    xauthority: join(root, 'Xauthority'),
    user,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** What apps may see of the worker's environment: locale and time zone only. */
const PASSED_ON = /^(LANG|LANGUAGE|LC_[A-Z_]+|TZ)$/;

/**
 * The environment of every process on the desktop: its display and cookie, its own HOME and
 * XDG folders, deskgate's .desktop entries first in XDG_DATA_DIRS, and a plain PATH.
 */
export function desktopEnv(home: DesktopHome, display: string, desktopDir: string, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (PASSED_ON.test(name) && value !== undefined) env[name] = value;
  const name = home.user?.name ?? base.USER ?? 'deskgate';
  return {
    LANG: 'C.UTF-8',
    ...env,
    DISPLAY: display,
    XAUTHORITY: home.xauthority,
    HOME: home.home,
    USER: name,
    LOGNAME: name,
    SHELL: '/bin/bash',
    PATH: '/usr/local/bin:/usr/bin:/bin',
    TMPDIR: join(home.root, 'tmp'),
    XDG_RUNTIME_DIR: join(home.root, 'run'),
    XDG_CONFIG_HOME: join(home.home, '.config'),
    XDG_DATA_HOME: join(home.home, '.local/share'),
    XDG_CACHE_HOME: join(home.home, '.cache'),
    XDG_DATA_DIRS: `${join(desktopDir, 'share')}:/usr/local/share:/usr/share`,
    XDG_CONFIG_DIRS: '/etc/xdg',
    // No session bus on the desktop: GTK settings stay in memory, no accessibility bridge.
    GSETTINGS_BACKEND: 'memory',
    NO_AT_BRIDGE: '1',
  };
}
