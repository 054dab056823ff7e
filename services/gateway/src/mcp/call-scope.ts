/** Who is calling and where: what the gateway resolved about an MCP request before any tool runs. */
import type { CoordinateMode, ScreenshotAfter, Surface } from '@deskgate/computer-use';
import type { Platform, SessionRef } from '@deskgate/dispatch';

export interface CallScope {
  ref: SessionRef;
  /** The id of the API key that authenticated the request (never the key). */
  keyId: string;
  /** Who drives the desktop, for its lock: the key id, plus the Deskgate-Controller label if sent. */
  controller: string;
  /** Which tool set this endpoint serves: the native tools (/mcp) or Anthropic's `computer` (/computer). */
  surface: Surface;
  /** The coordinate mode the endpoint asked for (?coordinate_mode=); a session keeps the one it was created with. */
  coordinateMode: CoordinateMode;
  /** ?screenshot_after=settled on /mcp: tools that act reply with a screenshot of the settled screen. */
  screenshotAfter?: ScreenshotAfter;
  /** ?platform=: the kind of desktop a new session asks for (linux, macos); absent: linux, as before platforms. */
  platform?: Platform;
}
