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
  type GateFacts,
  type InputGuard,
  type KeysymChord,
  type LaunchSpec,
  type Monitor,
  type MouseButton,
  type Point,
  type WindowInfo,
  type ScrollDirection,
  type SettleRequest,
  type SettleResult,
  type WindowSurface,
  type WindowSurfaceKind,
} from '@deskgate/computer-use';
import { SETTLE_MAX_MS_LIMIT, SETTLE_QUIET_RANGE, toolErrorFor, type HelperName, type InputOp } from '@deskgate/helper-protocol';
import type { CaptureClient } from '../helpers/capture-client.ts';
import { HelperError } from '../helpers/helper-process.ts';
import type { InputClient } from '../helpers/input-client.ts';
import type { DesktopApps } from '../launch/desktop-apps.ts';

/** A helper's error as the tool error the agent gets: one table for both helpers (@deskgate/helper-protocol). */
async function viaHelper<T>(what: string, call: () => Promise<T>, helper: HelperName): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HelperError) {
      const { kind, message } = toolErrorFor(helper, error.kind, error.message, what);
      throw new ToolError(kind, message);
    }
    throw error;
  }
}

const LAYOUT_TTL_MS = 2000;

const GUARD_FAILED = 'The window under the target (or holding the keyboard focus) changed while the action was checked';

/**
 * The input runtime refused input because the guard no longer held (guard_failed): nothing was
 * sent, or, for text and key sequences sent in chunks, only the chunks before the failed check.
 */
function guardRefusal(error: unknown): never {
  if (!(error instanceof HelperError) || error.kind !== 'guard_failed') throw error;
  const typed = /(\d+) of (\d+) characters were typed/.exec(error.message);
  const pressed = /(\d+) of (\d+) chords were pressed/.exec(error.message);
  const sent = typed
    ? `some of the text was typed (the first ${typed[1]} of ${typed[2]} characters), the rest was not`
    : pressed
      ? `some of the keys were pressed (the first ${pressed[1]} of ${pressed[2]} chords), the rest were not`
      : 'nothing was sent';
  throw new ToolError('stale_screenshot', `${GUARD_FAILED}; ${sent}. Take a new screenshot.`);
}

/** The capture helper's output formats (its answer's `format`) as MIME types. */
const MIME_TYPES: Record<string, CapturedImage['mimeType']> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** What the input runtime answers (runtime/deskgate_runtime, docs/input-runtime.md). */
interface RawApp {
  window: number | null;
  title: string | null;
  wm_class: [string, string] | null;
  pid: number | null;
  exe: string | null;
}

type RawWindow = Omit<RawApp, 'window'> & { id: number; x: number; y: number; width: number; height: number; mapped: boolean };

interface RawSurface {
  kind: WindowSurfaceKind;
  window: number | null;
  app: RawApp | null;
}

/** The input guard as the input runtime takes it: `{"focus": wid, "at": [[x, y, kind, wid], ...]}`. */
interface RawGuard {
  focus?: number;
  at?: [number, number, WindowSurfaceKind, number | null][];
}

interface RawGateFacts {
  windows: RawWindow[];
  focus: RawSurface;
  at: RawSurface[];
  cursor: Point;
  under_pointer: RawSurface;
  buttons: MouseButton[];
}



/** How long a key is held down at most (hold_key), whatever the caller asks. */
const MAX_HOLD_MS = 2 ** 31 - 1;

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
    /** The desktop's installed apps (to name windows) and the ones open_application starts. */
    private readonly apps: DesktopApps,
    /** The desktop's own processes (its panel): their windows are part of the desktop, not apps. */
    private readonly furniturePids: () => readonly number[] = () => [],
  ) {}

  private toApp(raw: RawApp): AppInfo {
    return { window: raw.window, title: raw.title, wmClass: raw.wm_class, pid: raw.pid, exe: raw.exe, desktopId: this.apps.index.idFor(raw.wm_class) };
  }

  private toWindow(raw: RawWindow): WindowInfo {
    const role = raw.pid !== null && this.furniturePids().includes(raw.pid) ? 'desktop' : 'app';
    return { ...this.toApp({ ...raw, window: raw.id }), window: raw.id, x: raw.x, y: raw.y, width: raw.width, height: raw.height, mapped: raw.mapped, role };
  }

  private toSurface(raw: RawSurface): WindowSurface {
    return { kind: raw.kind, window: raw.window, app: raw.app ? this.toApp(raw.app) : null };
  }

  private async input_<T = Record<string, unknown>>(op: InputOp, params: Record<string, unknown> = {}): Promise<T> {
    const started = performance.now();
    try {
      return await viaHelper(op, () => this.input.call<T>(op, params).catch(guardRefusal), 'input');
    } finally {
      this.timings.inputMs = (this.timings.inputMs ?? 0) + performance.now() - started;
    }
  }

  async monitors(): Promise<Monitor[]> {
    // Every screenshot needs the layout; it changes only when someone reconfigures RandR, so
    // a short-lived copy saves a helper round trip per screenshot.
    if (this.layout && performance.now() - this.layout.at < LAYOUT_TTL_MS) return this.layout.monitors;
    const { header } = await viaHelper('reading the display layout', () => this.capture_.call({ op: 'info' }), 'capture');
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
      'capture',
    );
    // The helper names the format it produced (for 'auto', the one it chose).
    const mimeType = MIME_TYPES[String(header.format)];
    if (!mimeType) throw new ToolError('capture_failed', `screen capture failed: the capture helper answered format ${String(header.format)}`);
    const timings: Record<string, number> = { helperRoundTripMs: performance.now() - started };
    for (const field of ['capture_ms', 'convert_ms', 'scale_ms', 'encode_ms']) {
      if (typeof header[field] === 'number') timings[field.replace('_ms', 'Ms')] = header[field] as number;
    }
    Object.assign(this.timings, timings);
    return {
      data: payload,
      width: header.width as number,
      height: header.height as number,
      mimeType,
      timings,
    };
  }

  async waitForSettle(request: SettleRequest, signal: AbortSignal): Promise<SettleResult> {
    const { quietMs, maxMs } = request;
    if (!Number.isInteger(quietMs) || quietMs < SETTLE_QUIET_RANGE[0] || quietMs > SETTLE_QUIET_RANGE[1]) {
      throw new ToolError('bad_args', `quietMs must be an integer from ${SETTLE_QUIET_RANGE[0]} to ${SETTLE_QUIET_RANGE[1]}, got ${quietMs}`);
    }
    if (!Number.isInteger(maxMs) || maxMs < quietMs || maxMs > SETTLE_MAX_MS_LIMIT) {
      throw new ToolError('bad_args', `maxMs must be an integer from quietMs (${quietMs}) to ${SETTLE_MAX_MS_LIMIT}, got ${maxMs}`);
    }
    if (signal.aborted) throw stopped(signal);
    const started = performance.now();
    try {
      const reaction = { reactQuietMs: request.reactQuietMs, sinceMs: request.sinceMs === undefined ? undefined : Math.min(Math.max(0, Math.round(request.sinceMs)), SETTLE_MAX_MS_LIMIT) };
      const header = await viaHelper('waiting for the screen to settle', () => this.capture_.settle(quietMs, maxMs, signal, reaction), 'capture');
      return { settled: header.settled === true, waitedMs: header.waited_ms as number };
    } catch (error) {
      if (signal.aborted) throw stopped(signal);
      throw error;
    } finally {
      this.timings.settleMs = performance.now() - started;
    }
  }

  /** The gates' guard, for the input runtime to re-check as it sends (none: nothing to check). */
  private guardParam(): { guard?: RawGuard } {
    const guard = this.inputGuard;
    const raw: RawGuard = {};
    if (guard?.focus !== undefined) raw.focus = guard.focus;
    if (guard?.at?.length) raw.at = guard.at.map(({ point, kind, window }) => [point.x, point.y, kind, window]);
    return raw.focus !== undefined || raw.at ? { guard: raw } : {};
  }

  async move(to: Point) {
    await this.input_('move', { x: to.x, y: to.y, ...this.guardParam() });
  }
  async click(at: Point, button: MouseButton, count: 1 | 2 | 3, modifiers: string[]) {
    await this.input_('click', { x: at.x, y: at.y, button, count, modifiers, ...this.guardParam() });
  }
  async mouseDown(button: MouseButton) {
    await this.input_('mouse_down', { button, ...this.guardParam() });
  }
  async mouseUp(button: MouseButton) {
    await this.input_('mouse_up', { button, ...this.guardParam() });
  }
  async drag(from: Point | null, to: Point, modifiers: string[]) {
    await this.input_('drag', { from: from ? [from.x, from.y] : null, to: [to.x, to.y], modifiers, ...this.guardParam() });
  }
  async scroll(at: Point, direction: ScrollDirection, amount: number, modifiers: string[]) {
    await this.input_('scroll', { x: at.x, y: at.y, direction, amount, modifiers, ...this.guardParam() });
  }
  async key(chords: KeysymChord[], repeat: number) {
    await this.input_('key', { chords, repeat, ...this.guardParam() });
  }
  async type(text: string) {
    await this.input_('type', { text, ...this.guardParam() });
  }
  async holdKey(chords: KeysymChord[], seconds: number, signal: AbortSignal) {
    if (signal.aborted) throw stopped(signal);
    try {
      await this.input_('key_down', { chords, ...this.guardParam() });
    } catch (error) {
      // An X error may come after some keys went down: let nothing stay pressed.
      await this.input_('key_up', { chords }).catch(() => undefined);
      throw error;
    }
    try {
      await holdFor(Math.min(seconds * 1000, MAX_HOLD_MS), signal);
    } finally {
      // Always released, at once when the call is stopped.
      await this.input_('key_up', { chords });
    }
  }
  async cursorPosition(): Promise<Point> {
    return this.input_<Point>('cursor_position');
  }
  async frontmostApp(): Promise<AppInfo> {
    const [raw] = await Promise.all([this.input_<RawApp>('frontmost_app'), this.apps.index.ready()]);
    return this.toApp(raw);
  }
  async listWindows(): Promise<WindowInfo[]> {
    const [raw] = await Promise.all([this.input_<{ windows: RawWindow[] }>('list_windows'), this.apps.index.ready()]);
    return raw.windows.map((window) => this.toWindow(window));
  }
  /** The gates' guard for this call's input, sent with every input op but key_up (releasing is always safe). */
  private inputGuard: InputGuard | null = null;
  guard(guard: InputGuard | null): void {
    this.inputGuard = guard;
  }
  async gateFacts(points: Point[]): Promise<GateFacts> {
    const [raw] = await Promise.all([this.input_<RawGateFacts>('gate_facts', { points: points.map((p) => [p.x, p.y]) }), this.apps.index.ready()]);
    return {
      windows: raw.windows.map((window) => this.toWindow(window)),
      focus: this.toSurface(raw.focus),
      at: raw.at.map((surface) => this.toSurface(surface)),
      cursor: raw.cursor,
      underPointer: this.toSurface(raw.under_pointer),
      buttonsHeld: raw.buttons,
    };
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
    return this.apps.find(app);
  }
  async launch(command: string[], env?: Record<string, string>) {
    try {
      return await this.apps.launch(command, env);
    } catch (error) {
      // The launcher's own refusals (no entry, the process cap) already say what to do.
      if (error instanceof ToolError) throw error;
      throw new ToolError('executor_failed', error instanceof Error ? error.message : String(error));
    }
  }
  async unchangedSince(slot: string, at: Point): Promise<boolean> {
    const started = performance.now();
    try {
      const compare = () =>
        this.capture_.call({ op: 'compare', slot, x: at.x, y: at.y, radius: 4 }).catch((error: unknown) => {
          // The kept frame is gone (the capture helper restarted or reconnected): the screenshot can't be trusted.
          if (error instanceof HelperError && error.kind === 'no_snapshot') return null;
          throw error;
        });
      const answer = await viaHelper('the staleness check', compare, 'capture');
      return answer?.header.same === true;
    } finally {
      this.timings.compareMs = performance.now() - started;
    }
  }
}

/** The error a stopped call ends with: the abort's reason when it is a ToolError. */
function stopped(signal: AbortSignal): ToolError {
  return signal.reason instanceof ToolError ? signal.reason : new ToolError('timeout', 'The call ran out of time and was stopped.');
}

/** Waits `ms`; rejects with the stop reason as soon as `signal` aborts. */
function holdFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(stopped(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
