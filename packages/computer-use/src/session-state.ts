/**
 * The per-session state the tools read and write. It lives in Redis (the worker keeps it
 * there), never in a service's memory, so a restart loses nothing.
 */
import { noGrants, type Grants } from './access/grants.ts';
import type { CoordinateMode, ScreenshotGeometry } from './geometry/coordinates.ts';

export interface LastScreenshot extends ScreenshotGeometry {
  /** Capture-helper slot holding the raw pixels of that screenshot (staleness check). */
  slot: string;
  monitor: string;
  takenAt: number;
}

export interface SessionState {
  coordinateMode: CoordinateMode;
  lastScreenshot: LastScreenshot | null;
  mouseHeld: boolean;
  /** Monitor chosen with switch_display, or null for automatic choice. */
  display: string | null;
  grants: Grants;
  /** Windows this session iconified because their apps are not granted. */
  hidden: number[];
  /** The clipboard as it was before a click-tier app came to the front (see the clipboard guard). */
  clipboardStash: { text: string | null } | null;
}

export const initialSessionState = (coordinateMode: CoordinateMode = 'pixels'): SessionState => ({
  coordinateMode,
  lastScreenshot: null,
  mouseHeld: false,
  display: null,
  grants: noGrants(),
  hidden: [],
  clipboardStash: null,
});
