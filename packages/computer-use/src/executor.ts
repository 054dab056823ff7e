/**
 * The desktop behind an interface: the core decides *what* to do, an executor does it on a
 * real display (the worker's Linux executor talks to the capture and input helpers). All
 * coordinates here are root-window pixels.
 */
import type { Point } from './geometry/coordinates.ts';

export type MouseButton = 'left' | 'middle' | 'right';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Monitor extends Rect {
  name: string;
  primary: boolean;
}

export interface CaptureRequest {
  region: Rect;
  scaleTo: { width: number; height: number };
  /** `auto`: indexed PNG or JPEG, whichever the capture helper judges smaller for this frame. */
  format: 'jpeg' | 'png' | 'webp' | 'auto';
  quality: number;
  /** Keep the raw pixels under this slot, for the pixel staleness check. */
  keep?: string;
  /** Root-coordinate rectangles to black out (windows the session may not see). */
  mask?: Rect[];
}

export interface CapturedImage {
  data: Buffer;
  width: number;
  height: number;
  mimeType: 'image/jpeg' | 'image/png' | 'image/webp';
  timings: Record<string, number>;
}

export interface AppInfo {
  window: number | null;
  title: string | null;
  wmClass: [string, string] | null;
  pid: number | null;
  exe: string | null;
  /** The .desktop id of the app the window belongs to ("mousepad", "org.gnome.Terminal"), when one matches. */
  desktopId?: string | null;
}

export interface WindowInfo extends AppInfo, Rect {
  window: number;
  mapped: boolean;
  /** `desktop`: part of the desktop itself (its panel), shown in screenshots but never hidden and never an app to act on. */
  role?: 'app' | 'desktop';
}

/**
 * What the X server has at a point, or holding the keyboard focus:
 * - client: a managed top-level client window (`window` is the client, `app` its identity);
 * - decoration: the window manager's frame around a client (title bar, borders), not the client;
 * - popup: an override-redirect window (menu, tooltip, dropdown); `app` is its own identity,
 *   or that of the client window of the same process;
 * - root: the desktop background (nothing but the root window there);
 * - none: nothing holds the focus (None or PointerRoot: keys would follow the pointer);
 * - unknown: anything else (the window manager's own windows, unmanaged windows).
 */
export type WindowSurfaceKind = 'client' | 'decoration' | 'popup' | 'root' | 'none' | 'unknown';

export interface WindowSurface {
  kind: WindowSurfaceKind;
  window: number | null;
  app: AppInfo | null;
}

/** A key chord as X keysyms, resolved and checked by the core before the input layer sees it. */
export type KeysymChord = number[];

/** Everything the gates judge an input action by, read in one round trip to the input layer. */
export interface GateFacts {
  /** Top-level client windows, bottom to top. */
  windows: WindowInfo[];
  /** The real X input focus, resolved to what it belongs to. */
  focus: WindowSurface;
  /** What is at each point asked for, in order. */
  at: WindowSurface[];
  cursor: Point;
  /** What is under the pointer now (mouse down/up act there). */
  underPointer: WindowSurface;
  /** Mouse buttons the input layer holds pressed. */
  buttonsHeld: MouseButton[];
}

/**
 * What the gates judged an input action on, for the input layer to re-check at the moment it
 * sends: the gates read the desktop a millisecond before the input arrives, and the window
 * manager or an app may move the focus or map a window in between. The input layer sends only
 * while the guard still holds — checked and sent under one X server grab, so nothing can change
 * between the check and the input — and otherwise refuses (ToolError 'stale_screenshot').
 */
export interface InputGuard {
  /** Keys: the top-level client window that must hold the X input focus. */
  focus?: number;
  /** Pointer input: what must be at each point (the same hit-test as gateFacts). */
  at?: { point: Point; kind: WindowSurfaceKind; window: number | null }[];
}

/** How long to wait for the screen to stop changing (XDamage), and what happened. */
export interface SettleRequest {
  /** The screen counts as settled after this long without damage. */
  quietMs: number;
  /** Give up waiting after this long. */
  maxMs: number;
  /** Once the screen changed after the action began (the app reacted), wait for this much quiet instead. */
  reactQuietMs?: number;
  /** The action began this long before the wait (its own damage counts as the app's reaction). */
  sinceMs?: number;
}

export interface SettleResult {
  settled: boolean;
  waitedMs: number;
}

/** How to start an app: its command line, and where it was found (a .desktop file or an executable). */
export interface LaunchSpec {
  command: string[];
  source: string;
}

export interface Executor {
  /** The desktop's platform (absent: linux, an X11 desktop): the gates pick the shortcut lists by it. */
  readonly platform?: 'linux' | 'macos';
  monitors(): Promise<Monitor[]>;
  capture(request: CaptureRequest): Promise<CapturedImage>;
  move(to: Point): Promise<void>;
  click(at: Point, button: MouseButton, count: 1 | 2 | 3, modifiers: string[]): Promise<void>;
  mouseDown(button: MouseButton): Promise<void>;
  mouseUp(button: MouseButton): Promise<void>;
  drag(from: Point | null, to: Point, modifiers: string[]): Promise<void>;
  scroll(at: Point, direction: ScrollDirection, amount: number, modifiers: string[]): Promise<void>;
  /** Presses each chord in turn (all keys down in order, then up in reverse), `repeat` times. */
  key(chords: KeysymChord[], repeat: number): Promise<void>;
  type(text: string): Promise<void>;
  /** Holds the chords' keys down until `seconds` pass or `signal` aborts, then releases them. */
  holdKey(chords: KeysymChord[], seconds: number, signal: AbortSignal): Promise<void>;
  cursorPosition(): Promise<Point>;
  frontmostApp(): Promise<AppInfo>;
  /** Top-level windows, bottom to top. */
  listWindows(): Promise<WindowInfo[]>;
  /** What the gates need before an input action, in one round trip; `points` are the action's targets. */
  gateFacts(points: Point[]): Promise<GateFacts>;
  /** Holds every input sent from now on to what the gates judged (null: no guard). Set by the gates, per call. */
  guard(guard: InputGuard | null): void;
  iconify(window: number): Promise<void>;
  /** Maps (if iconified), raises and focuses a top-level window. */
  activate(window: number): Promise<void>;
  /** The desktop's way to start an app named `app` (.desktop entry, else executable on PATH); null when there is none. */
  findLauncher(app: string): Promise<LaunchSpec | null>;
  /** Starts a process on the desktop; it ends when the desktop does, at the latest. */
  launch(command: string[], env?: Record<string, string>): Promise<{ pid: number }>;
  readClipboard(): Promise<string | null>;
  writeClipboard(text: string): Promise<void>;
  /** Whether the live pixels around a point still match the kept screenshot in `slot`. */
  unchangedSince(slot: string, at: Point): Promise<boolean>;
  /** Waits until the screen has had no damage for `quietMs` (or `maxMs` passed). */
  waitForSettle(request: SettleRequest, signal: AbortSignal): Promise<SettleResult>;
}
