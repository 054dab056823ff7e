/**
 * One desktop: a display plus its two long-lived helpers (capture and input), its apps and
 * the executor over them. Built once, used for every action of the session it serves. The
 * helpers run as the desktop's own user, with the desktop's environment (nothing of the
 * worker's): the worker's children on a process desktop, inside the container on a container
 * desktop.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config.ts';
import { LinuxExecutor } from '../executor/linux-executor.ts';
import { CaptureClient } from '../helpers/capture-client.ts';
import { InputClient } from '../helpers/input-client.ts';
import type { DesktopApps } from '../launch/desktop-apps.ts';
import type { DesktopProvider, DisplayHandle } from './provider.ts';

export class Desktop {
  readonly id = `d-${randomUUID()}`;
  readonly executor: LinuxExecutor;

  /** Why the desktop broke (its window manager or X server stopped), once it has. */
  failure: string | null = null;
  private readonly failureListeners: ((reason: string) => void)[] = [];
  private stopped: Promise<void> | null = null;

  private constructor(
    readonly handle: DisplayHandle,
    readonly capture: CaptureClient,
    readonly input: InputClient,
    /** Apps started with open_application end with the desktop. */
    readonly apps: DesktopApps,
  ) {
    // The protocol is the same on every platform; the platform picks the gates' shortcut lists.
    this.executor = Object.assign(new LinuxExecutor(capture, input, apps, () => [handle.pids.panel]), { platform: handle.platform ?? 'linux' });
    handle.onFailure((reason) => {
      this.failure ??= reason;
      for (const listener of this.failureListeners.splice(0)) listener(reason);
    });
  }

  /** `stopping`: see DesktopProvider.start. */
  static async start(provider: DesktopProvider, config: WorkerConfig, log: Logger, stopping?: AbortSignal): Promise<Desktop> {
    const handle = await provider.start({ ...config.desktopSize, monitors: config.desktopMonitors }, stopping);
    const capture = new CaptureClient(handle.helpers.capture, log);
    const input = new InputClient(handle.helpers.input, log);
    let desktop: Desktop | undefined;
    capture.start();
    input.start();
    try {
      // Xvfb, the window manager and the panel answered in provider.start; the desktop is
      // ready when both helpers answer too (and a container's apps are read).
      const [, , apps] = await Promise.all([capture.call({ op: 'ping' }), input.call('check'), handle.apps(input)]);
      desktop = new Desktop(handle, capture, input, apps);
      if (desktop.failure) throw new Error(desktop.failure);
    } catch (error) {
      if (desktop) await desktop.stop();
      else await Promise.all([capture.stop(), input.stop()]).finally(() => handle.stop());
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
      ...this.handle.where(),
    };
  }

  /** Apps first, while their display is still there to close cleanly on; safe to call twice. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      await this.apps.stopAll();
      await Promise.all([this.capture.stop(), this.input.stop()]);
      await this.handle.stop();
    })();
    return this.stopped;
  }
}
