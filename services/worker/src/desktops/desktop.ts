/**
 * One desktop: a display plus its two long-lived helpers (capture and input) and the
 * executor over them. Built once, used for every action of the session it serves.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config.ts';
import { LinuxExecutor } from '../executor/linux-executor.ts';
import { CaptureClient } from '../helpers/capture-client.ts';
import { InputClient } from '../helpers/input-client.ts';
import { launchEnv, ProcessLauncher } from '../launch/launcher.ts';
import type { DesktopProvider, DisplayHandle } from './provider.ts';

export class Desktop {
  readonly id = `d-${randomUUID()}`;
  readonly executor: LinuxExecutor;

  /** Apps started with open_application; they end with the desktop. */
  readonly launcher: ProcessLauncher;

  private constructor(
    readonly handle: DisplayHandle,
    readonly capture: CaptureClient,
    readonly input: InputClient,
  ) {
    this.launcher = new ProcessLauncher(launchEnv(process.env, { DISPLAY: handle.display, ...handle.env }));
    this.executor = new LinuxExecutor(capture, input, this.launcher);
  }

  static async start(provider: DesktopProvider, config: WorkerConfig, log: Logger): Promise<Desktop> {
    const handle = await provider.start({ ...config.desktopSize, monitors: config.desktopMonitors });
    const env = { ...process.env, ...handle.env };
    const capture = new CaptureClient({ command: config.captureBin, args: ['--display', handle.display], env }, log);
    const input = new InputClient(
      { command: config.python, args: ['-m', 'deskgate_runtime', '--display', handle.display], env: { ...env, PYTHONPATH: config.runtimeDir }, cwd: config.runtimeDir },
      log,
    );
    const desktop = new Desktop(handle, capture, input);
    capture.start();
    input.start();
    try {
      // Both helpers answer before the desktop counts as ready.
      await Promise.all([capture.call({ op: 'ping' }), input.call('check')]);
    } catch (error) {
      await desktop.stop();
      throw new Error(`desktop ${handle.display} helpers did not start: ${error instanceof Error ? error.message : error}`);
    }
    return desktop;
  }

  get helperPids() {
    return { capturePid: this.capture.pid ?? 0, inputPid: this.input.pid ?? 0 };
  }

  async stop(): Promise<void> {
    // Apps first, while their display is still there to close cleanly on.
    await this.launcher.stopAll();
    await Promise.all([this.capture.stop(), this.input.stop()]);
    await this.handle.stop();
  }
}
