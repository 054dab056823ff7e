/**
 * The default desktop provider: Xvfb, openbox and the tint2 panel as local processes, run as
 * an unprivileged desktop user (one per desktop slot) with a private HOME and an X cookie of
 * their own (docs/desktop.md). Several monitors are one wide screen split with RandR monitors
 * (see monitor-layout.ts). Xvfb and the window manager are watched: if either exits, the
 * desktop is reported failed; the panel is restarted.
 *
 * Desktops die with their worker: every process started here gets PR_SET_PDEATHSIG (SIGKILL),
 * a watchdog sweeps the slot users when the worker dies, and a starting worker reaps what a
 * dead predecessor left, by the marker it owned (worker-marker.ts, docs/desktop.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, type WorkerConfig } from '../config.ts';
import { execFileAsync, poll, terminate } from './child-process.ts';
import { FailureSignal } from './failure-signal.ts';
import { stagedDesktopFiles, type DesktopFiles } from './desktop-files.ts';
import { createDesktopHome, desktopEnv, type DesktopHome } from './desktop-home.ts';
import { DesktopSlots, loadDesktopUsers, processesOf, processStart, SLOT_DIR, thisWorker, type DesktopUser } from './desktop-users.ts';
import { monitorLayout, setMonitorArgs } from './monitor-layout.ts';
import { hostApps } from '../launch/desktop-apps.ts';
import { ProcessLauncher } from '../launch/launcher.ts';
import type { DesktopProvider, DisplayHandle } from './provider.ts';
import { addDisplayEntry, writeXauthority } from './xauthority.ts';
import { removeDisplayLeftovers, startXvfb } from './xvfb.ts';
import { reapDeadWorkers, watchOver, WORKER_DIR, WorkerMarker, type Watchdog } from './worker-marker.ts';

const START_TIMEOUT_MS = 10_000;
const PANEL_RESTART_MS = 1000;
/** The desktop background: a solid colour, so a screenshot of an empty desktop is not black. */
export const BACKGROUND = '#3b4d61';

export interface ProcessProviderOptions {
  /** Desktop users to run as; null runs desktops as the worker's own user (not root). */
  slots: DesktopSlots | null;
  /** Folder with deskgate's openbox, panel and .desktop files, and the helpers, readable by desktop users. */
  files: DesktopFiles;
  /** The Python the input runtime runs on. */
  python: string;
  /** Processes and threads one desktop's user may run (RLIMIT_NPROC). */
  maxProcesses: number;
  panel: boolean;
  /**
   * Whose desktops these are: with it, a marker records them and a watchdog reaps them when
   * the worker dies, and prepare() reaps what dead workers left (worker-marker.ts).
   */
  worker?: { id: string; userPrefix: string | null; markerDir?: string };
}

export class NoFreeSlotError extends Error {}

export class ProcessDesktopProvider implements DesktopProvider {
  readonly kind = 'process' as const;
  private settings: Promise<ProcessProviderOptions> | null = null;
  private marker: Promise<WorkerMarker | null> | null = null;
  private watchdog: Watchdog | null = null;

  /**
   * `windowManager` is DESKGATE_WINDOW_MANAGER: openbox gets deskgate's configuration; another
   * window manager runs as it is, outside the guarantees of docs/desktop.md. Without
   * `options`, they come from the worker's configuration on the first start.
   */
  constructor(
    private readonly windowManager: string,
    private readonly log: Logger,
    private readonly options?: ProcessProviderOptions,
  ) {}

  private resolveOptions(): Promise<ProcessProviderOptions> {
    if (this.options) return Promise.resolve(this.options);
    this.settings ??= optionsFromConfig(loadConfig(), this.log).catch((error: unknown) => {
      this.settings = null;
      throw error;
    });
    return this.settings;
  }

  /** Desktop users exist (when root), the helpers' files are staged where they can read them. */
  async prepare(): Promise<void> {
    await this.markerFor(await this.resolveOptions());
  }

  /**
   * After the worker's last teardown: when its marker names no desktop, the marker goes and the
   * watchdog stands down (no reaper starts). Anything left, and the watchdog reaps it.
   */
  async retire(): Promise<void> {
    const marker = await this.marker?.catch(() => null);
    if (!marker || !marker.empty) return;
    marker.retire();
    this.watchdog?.standDown();
  }

  /**
   * Once: reaps what dead workers left (never a live worker's: see worker-marker.ts), then
   * writes this worker's marker and starts its watchdog.
   */
  private markerFor(options: ProcessProviderOptions): Promise<WorkerMarker | null> {
    const { worker } = options;
    if (!worker) return Promise.resolve(null);
    this.marker ??= (async () => {
      const dir = worker.markerDir ?? WORKER_DIR;
      const slotDir = options.slots?.dir ?? SLOT_DIR;
      const reaped = await reapDeadWorkers({ users: options.slots?.users ?? [], dir, slotDir, held: options.slots?.names });
      if (reaped.workers.length || reaped.users.length || reaped.killed) this.log.warn({ ...reaped }, 'reaped the desktops of dead workers');
      const marker = new WorkerMarker(worker.id, dir);
      this.watchdog = watchOver({ pid: process.pid, start: processStart(process.pid) ?? 0, userPrefix: options.slots ? worker.userPrefix : null, dir, slotDir });
      return marker;
    })().catch((error: unknown) => {
      this.marker = null;
      throw error;
    });
    return this.marker;
  }

  /**
   * The argument vector running a command as `user`, unable to gain privileges, within the cap,
   * and killed by the kernel when the worker dies (PR_SET_PDEATHSIG, which setpriv sets after
   * changing ids and which survives prlimit's exec: neither is setuid).
   */
  runAs(options: ProcessProviderOptions, user: DesktopUser | null, command: string[]): string[] {
    if (!user) return ['setpriv', '--pdeathsig', 'KILL', '--', ...command];
    const drop = ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, `--groups=${user.groupGid}`, '--no-new-privs', '--pdeathsig', 'KILL', '--'];
    return [...drop, 'prlimit', `--nproc=${options.maxProcesses}`, '--', ...command];
  }

  async start({ width: monitorWidth, height, monitors = 1 }: { width: number; height: number; monitors?: number }): Promise<DisplayHandle> {
    const options = await this.resolveOptions();
    const marker = await this.markerFor(options);
    const user = options.slots ? await options.slots.take() : null;
    if (options.slots && !user) throw new NoFreeSlotError('every desktop user is in use');
    const cleanups: (() => Promise<void> | void)[] = [];
    const cleanUp = async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch((error) => this.log.error({ err: error }, 'desktop cleanup failed'));
    };
    try {
      // Cleanups run last-in first-out: the slot's sweep (every process of the user killed)
      // comes after the display stops and before the private folder is removed.
      const home = createDesktopHome(user);
      // The marker names the desktop until the very last cleanup has run.
      const uid = user?.uid ?? process.getuid?.() ?? null;
      const mark = (display: string, pids: number[]) =>
        marker?.add(home.root, { user: user?.name ?? null, uid, display, root: home.root, pids: pids.map((pid) => ({ pid, start: processStart(pid) ?? 0 })) });
      mark('', []);
      if (marker) cleanups.push(() => marker.remove(home.root));
      cleanups.push(() => home.remove());
      if (user) cleanups.push(() => options.slots!.release(user));
      const cookie = writeXauthority(home.xauthority);
      if (user) chownSync(home.xauthority, user.uid, user.gid);
      return await this.startIn(options, home, cookie, user, monitorWidth, height, monitors, cleanups, cleanUp, mark);
    } catch (error) {
      if (user && cleanups.length === 0) await options.slots!.release(user);
      await cleanUp();
      throw error;
    }
  }

  private async startIn(
    options: ProcessProviderOptions,
    home: DesktopHome,
    cookie: Buffer,
    user: DesktopUser | null,
    monitorWidth: number,
    height: number,
    monitors: number,
    cleanups: (() => Promise<void> | void)[],
    cleanUp: () => Promise<void>,
    mark: (display: string, pids: number[]) => void,
  ): Promise<DisplayHandle> {
    const width = monitorWidth * monitors;
    const runAs = (command: string[]) => this.runAs(options, user, command);
    const spawnAs = (command: string[], env: Record<string, string>): ChildProcess => {
      const [file, ...args] = runAs(command);
      return spawn(file!, args, { env, cwd: home.home, stdio: 'ignore' });
    };
    const preEnv = desktopEnv(home, '', options.files.desktopDir);
    const xvfb = await startXvfb(runAs, preEnv, home.xauthority, width, height);
    const { display } = xvfb;
    addDisplayEntry(home.xauthority, cookie, display);
    const env = desktopEnv(home, display, options.files.desktopDir);
    const uid = user?.uid ?? process.getuid?.();
    mark(display, [xvfb.process.pid!]);
    cleanups.push(async () => {
      await terminate(xvfb.process);
      removeDisplayLeftovers(display, uid);
    });
    if (monitors > 1) await defineMonitors(display, env, monitorWidth, height, monitors);

    const end = new FailureSignal((reason) => this.log.error({ display, reason }, 'desktop failed'));
    const exitReason = (code: number | null, signal: NodeJS.Signals | null) => (signal ? `killed by ${signal}` : `exit ${code}`);
    xvfb.process.once('exit', (code, signal) => end.fail(`Xvfb stopped (${exitReason(code, signal)})`));

    const [xsetroot, ...xsetrootArgs] = runAs(['xsetroot', '-solid', BACKGROUND]);
    const background = execFileAsync(xsetroot!, xsetrootArgs, { env });
    const dir = options.files.desktopDir;
    // Openbox reads deskgate's rc.xml and (from XDG_CONFIG_HOME) its empty menu.xml, never ~/.config.
    const wm =
      basename(this.windowManager) === 'openbox'
        ? spawnAs([this.windowManager, '--config-file', join(dir, 'openbox/rc.xml')], { ...env, XDG_CONFIG_HOME: dir, XDG_CONFIG_DIRS: dir })
        : spawnAs([this.windowManager], env);
    wm.once('error', (error) => this.log.error({ err: error, display }, 'window manager failed to start'));
    wm.once('exit', (code, signal) => end.fail(`the window manager stopped (${exitReason(code, signal)})`));
    cleanups.push(() => terminate(wm));
    await background.catch((error: Error) => this.log.warn({ err: error, display }, 'could not set the desktop background'));
    // A window manager that owns the screen sets _NET_SUPPORTING_WM_CHECK on the root.
    await poll(async () => {
      if (end.failed) return true;
      const { stdout } = await execFileAsync('xprop', ['-root', '-display', display, '_NET_SUPPORTING_WM_CHECK'], { env });
      return stdout.includes('window id');
    }, START_TIMEOUT_MS, `openbox to manage ${display}`);
    if (end.failed) throw new Error(`${display}: ${end.failed}`);

    const pids = { xvfb: xvfb.process.pid!, wm: wm.pid!, panel: 0 };
    let panel: ChildProcess | null = null;
    const startPanel = () => {
      panel = spawnAs(['tint2', '-c', join(dir, 'tint2/tint2rc')], env);
      pids.panel = panel.pid ?? 0;
      panel.once('error', (error) => this.log.error({ err: error, display }, 'panel failed to start'));
      panel.once('exit', (code, signal) => {
        if (end.ended) return;
        this.log.warn({ display, code, signal }, 'panel stopped; restarting it');
        setTimeout(() => !end.ended && startPanel(), PANEL_RESTART_MS);
      });
    };
    if (options.panel) {
      startPanel();
      cleanups.push(() => (panel ? terminate(panel) : undefined));
      await poll(() => panelShown(display, env, pids.panel), START_TIMEOUT_MS, `the tint2 panel on ${display}`);
    }

    mark(display, [pids.xvfb, pids.wm, pids.panel].filter(Boolean));
    this.log.info({ display, width, height, monitors, user: user?.name ?? null, ...pids }, 'display started');
    // The helpers: the worker's children, as the desktop user, with the desktop's environment.
    const helper = (command: string[], extra: Record<string, string> = {}, cwd?: string) => {
      const [file, ...args] = runAs(command);
      return { command: file!, args, env: { ...env, ...extra }, ...(cwd ? { cwd } : {}) };
    };
    const { captureBin, runtimeDir } = options.files;
    return {
      display,
      width,
      height,
      pids,
      helpers: {
        capture: helper([captureBin, '--display', display]),
        input: helper([options.python, '-m', 'deskgate_runtime', '--display', display], { PYTHONPATH: runtimeDir, PYTHONDONTWRITEBYTECODE: '1' }, runtimeDir),
      },
      apps: async () =>
        hostApps(new ProcessLauncher(env, { runAs, tasks: () => (uid === undefined ? 0 : processesOf(uid).tasks), maxTasks: options.maxProcesses })),
      // The cookie file is root-readable only besides the desktop user.
      where: () => ({ provider: 'process', desktopUser: user?.name ?? '', xauthority: home.xauthority }),
      onFailure: (listener) => end.onFailure(listener),
      stop: () => end.stop(cleanUp),
    };
  }
}

/** The provider's settings from the worker's configuration: staged files, desktop users. */
export async function optionsFromConfig(config: WorkerConfig, log: Logger): Promise<ProcessProviderOptions> {
  const files = stagedDesktopFiles(config);
  let slots: DesktopSlots | null = null;
  if (process.getuid?.() === 0) {
    const users = await loadDesktopUsers(config.desktopUser);
    if (users.length === 0) {
      throw new Error(`there are no desktop users (${config.desktopUser}-0 …): run scripts/install.sh to create them; desktops never run as root`);
    }
    if (users.length < config.maxDesktops) log.warn({ users: users.length, maxDesktops: config.maxDesktops }, 'fewer desktop users than DESKGATE_MAX_DESKTOPS: run scripts/install.sh with DESKGATE_DESKTOP_USERS');
    slots = new DesktopSlots(users, SLOT_DIR, thisWorker(config.workerId));
  } else {
    log.warn('the worker is not root: desktops run as its own user, without the per-desktop user sandbox');
  }
  return {
    files,
    python: config.python,
    slots,
    maxProcesses: config.desktopMaxProcesses,
    panel: config.desktopPanel,
    // The worker's id as its log names it (main.ts binds it): a second loadConfig() without
    // DESKGATE_WORKER_ID would draw another random one.
    worker: { id: String(log.bindings().worker ?? config.workerId), userPrefix: config.desktopUser },
  };
}

/** Whether the panel's window is listed by the window manager. */
async function panelShown(display: string, env: Record<string, string>, pid: number): Promise<boolean> {
  const { stdout } = await execFileAsync('xprop', ['-root', '-display', display, '_NET_CLIENT_LIST'], { env });
  for (const window of stdout.match(/0x[0-9a-f]+/g) ?? []) {
    const { stdout: owner } = await execFileAsync('xprop', ['-id', window, '-display', display, '_NET_WM_PID'], { env });
    if (Number(/= (\d+)/.exec(owner)?.[1]) === pid) return true;
  }
  return false;
}

/** Splits the screen into RandR monitors; the first takes over Xvfb's only output, "screen". */
async function defineMonitors(display: string, env: Record<string, string>, width: number, height: number, count: number): Promise<void> {
  for (const [index, monitor] of monitorLayout(width, height, count).entries()) {
    await execFileAsync('xrandr', ['-display', display, ...setMonitorArgs(monitor, index === 0 ? 'screen' : 'none')], { env }).catch((error: Error) => {
      throw new Error(`cannot define monitor ${monitor.name} on ${display} with xrandr (is x11-xserver-utils installed?): ${error.message}`);
    });
  }
}
