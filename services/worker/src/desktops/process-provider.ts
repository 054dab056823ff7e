/**
 * The default desktop provider: an Xvfb server and a small window manager as local child
 * processes. Xvfb picks a free display number itself (-displayfd), so concurrent workers and
 * test runs never collide. Several monitors are one wide screen split with RandR monitors
 * (see monitor-layout.ts).
 */
import { spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { execFileAsync, poll, terminate } from './child-process.ts';
import { monitorLayout, setMonitorArgs } from './monitor-layout.ts';
import type { DesktopProvider, DisplayHandle } from './provider.ts';

const START_TIMEOUT_MS = 10_000;

export class ProcessDesktopProvider implements DesktopProvider {
  readonly kind = 'process';

  constructor(
    private readonly windowManager: string,
    private readonly log: Logger,
  ) {}

  async start({ width: monitorWidth, height, monitors = 1 }: { width: number; height: number; monitors?: number }): Promise<DisplayHandle> {
    const width = monitorWidth * monitors;
    const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-noreset', '+extension', 'RANDR'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    xvfb.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    const number = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`Xvfb did not report a display within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) {
          clearTimeout(timer);
          resolve(out.trim());
        }
      });
      xvfb.once('error', (error) => reject(new Error(`cannot start Xvfb: ${error.message} (is the xvfb package installed?)`)));
      xvfb.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}: ${stderr.trim()}`)));
    }).catch(async (error: Error) => {
      await terminate(xvfb);
      throw error;
    });
    const display = `:${number}`;
    const env = { DISPLAY: display };
    if (monitors > 1) {
      try {
        await defineMonitors(display, monitorWidth, height, monitors);
      } catch (error) {
        await terminate(xvfb);
        throw error;
      }
    }
    const wm = spawn(this.windowManager, [], { env: { ...process.env, ...env }, stdio: 'ignore' });
    wm.once('error', (error) => this.log.error({ err: error, display }, 'window manager failed to start'));
    const stop = async () => {
      await terminate(wm);
      await terminate(xvfb);
    };
    try {
      // A window manager that owns the screen sets _NET_SUPPORTING_WM_CHECK on the root.
      await poll(async () => {
        const { stdout } = await execFileAsync('xprop', ['-root', '-display', display, '_NET_SUPPORTING_WM_CHECK']);
        return stdout.includes('window id');
      }, START_TIMEOUT_MS, `${this.windowManager} to manage ${display}`);
    } catch (error) {
      await stop();
      throw error;
    }
    this.log.info({ display, width, height, monitors, xvfbPid: xvfb.pid, wmPid: wm.pid }, 'display started');
    return { display, width, height, env, stop };
  }
}

/** Splits the screen into RandR monitors; the first takes over Xvfb's only output, "screen". */
async function defineMonitors(display: string, width: number, height: number, count: number): Promise<void> {
  for (const [index, monitor] of monitorLayout(width, height, count).entries()) {
    await execFileAsync('xrandr', ['-display', display, ...setMonitorArgs(monitor, index === 0 ? 'screen' : 'none')]).catch((error: Error) => {
      throw new Error(`cannot define monitor ${monitor.name} on ${display} with xrandr (is x11-xserver-utils installed?): ${error.message}`);
    });
  }
}
