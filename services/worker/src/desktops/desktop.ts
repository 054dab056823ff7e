/**
 * One desktop: a display plus its two long-lived helpers (capture and input) and the
 * executor over them. Built once, used for every action of the session it serves. The helpers
 * run as the desktop's own user, with the desktop's environment (nothing of the worker's).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config.ts';
import { LinuxExecutor } from '../executor/linux-executor.ts';
import { CaptureClient } from '../helpers/capture-client.ts';
import { InputClient } from '../helpers/input-client.ts';
import { ProcessLauncher } from '../launch/launcher.ts';
import type { DesktopProvider, DisplayHandle } from './provider.ts';

/** The files the helpers run from, readable by desktop users (see desktop-files.ts). */
export interface HelperFiles {
  captureBin: string;
  runtimeDir: string;
}

export class Desktop {
  readonly id = `d-${randomUUID()}`;
  readonly executor: LinuxExecutor;

  /** Apps started with open_application; they end with the desktop. */
  readonly launcher: ProcessLauncher;

  /** Why the desktop broke (its window manager or X server stopped), once it has. */
  failure: string | null = null;
  private readonly failureListeners: ((reason: string) => void)[] = [];
  private stopped: Promise<void> | null = null;

  private constructor(
    readonly handle: DisplayHandle,
    readonly capture: CaptureClient,
    readonly input: InputClient,
    maxProcesses: number,
  ) {
    this.launcher = new ProcessLauncher(handle.env, { runAs: handle.runAs, tasks: handle.tasks, maxTasks: maxProcesses });
    this.executor = new LinuxExecutor(capture, input, this.launcher, undefined, () => [handle.pids.panel]);
    handle.onFailure((reason) => {
      this.failure ??= reason;
      for (const listener of this.failureListeners.splice(0)) listener(reason);
    });
  }

  static async start(provider: DesktopProvider, config: WorkerConfig, files: HelperFiles, log: Logger): Promise<Desktop> {
    const handle = await provider.start({ ...config.desktopSize, monitors: config.desktopMonitors });
    const spec = (command: string[], env: Record<string, string>, cwd?: string) => {
      const [file, ...args] = handle.runAs(command);
      return { command: file!, args, env: { ...handle.env, ...env }, ...(cwd ? { cwd } : {}) };
    };
    const capture = new CaptureClient(spec([files.captureBin, '--display', handle.display], {}), log);
    const input = new InputClient(
      spec([config.python, '-m', 'deskgate_runtime', '--display', handle.display], { PYTHONPATH: files.runtimeDir, PYTHONDONTWRITEBYTECODE: '1' }, files.runtimeDir),
      log,
    );
    const desktop = new Desktop(handle, capture, input, config.desktopMaxProcesses);
    capture.start();
    input.start();
    try {
      // Xvfb, the window manager and the panel answered in provider.start; the desktop is
      // ready when both helpers answer too.
      await Promise.all([capture.call({ op: 'ping' }), input.call('check')]);
      if (desktop.failure) throw new Error(desktop.failure);
    } catch (error) {
      await desktop.stop();
      throw new Error(`desktop ${handle.display} did not start: ${error instanceof Error ? error.message : error}`);
    }
    return desktop;
  }

  /** Called once if the desktop breaks (at once if it already has). */
  onFailure(listener: (reason: string) => void): void {
    if (this.failure) listener(this.failure);
    else this.failureListeners.push(listener);
  }

  /** What the desktop's Redis record shows of its processes (tests and operators read it). */
  get pids() {
    return {
      capturePid: this.capture.pid ?? 0,
      inputPid: this.input.pid ?? 0,
      xvfbPid: this.handle.pids.xvfb,
      wmPid: this.handle.pids.wm,
      panelPid: this.handle.pids.panel,
      desktopUser: this.handle.user ?? '',
      // The path of the display's cookie file (root-readable only besides the desktop user).
      xauthority: this.handle.env.XAUTHORITY ?? '',
    };
  }

  /** Apps first, while their display is still there to close cleanly on; safe to call twice. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      await this.launcher.stopAll();
      await Promise.all([this.capture.stop(), this.input.stop()]);
      await this.handle.stop();
    })();
    return this.stopped;
  }
}
