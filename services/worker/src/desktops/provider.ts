/**
 * Where desktops come from. The process provider runs Xvfb, a window manager and a panel on
 * this host as an unprivileged desktop user, with the helpers as the worker's children; the
 * container provider runs all of it in one hardened container per desktop, the helpers
 * listening on Unix sockets the worker connects to (docs/containers.md); the bare-metal provider
 * connects to the helpers of the machine's own console (docs/macos.md).
 */
import type { HelperTransport } from '../helpers/helper-process.ts';
import type { InputClient } from '../helpers/input-client.ts';
import type { DesktopApps } from '../launch/desktop-apps.ts';

export interface DisplayHandle {
  /** The X display name helpers connect to, e.g. ":101" (a bare-metal Mac's console: its configured name). */
  display: string;
  /** What the desktop runs (absent: linux, an X11 desktop); the gates pick the shortcut lists by it. */
  platform?: 'linux' | 'macos';
  /** The whole screen: with several monitors, they sit side by side within it. */
  width: number;
  height: number;
  /** How the worker reaches the display's capture helper and input runtime. */
  helpers: { capture: HelperTransport; input: HelperTransport };
  /** The desktop's apps, given its input runtime (a container's live inside it). */
  apps(input: InputClient): Promise<DesktopApps>;
  /**
   * Where the desktop runs, for its Redis record (operators and tests read it): the desktop
   * user and cookie file of a process desktop; the container, its host pid and run folder.
   */
  where(): Record<string, string | number>;
  /** The desktop's own processes, in its pid namespace: their windows are the desktop's, not apps'. */
  readonly pids: { xvfb: number; wm: number; panel: number };
  /**
   * Called once when Xvfb or the window manager exits while the desktop is up: the desktop
   * is broken (never a desktop without a window manager) and must be torn down.
   */
  onFailure(listener: (reason: string) => void): void;
  /**
   * Gives the desktop the network beyond itself, when its tenant's policy allows egress: a
   * container desktop starts with none. Absent where the desktop has the host's network (a
   * process desktop). Throws when it cannot be given safely; the desktop then stays offline.
   */
  allowEgress?(): Promise<void>;
  /** Stops every process of the display and removes its files; safe to call twice. */
  stop(): Promise<void>;
}

export interface DesktopProvider {
  readonly kind: 'process' | 'container' | 'bare-metal';
  /**
   * Once, before the first start: checks what desktops need (users, image, engine) and removes
   * whatever a dead worker of the same id left behind.
   */
  prepare(): Promise<void>;
  /**
   * `width`×`height` is one monitor's size; `monitors` (default 1) of them side by side.
   * `stopping` aborts when the worker stops: a start still under way then gives up, removes
   * what it made, and throws (a provider whose desktops go with the worker's process group may
   * ignore it).
   */
  start(size: { width: number; height: number; monitors?: number }, stopping?: AbortSignal): Promise<DisplayHandle>;
  /** Once every desktop is torn down, as the worker stops: what it no longer needs to watch over. */
  retire?(): Promise<void>;
}
