/**
 * System shortcuts, refused unless the session holds the systemKeyCombos grant flag: they
 * quit, lock, switch away from or tear down the desktop rather than act inside a granted app.
 *
 * Matching: the `key` text may hold several chords separated by spaces ("ctrl+c alt+f4"), as
 * the input layer accepts. Each chord is normalised (aliases folded, modifier keysyms such as
 * Control_L counted as modifiers, key aliases like esc/del folded) and each non-modifier key is
 * checked with the chord's whole modifier set, so "cmd+q+a" is caught as meta+q. A chord is
 * blocked when its modifiers are a SUPERSET of a listed combo's: an extra modifier never makes
 * these shortcuts safe (alt+shift+tab is the reverse window switcher, ctrl+alt+shift+backspace
 * still reaches the X server), while a missing one does (shift+tab, ctrl+tab pass).
 */
import { normalizeChord } from './chord.ts';

export type ComboPlatform = 'macos' | 'windows' | 'linux';

export interface BlockedCombo {
  /** The listed shortcut, normalised: "alt+f4", "shift+meta+q". */
  combo: string;
  platform: ComboPlatform;
  /** What it does, phrased to follow the combo: "closes the focused window". */
  why: string;
}

const F_KEYS = Array.from({ length: 12 }, (_, i) => i + 1);

/** Linux first: deskgate's desktops are X11 sessions, so a combo two lists share reports linux. */
export const BLOCKED_COMBOS: readonly BlockedCombo[] = [
  { combo: 'ctrl+alt+backspace', platform: 'linux', why: 'kills the X server, ending every app on the desktop' },
  ...F_KEYS.map((n): BlockedCombo => ({ combo: `ctrl+alt+f${n}`, platform: 'linux', why: `switches to virtual terminal ${n}, away from the desktop` })),
  { combo: 'alt+f2', platform: 'linux', why: 'opens the run-command dialog' },
  { combo: 'ctrl+alt+t', platform: 'linux', why: 'opens a terminal' },
  { combo: 'meta+l', platform: 'linux', why: 'locks the screen' },
  { combo: 'ctrl+alt+l', platform: 'linux', why: 'locks the screen' },
  { combo: 'alt+tab', platform: 'linux', why: 'switches to another window' },
  { combo: 'alt+f4', platform: 'linux', why: 'closes the focused window' },
  // The keysyms X binds to the combos above act just the same when pressed on their own.
  { combo: 'terminate_server', platform: 'linux', why: 'the keysym behind ctrl+alt+backspace: kills the X server' },
  ...F_KEYS.map((n): BlockedCombo => ({ combo: `xf86switch_vt_${n}`, platform: 'linux', why: `the keysym behind ctrl+alt+f${n}: switches to virtual terminal ${n}` })),
  { combo: 'xf86logoff', platform: 'linux', why: 'logs out of the session' },
  { combo: 'xf86poweroff', platform: 'linux', why: 'powers the machine off' },
  { combo: 'xf86screensaver', platform: 'linux', why: 'locks the screen' },

  { combo: 'meta+q', platform: 'macos', why: 'quits the frontmost application' },
  { combo: 'shift+meta+q', platform: 'macos', why: 'logs out of the session' },
  { combo: 'alt+meta+escape', platform: 'macos', why: 'opens the Force Quit dialog' },
  { combo: 'meta+tab', platform: 'macos', why: 'switches to another application' },
  { combo: 'meta+space', platform: 'macos', why: 'opens Spotlight, which launches apps outside the granted ones' },
  { combo: 'ctrl+meta+q', platform: 'macos', why: 'locks the screen' },

  { combo: 'ctrl+alt+delete', platform: 'windows', why: 'opens the security screen: lock, sign out, Task Manager' },
  { combo: 'alt+f4', platform: 'windows', why: 'closes the focused window, or shuts down from the desktop' },
  { combo: 'alt+tab', platform: 'windows', why: 'switches to another window' },
  { combo: 'meta+l', platform: 'windows', why: 'locks the workstation' },
  { combo: 'meta+d', platform: 'windows', why: 'shows the desktop, hiding every window' },
];

/** Key names the input layer accepts for modifier keys that normalizeChord does not fold. */
const MODIFIER_KEYS: Record<string, readonly string[]> = {
  lctrl: ['ctrl'], rctrl: ['ctrl'], control_l: ['ctrl'], control_r: ['ctrl'],
  lalt: ['alt'], ralt: ['alt'], alt_l: ['alt'], alt_r: ['alt'],
  lshift: ['shift'], rshift: ['shift'], shift_l: ['shift'], shift_r: ['shift'],
  windows: ['meta'], super_l: ['meta'], super_r: ['meta'], hyper: ['meta'], hyper_l: ['meta'], hyper_r: ['meta'],
  // Usual X keymaps put Meta_L on Mod1 together with Alt; count it as both to be safe.
  meta_l: ['alt', 'meta'], meta_r: ['alt', 'meta'],
};

/** Other spellings of the keys the list names (keypad and shifted variants included). */
const KEY_ALIASES: Record<string, string> = {
  esc: 'escape', del: 'delete', kp_delete: 'delete', back_space: 'backspace',
  iso_left_tab: 'tab', kp_tab: 'tab', spacebar: 'space', kp_space: 'space',
};

function canonicalKey(key: string): string {
  const alias = KEY_ALIASES[key];
  if (alias) return alias;
  // "0x71" and "U+0071" are code points to the input layer: both type "q".
  const codePoint = /^0x([0-9a-f]{1,6})$/.exec(key);
  if (codePoint) {
    const value = Number.parseInt(codePoint[1]!, 16);
    if (value >= 0x20 && value <= 0x10ffff) return String.fromCodePoint(value).toLowerCase();
  }
  // The input layer resolves "XF86Switch_VT_1" and "XF86_Switch_VT_1" to the same keysym.
  return key.replace(/^xf86_+/, 'xf86');
}

interface ChordParts {
  modifiers: Set<string>;
  keys: string[];
}

const CODE_POINT = /(^|\+)u\+([0-9a-f]{2,6})(?=\+|$)/gi;

function chordParts(chord: string): ChordParts {
  // Like the input layer, read "U+0071" as one key before splitting on "+".
  const codePoints = chord.replace(CODE_POINT, (_, lead: string, hex: string) => `${lead}0x${hex}`);
  const { modifiers, keys } = normalizeChord(codePoints);
  const parts: ChordParts = { modifiers: new Set(modifiers), keys: [] };
  for (const key of keys) {
    const asModifier = MODIFIER_KEYS[key];
    if (asModifier) asModifier.forEach((name) => parts.modifiers.add(name));
    else parts.keys.push(canonicalKey(key));
  }
  return parts;
}

/** Most modifiers first, so shift+cmd+q reports "logs out" rather than meta+q's "quits". */
const COMPILED = BLOCKED_COMBOS.map((entry) => {
  const { modifiers, keys } = normalizeChord(entry.combo);
  return { entry, modifiers, key: keys[0]! };
}).sort((a, b) => b.modifiers.length - a.modifiers.length);

/**
 * The listed system shortcut that `text` (one or more space-separated chords) would press, or
 * undefined. A malformed chord throws ToolError('bad_args'), as the key tools do.
 */
export function blockedCombo(text: string): BlockedCombo | undefined {
  for (const chord of text.split(/\s+/).filter(Boolean)) {
    const { modifiers, keys } = chordParts(chord);
    for (const key of keys) {
      const hit = COMPILED.find((combo) => combo.key === key && combo.modifiers.every((name) => modifiers.has(name)));
      if (hit) return hit.entry;
    }
  }
  return undefined;
}
