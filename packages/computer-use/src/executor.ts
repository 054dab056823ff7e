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
  format: 'jpeg' | 'png';
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
  mimeType: 'image/jpeg' | 'image/png';
  timings: Record<string, number>;
}

export interface AppInfo {
  window: number | null;
  title: string | null;
  wmClass: [string, string] | null;
  pid: number | null;
  exe: string | null;
}

export interface WindowInfo extends AppInfo, Rect {
  window: number;
  mapped: boolean;
}

/** How to start an app: its command line, and where it was found (a .desktop file or an executable). */
export interface LaunchSpec {
  command: string[];
  source: string;
}

export interface Executor {
  monitors(): Promise<Monitor[]>;
  capture(request: CaptureRequest): Promise<CapturedImage>;
  move(to: Point): Promise<void>;
  click(at: Point, button: MouseButton, count: 1 | 2 | 3, modifiers: string[]): Promise<void>;
  mouseDown(button: MouseButton): Promise<void>;
  mouseUp(button: MouseButton): Promise<void>;
  drag(from: Point | null, to: Point, modifiers: string[]): Promise<void>;
  scroll(at: Point, direction: ScrollDirection, amount: number, modifiers: string[]): Promise<void>;
  key(chord: string, repeat: number): Promise<void>;
  type(text: string): Promise<void>;
  holdKey(chord: string, seconds: number): Promise<void>;
  cursorPosition(): Promise<Point>;
  frontmostApp(): Promise<AppInfo>;
  /** Top-level windows, bottom to top. */
  listWindows(): Promise<WindowInfo[]>;
  /** What the gates need before an input action, in one round trip. */
  gateFacts(): Promise<{ windows: WindowInfo[]; frontmost: AppInfo; cursor: Point }>;
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
}
