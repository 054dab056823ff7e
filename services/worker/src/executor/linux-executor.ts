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
import { SETTLE_MAX_MS_LIMIT, SETTLE_QUIET_RANGE, toolErrorFor, type FactsAfter, type GateFactsResult, type HelperName, type InputOp } from '@deskgate/helper-protocol';
import type { CaptureClient } from '../helpers/capture-client.ts';
import { HelperError } from '../helpers/helper-process.ts';
import { FactsChanged, type InputClient } from '../helpers/input-client.ts';
import type { DesktopApps } from '../launch/desktop-apps.ts';
import { ReportedFacts } from './reported-facts.ts';

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
  throw Object.assign(new ToolError('stale_screenshot', `${GUARD_FAILED}; ${sent}. Take a new screenshot.`), { cause: error });
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

/** The input guard as the input runtime takes it: `{"focus": wid, "at": [[x, y, kind, wid], ...], "facts": token}`. */
interface RawGuard {
  focus?: number;
  at?: [number, number, WindowSurfaceKind, number | null][];
  facts?: string;
}

type RawGateFacts = GateFactsResult;



/** How long a key is held down at most (hold_key), whatever the caller asks. */
const MAX_HOLD_MS = 2 ** 31 - 1;

export class LinuxExecutor implements Executor {
  private layout: { at: number; monitors: Monitor[] } | null = null;

  /** What the input runtime reported last; the gates may judge on it (see reported-facts.ts). */
  private readonly reported = new ReportedFacts();
  /** This call may be judged on reported facts (set per call by the action runner). */
  private judgeOnReports = false;
  /** The token of the reported facts this call's gates judged on; null: none (a plain guard). */
  private judgedOn: string | null = null;
  /** This call's facts may be guessed from the report (off once a refusal on guessed ones is being confirmed). */
  private mayGuess = false;
  /** This call's facts were guessed from a report (not read for it); a refusal on them is checked by a real read. */
  private guessed = false;
  /** This call's input was refused because the facts changed: nothing was sent, the fresh facts are kept. */
  private refusedOnChangedFacts = false;

  /**
   * Per call: whether the gates may judge on the facts the runtime reported last (one round
   * trip per input action). Only for calls whose one input op is their only effect on the
   * desktop, so a refused one can be judged and run again whole (the action runner does).
   */
  judgeOnReportedFacts(on: boolean): void {
    this.judgeOnReports = on;
    this.mayGuess = on;
    this.judgedOn = null;
    this.guessed = false;
    this.refusedOnChangedFacts = false;
  }
  /** The gates judged on guessed facts (a refusal must be confirmed by reading them). */
  factsWereGuessed(): boolean {
    return this.guessed;
  }
  /** From now on in this call, read the facts (a refusal on guessed ones is being confirmed). */
  stopGuessing(): void {
    this.mayGuess = false;
    this.guessed = false;
  }
  /** The pointer as the facts the gates will judge on have it, when those come from a report (checked again at sending). */
  knownPointer(): Point | null {
    return this.mayGuess ? this.reported.cursor : null;
  }
  /** The call's input was refused on changed facts before anything was sent: it may be judged and run again. */
  mayRunAgain(): boolean {
    return this.refusedOnChangedFacts;
  }

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
      this.timings.inputCalls = (this.timings.inputCalls ?? 0) + 1;
    }
  }

  /** A guarded input op: the gates' guard goes with it; judged on reported facts, the facts after it are kept. */
  private async send(op: InputOp, params: Record<string, unknown>): Promise<void> {
    const guard = this.guardParam();
    try {
      const answer = await this.input_<{ facts?: FactsAfter }>(op, { ...params, ...guard });
      if (guard.guard?.facts) this.reported.after(answer.facts, guard.guard.facts);
    } catch (error) {
      const refusal = (error as { cause?: unknown }).cause;
      if (refusal instanceof FactsChanged) {
        const points = (guard.guard?.at ?? []).map(([x, y]) => ({ x, y }));
        this.reported.reported(refusal.facts, points);
        this.refusedOnChangedFacts = true;
      } else if (guard.guard?.facts) {
        this.reported.forget();
      }
      throw error;
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
    if (raw.focus === undefined && !raw.at) return {};
    if (this.judgedOn !== null) raw.facts = this.judgedOn;
    return { guard: raw };
  }

  async move(to: Point) {
    await this.send('move', { x: to.x, y: to.y });
  }
  async click(at: Point, button: MouseButton, count: 1 | 2 | 3, modifiers: string[]) {
    await this.send('click', { x: at.x, y: at.y, button, count, modifiers });
  }
  async mouseDown(button: MouseButton) {
    await this.send('mouse_down', { button });
  }
  async mouseUp(button: MouseButton) {
    await this.send('mouse_up', { button });
  }
  async drag(from: Point | null, to: Point, modifiers: string[]) {
    await this.send('drag', { from: from ? [from.x, from.y] : null, to: [to.x, to.y], modifiers });
  }
  async scroll(at: Point, direction: ScrollDirection, amount: number, modifiers: string[]) {
    await this.send('scroll', { x: at.x, y: at.y, direction, amount, modifiers });
  }
  async key(chords: KeysymChord[], repeat: number) {
    await this.send('key', { chords, repeat });
  }
  async type(text: string) {
    await this.send('type', { text });
  }
  async holdKey(chords: KeysymChord[], seconds: number, signal: AbortSignal) {
    if (signal.aborted) throw stopped(signal);
    try {
      await this.send('key_down', { chords });
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
    const guess = this.mayGuess ? this.reported.guess(points) : null;
    this.guessed = guess !== null;
    let raw = guess;
    if (!raw) {
      [raw] = await Promise.all([this.input_<RawGateFacts>('gate_facts', { points: points.map((p) => [p.x, p.y]) }), this.apps.index.ready()]);
      this.reported.reported(raw, points);
    } else await this.apps.index.ready();
    // Judged on a report (guessed or just read): the input carries its token, checked again as it is sent.
    this.judgedOn = this.judgeOnReports ? raw.token : null;
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
