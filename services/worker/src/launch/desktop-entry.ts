/** One application entry of the desktop (a .desktop file), as the launcher and the gates read it. */
export interface DesktopEntry {
  /** The file name without .desktop. */
  id: string;
  path: string;
  exec: string[];
  wmClass: string | null;
  /** Terminal=true: a program for a terminal, not a window of its own. */
  terminal?: boolean;
  /** NoDisplay=true: a handler (mime types, settings), not an app to open. */
  noDisplay?: boolean;
}
