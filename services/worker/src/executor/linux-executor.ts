/**
 * The core's Executor on an X11 desktop: pixels through the capture helper, input and window
 * facts through the input runtime. Helper failures become ToolErrors with a kind the agent
 * can act on.
 */
import {
  ToolError,
  type AppInfo,
  type CaptureRequest,
  type CapturedImage,
  type Executor,
  type LaunchSpec,
  type Monitor,
  type MouseButton,
  type Point,
  type WindowInfo,
  type ScrollDirection,
} from '@deskgate/computer-use';
import type { CaptureClient } from '../helpers/capture-client.ts';
import { HelperError } from '../helpers/helper-process.ts';
import type { InputClient } from '../helpers/input-client.ts';
import { findLauncher } from '../launch/desktop-entries.ts';
import type { ProcessLauncher } from '../launch/launcher.ts';

async function viaHelper<T>(what: string, call: () => Promise<T>, fallbackKind: 'executor_failed' | 'capture_failed'): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HelperError) {
      const kind = error.kind === 'bad_args' || error.kind === 'display_error' ? error.kind : fallbackKind;
      throw new ToolError(kind, kind === 'bad_args' ? error.message : `${what} failed: ${error.message}`);
    }
    throw error;
  }
}

const LAYOUT_TTL_MS = 2000;

interface RawApp {
  window: number | null;
  title: string | null;
  wm_class: [string, string] | null;
  pid: number | null;
  exe: string | null;
}

type RawWindow = RawApp & { id: number; x: number; y: number; width: number; height: number; mapped: boolean };

const toWindow = (raw: RawWindow): WindowInfo => ({
  ...toApp({ ...raw, window: raw.id }),
  window: raw.id,
  x: raw.x,
  y: raw.y,
  width: raw.width,
  height: raw.height,
  mapped: raw.mapped,
});

const toApp = (raw: RawApp): AppInfo => ({ window: raw.window, title: raw.title, wmClass: raw.wm_class, pid: raw.pid, exe: raw.exe });

export class LinuxExecutor implements Executor {
  private layout: { at: number; monitors: Monitor[] } | null = null;

  /** Milliseconds spent in helpers since the last takeTimings(), for the timing breakdown. */
  private timings: Record<string, number> = {};

  takeTimings(): Record<string, number> {
    const taken = this.timings;
    this.timings = {};
    return taken;
  }

  constructor(
    private readonly capture_: CaptureClient,
    private readonly input: InputClient,
    /** Starts apps on this desktop's display (open_application) and ends them with it. */
    private readonly launcher: ProcessLauncher,
  ) {}

  private async input_<T = Record<string, unknown>>(op: string, params: Record<string, unknown> = {}): Promise<T> {
    const started = performance.now();
    try {
      return await viaHelper(op, () => this.input.call<T>(op, params), 'executor_failed');
    } finally {
      this.timings.inputMs = (this.timings.inputMs ?? 0) + performance.now() - started;
    }
  }

  async monitors(): Promise<Monitor[]> {
    // Every screenshot needs the layout; it changes only when someone reconfigures RandR, so
    // a short-lived copy saves a helper round trip per screenshot.
    if (this.layout && performance.now() - this.layout.at < LAYOUT_TTL_MS) return this.layout.monitors;
    const { header } = await viaHelper('reading the display layout', () => this.capture_.call({ op: 'info' }), 'capture_failed');
    this.layout = { at: performance.now(), monitors: header.monitors as Monitor[] };
    return this.layout.monitors;
  }

  async capture(request: CaptureRequest): Promise<CapturedImage> {
    const started = performance.now();
    const { header, payload } = await viaHelper(
      'screen capture',
      () =>
        this.capture_.call({
          op: 'capture',
          region: request.region,
          scale_to: request.scaleTo,
          format: request.format,
          quality: request.quality,
          ...(request.keep ? { keep: request.keep } : {}),
          ...(request.mask?.length ? { mask: request.mask } : {}),
        }),
      'capture_failed',
    );
    const timings: Record<string, number> = { helperRoundTripMs: performance.now() - started };
    for (const field of ['capture_ms', 'convert_ms', 'scale_ms', 'encode_ms']) {
      if (typeof header[field] === 'number') timings[field.replace('_ms', 'Ms')] = header[field] as number;
    }
    Object.assign(this.timings, timings);
    return {
      data: payload,
      width: header.width as number,
      height: header.height as number,
      mimeType: request.format === 'png' ? 'image/png' : 'image/jpeg',
      timings,
    };
  }

  async move(to: Point) {
    await this.input_('move', { x: to.x, y: to.y });
  }
  async click(at: Point, button: MouseButton, count: 1 | 2 | 3, modifiers: string[]) {
    await this.input_('click', { x: at.x, y: at.y, button, count, modifiers });
  }
  async mouseDown(button: MouseButton) {
    await this.input_('mouse_down', { button });
  }
  async mouseUp(button: MouseButton) {
    await this.input_('mouse_up', { button });
  }
  async drag(from: Point | null, to: Point, modifiers: string[]) {
    await this.input_('drag', { from: from ? [from.x, from.y] : null, to: [to.x, to.y], modifiers });
  }
  async scroll(at: Point, direction: ScrollDirection, amount: number, modifiers: string[]) {
    await this.input_('scroll', { x: at.x, y: at.y, direction, amount, modifiers });
  }
  async key(chord: string, repeat: number) {
    await this.input_('key', { keys: chord, repeat });
  }
  async type(text: string) {
    await this.input_('type', { text });
  }
  async holdKey(chord: string, seconds: number) {
    await this.input_('hold_key', { keys: chord, duration: seconds });
  }
  async cursorPosition(): Promise<Point> {
    return this.input_<Point>('cursor_position');
  }
  async frontmostApp(): Promise<AppInfo> {
    return toApp(await this.input_<RawApp>('frontmost_app'));
  }
  async listWindows(): Promise<WindowInfo[]> {
    return (await this.input_<{ windows: RawWindow[] }>('list_windows')).windows.map(toWindow);
  }
  async gateFacts() {
    const facts = await this.input_<{ windows: RawWindow[]; frontmost: RawApp; cursor: Point }>('gate_facts');
    return { windows: facts.windows.map(toWindow), frontmost: toApp(facts.frontmost), cursor: facts.cursor };
  }
  async readClipboard(): Promise<string | null> {
    return (await this.input_<{ text: string | null }>('clipboard_read')).text;
  }
  async writeClipboard(text: string) {
    await this.input_('clipboard_write', { text });
  }
  async iconify(window: number) {
    await this.input_('iconify', { window });
  }
  async activate(window: number) {
    await this.input_('activate', { window });
  }
  async findLauncher(app: string): Promise<LaunchSpec | null> {
    return findLauncher(app);
  }
  async launch(command: string[], env?: Record<string, string>) {
    try {
      return await this.launcher.launch(command, env);
    } catch (error) {
      throw new ToolError('executor_failed', error instanceof Error ? error.message : String(error));
    }
  }
  async unchangedSince(slot: string, at: Point): Promise<boolean> {
    const started = performance.now();
    try {
      const { header } = await viaHelper('the staleness check', () => this.capture_.call({ op: 'compare', slot, x: at.x, y: at.y, radius: 4 }), 'capture_failed');
      return header.same === true;
    } catch (error) {
      // The kept frame is gone (the capture helper restarted): the screenshot can't be trusted.
      if (error instanceof ToolError && /no snapshot/i.test(error.message)) return false;
      throw error;
    } finally {
      this.timings.compareMs = performance.now() - started;
    }
  }
}
