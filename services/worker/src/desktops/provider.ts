/**
 * Where desktops come from. The local process provider runs Xvfb and a window manager on this
 * host; a container provider (one container per session) implements the same interface.
 */
export interface DisplayHandle {
  /** The X display name helpers connect to, e.g. ":101". */
  display: string;
  /** The whole screen: with several monitors, they sit side by side within it. */
  width: number;
  height: number;
  /** Extra environment for processes on this display (XAUTHORITY …). */
  env: Record<string, string>;
  /** Stops every process of the display; safe to call twice. */
  stop(): Promise<void>;
}

export interface DesktopProvider {
  readonly kind: string;
  /** `width`×`height` is one monitor's size; `monitors` (default 1) of them side by side. */
  start(size: { width: number; height: number; monitors?: number }): Promise<DisplayHandle>;
}
