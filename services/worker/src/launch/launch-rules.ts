/**
 * What open_application may start: the apps the desktop offers (.desktop entries in deskgate's
 * own folder and the system's), never a bare executable from PATH, and never an entry that
 * would run anything at all — a shell, an interpreter, a privilege or exec wrapper, a terminal
 * program (Terminal=true), a hidden handler (NoDisplay=true) or a piece of the desktop itself.
 * The operator can add commands of their own, which are exempt (DESKGATE_LAUNCH_EXTRA).
 */
import { z } from 'zod';
import { splitExec } from './exec-line.ts';
import type { DesktopEntry } from './desktop-entry.ts';

/** Programs that run whatever their arguments or input say. */
const RUNS_ANYTHING =
  /^(sh|bash|dash|zsh|ksh|mksh|pdksh|csh|tcsh|fish|rbash|busybox|toybox|env|exec|eval|xargs|nohup|setsid|nice|ionice|timeout|stdbuf|chrt|taskset|script|expect|unbuffer|watch|flock|chroot|unshare|nsenter|setpriv|prlimit|runuser|su|sudo|doas|pkexec|gksu|gksudo|python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|irb|node|nodejs|deno|bun|java|jshell|lua[0-9.]*|luajit|php[0-9.]*|tclsh[0-9.]*|wish[0-9.]*|awk|gawk|mawk|nawk|guile[0-9.]*|racket|R|Rscript|osascript|xdg-open|exo-open|gio|gtk-launch|run-mailcap|see|x-terminal-emulator)$/;

/** The desktop's own processes: started once per desktop by the worker, not by an agent. */
const DESKTOP_PARTS = /^(openbox|openbox-session|tint2|tint2conf|Xvfb|Xorg|X|xinit|startx|xsetroot|xhost|xauth)$/;

export type Refusal = string;

const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Why an entry may not be started, or null when it may. */
export function refusalOf(entry: Pick<DesktopEntry, 'exec' | 'terminal' | 'noDisplay'>): Refusal | null {
  const program = base(entry.exec[0] ?? '');
  if (RUNS_ANYTHING.test(program)) return `it runs ${program}, a shell or interpreter that could run anything`;
  if (DESKTOP_PARTS.test(program)) return `${program} is part of the desktop itself`;
  if (entry.terminal) return 'it is a terminal program (Terminal=true)';
  if (entry.noDisplay) return 'it is a hidden handler (NoDisplay=true), not an application';
  return null;
}

/** DESKGATE_LAUNCH_EXTRA: app name → command (an Exec-style string or an argument vector). */
export const launchExtraSchema = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON: expected {"app": "command --args"} or {"app": ["command", "--args"]}' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().regex(/^[^/\0]{1,200}$/, 'an app name, not a path'), z.union([z.string().min(1), z.array(z.string()).min(1)])))
  .transform((record) => new Map(Object.entries(record).map(([name, command]) => [name.toLowerCase(), typeof command === 'string' ? splitExec(command) : command])));

export type LaunchExtra = Map<string, string[]>;
