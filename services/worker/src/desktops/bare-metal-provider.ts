/**
 * Bare-metal desktops (docs/macos.md): the one desktop of the machine the worker runs on — an
 * existing X display on Linux, the logged-in console session on a Mac — driven through helpers
 * that are already running there. Nothing is started but connections: no Xvfb, no window
 * manager, no desktop user. The helpers are reached over the Unix sockets they listen on
 * (`deskgate-capture --listen`, `deskgate_runtime --listen`, `deskgate-macos-helper --listen`)
 * or, when a command is configured instead, run as the worker's children.
 *
 * One desktop, never torn down: a released session's desktop is *reset*, not destroyed (the
 * console belongs to the person logged in). The reset: every key and button the session held
 * is released, the clipboard is emptied, and the apps the session started are asked to quit
 * (SIGTERM). What it cannot undo — windows opened in apps that were already running, files,
 * a browser's signed-in state — is the reason a bare-metal host serves one trusted tenant
 * (docs/macos.md, "What a reset covers").
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { PLATFORMS, type Platform } from '@deskgate/dispatch';
import { CaptureClient } from '../helpers/capture-client.ts';
import type { HelperTransport } from '../helpers/helper-process.ts';
import type { InputClient } from '../helpers/input-client.ts';
import { bareMetalApps } from './bare-metal-apps.ts';
import { FailureSignal } from './failure-signal.ts';
import type { DesktopProvider, DisplayHandle } from './provider.ts';

const absolute = z.string().regex(/^\/[^\0]*$/, 'an absolute path');
const argv = z
  .string()
  .transform((text, ctx) => {
    try {
      const value: unknown = JSON.parse(text);
      if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string' && part !== '')) return value as string[];
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'a command is a JSON array of strings, e.g. ["/usr/local/bin/deskgate-capture","--display",":0"]' });
    return z.NEVER;
  });

const settingsSchema = z.object({
  DESKGATE_PLATFORM: z.enum(PLATFORMS).default('linux'),
  /** The X display the helpers drive (Linux); a Mac has one console and ignores it. */
  DESKGATE_BARE_METAL_DISPLAY: z.string().regex(/^[A-Za-z0-9.:_/-]{1,100}$/, 'a display name, e.g. :0').default(':0'),
  DESKGATE_BARE_METAL_CAPTURE_SOCKET: absolute.optional(),
  DESKGATE_BARE_METAL_INPUT_SOCKET: absolute.optional(),
  DESKGATE_BARE_METAL_CAPTURE_COMMAND: argv.optional(),
  DESKGATE_BARE_METAL_INPUT_COMMAND: argv.optional(),
});

export interface BareMetalSettings {
  platform: Platform;
  display: string;
  helpers: { capture: HelperTransport; input: HelperTransport };
}

/** The bare-metal settings from the environment; a missing or doubled helper setting is named. */
export function bareMetalSettings(env: NodeJS.ProcessEnv = process.env): BareMetalSettings {
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid bare-metal worker configuration — ${problems.join('; ')}`);
  }
  const c = parsed.data;
  const transport = (name: 'CAPTURE' | 'INPUT', socket: string | undefined, command: string[] | undefined): HelperTransport => {
    if (socket && command) throw new Error(`Invalid bare-metal worker configuration — set DESKGATE_BARE_METAL_${name}_SOCKET or DESKGATE_BARE_METAL_${name}_COMMAND, not both`);
    if (socket) return { socket };
    if (command) return { command: command[0]!, args: command.slice(1), env: helperEnv(c.DESKGATE_BARE_METAL_DISPLAY) };
    throw new Error(`Invalid bare-metal worker configuration — DESKGATE_BARE_METAL_${name}_SOCKET (the socket the helper listens on) or DESKGATE_BARE_METAL_${name}_COMMAND is required`);
  };
  return {
    platform: c.DESKGATE_PLATFORM,
    display: c.DESKGATE_BARE_METAL_DISPLAY,
    helpers: {
      capture: transport('CAPTURE', c.DESKGATE_BARE_METAL_CAPTURE_SOCKET, c.DESKGATE_BARE_METAL_CAPTURE_COMMAND),
      input: transport('INPUT', c.DESKGATE_BARE_METAL_INPUT_SOCKET, c.DESKGATE_BARE_METAL_INPUT_COMMAND),
    },
  };
}

/** A helper the worker spawns gets the display and a plain environment, never the worker's secrets (REDIS_URL …). */
function helperEnv(display: string): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'XAUTHORITY', 'TMPDIR'];
  const env: NodeJS.ProcessEnv = { DISPLAY: display };
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** What a bare-metal worker's desktops can do, advertised in its capacity record. */
export function bareMetalCapabilities(platform: Platform): string[] {
  const common = ['bare_metal', 'console_session', 'capture', 'input', 'clipboard', 'launch'];
  return platform === 'macos' ? [...common, 'screencapturekit', 'cgevent'] : [...common, 'x11', 'xtest', 'settle'];
}

export class BareMetalDesktopProvider implements DesktopProvider {
  readonly kind = 'bare-metal' as const;
  /** The one desktop's handle while a Desktop holds it: a second start is refused, never a second console. */
  private inUse = false;

  constructor(
    private readonly settings: BareMetalSettings,
    private readonly log: Logger,
  ) {}

  get platform(): Platform {
    return this.settings.platform;
  }

  /** The helpers answer (the capture helper's `info`), or the worker does not start: a clear error naming the helper. */
  async prepare(): Promise<void> {
    await this.screen();
  }

  /** The screen's size, from the capture helper (one short connection, closed before the desktop's own). */
  private async screen(): Promise<{ width: number; height: number }> {
    const probe = new CaptureClient(this.settings.helpers.capture, this.log);
    probe.start();
    try {
      const { header } = await Promise.race([
        probe.call({ op: 'info' }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 10 s')), 10_000).unref()),
      ]);
      return { width: Number(header.width), height: Number(header.height) };
    } catch (error) {
      const where = 'socket' in this.settings.helpers.capture ? `on ${this.settings.helpers.capture.socket}` : `(${this.settings.helpers.capture.command})`;
      throw new Error(`the bare-metal capture helper ${where} did not answer: ${error instanceof Error ? error.message : error}`);
    } finally {
      await probe.stop();
    }
  }

  /** The size asked for is ignored: the console is the size it is. */
  async start(): Promise<DisplayHandle> {
    if (this.inUse) throw new Error('the bare-metal desktop is already in use: a bare-metal worker has exactly one desktop');
    this.inUse = true;
    try {
      const { width, height } = await this.screen();
      const { platform, display, helpers } = this.settings;
      this.log.info({ display, width, height, platform }, 'bare-metal desktop connected');
      const end = new FailureSignal();
      return {
        display,
        width,
        height,
        platform,
        helpers,
        // Nothing of the console is the desktop's own process: every window is an app's.
        pids: { xvfb: 0, wm: 0, panel: 0 },
        apps: async (input: InputClient) => bareMetalApps(input, platform, this.log),
        where: () => ({ provider: 'bare-metal', platform, display }),
        // The console does not fail as a whole: a helper that dies is reconnected by its client.
        onFailure: (listener) => end.onFailure(listener),
        // Reset, never teardown: the apps' reset ran first (Desktop.stop); the console stays.
        stop: () =>
          end.stop(async () => {
            this.inUse = false;
          }),
      };
    } catch (error) {
      this.inUse = false;
      throw error;
    }
  }
}
