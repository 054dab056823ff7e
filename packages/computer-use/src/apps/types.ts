/**
 * The vocabulary of app classification: what an app is (its category), how much of it a grant
 * may drive (its tier), and the identity facts a desktop reports about a window's app.
 */

/** read: screenshots only; click: plain clicks and scrolls; full: everything, keyboard included. */
export type Tier = 'read' | 'click' | 'full';

/** `denied` apps are never grantable; `other` is everything unclassified (full tier). */
export type AppCategory = 'browser' | 'terminal' | 'trading' | 'denied' | 'other';

/** What the desktop knows about an app. Any field may be missing; more fields match better. */
export interface AppIdentity {
  /** macOS bundle id ("com.apple.Safari"), Linux .desktop id ("firefox-esr.desktop") or app id ("org.gnome.Terminal"). */
  id?: string;
  /** X11 WM_CLASS as [instance, class], e.g. ["Navigator", "firefox-esr"]. */
  wmClass?: [string, string] | null;
  /** Executable path or basename ("/usr/lib/firefox-esr/firefox-esr", "xterm"). */
  exe?: string | null;
  /** Display name or window title. */
  name?: string | null;
}

/** One category's matchers: exact ids (compared case-insensitively) and lowercase name substrings. */
export interface CategoryEntries {
  ids: readonly string[];
  names: readonly string[];
}

export interface AppClassification {
  category: AppCategory;
  /** null: the app is policy-denied and can never be granted. */
  tier: Tier | null;
  /** What decided it, for logs and refusal messages: `wmClass "firefox-esr"`, `operator name "acme"`, `default`. */
  matchedBy: string;
}
