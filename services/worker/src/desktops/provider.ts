/**
 * Where desktops come from. The local process provider runs Xvfb, a window manager and a panel
 * on this host as an unprivileged desktop user; a container provider (one container per
 * session) implements the same interface.
 */
export interface DisplayHandle {
  /** The X display name helpers connect to, e.g. ":101". */
  display: string;
  /** The whole screen: with several monitors, they sit side by side within it. */
  width: number;
  height: number;
  /**
   * The whole environment of processes on this display (DISPLAY, XAUTHORITY, the desktop's own
   * HOME and XDG folders, PATH, locale): nothing of the worker's.
   */
  env: Record<string, string>;
  /** The user the desktop's processes run as; null when the worker runs them as itself. */
  user: string | null;
  /** The argument vector that runs `command` as the desktop's user, within its process cap. */
  runAs(command: string[]): string[];
  /** Processes and threads the desktop's user runs now: what the process cap counts. */
  tasks(): number;
  readonly pids: { xvfb: number; wm: number; panel: number };
  /**
   * Called once when Xvfb or the window manager exits while the desktop is up: the desktop
   * is broken (never a desktop without a window manager) and must be torn down.
   */
  onFailure(listener: (reason: string) => void): void;
  /** Stops every process of the display and removes its files; safe to call twice. */
  stop(): Promise<void>;
}

export interface DesktopProvider {
  readonly kind: string;
  /** `width`×`height` is one monitor's size; `monitors` (default 1) of them side by side. */
  start(size: { width: number; height: number; monitors?: number }): Promise<DisplayHandle>;
}
