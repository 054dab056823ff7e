/**
 * System shortcuts, refused unless the session holds the systemKeyCombos grant flag: they
 * quit, lock, switch away from or tear down the desktop rather than act inside a granted app.
 *
 * Matching is on keysyms, after the one parser (keysyms.ts) resolved every alias, code point and
 * vendor name: "ctrl+alt+L1" is ctrl+alt+F11 because L1 *is* F11's keysym. Modifier keysyms
 * count as their modifier (Control_R is ctrl), and each non-modifier key is checked with the
 * chord's whole modifier set, so "cmd+q+a" is caught as meta+q. A chord is
 * blocked when its modifiers are a SUPERSET of a listed combo's: an extra modifier never makes
 * these shortcuts safe (alt+shift+tab is the reverse window switcher, ctrl+alt+shift+backspace
 * still reaches the X server), while a missing one does (shift+tab, ctrl+tab pass).
 */
import type { KeysymChord } from '../executor.ts';
import { charKeysym, keysymOf, parseKeys } from './keysyms.ts';

export type ComboPlatform = 'macos' | 'windows' | 'linux';

/**
 * The desktop the keys go to. An X11 desktop (linux) is checked against every list: the seed's
 * macOS and Windows combos as well as the X session's own. A macOS desktop is checked against
 * the seed's macOS list only: there cmd is Command, and meta+l or alt+tab are ordinary keys of
 * apps (the address bar, a tab switch), not system shortcuts.
 */
export type DesktopPlatform = 'linux' | 'macos';

/** Which lists are in force on a desktop of each platform. */
export const COMBO_LISTS: Record<DesktopPlatform, readonly ComboPlatform[]> = {
  linux: ['linux', 'macos', 'windows'],
  macos: ['macos'],
};

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

const K = (name: string) => keysymOf(name);

/** Modifier keysyms and the modifiers they count as. Meta_L shares Mod1 with Alt on usual X keymaps: both. */
const MODIFIER_KEYSYMS = new Map<number, readonly string[]>([
  [K('Control_L'), ['ctrl']], [K('Control_R'), ['ctrl']],
  [K('Alt_L'), ['alt']], [K('Alt_R'), ['alt']],
  [K('Shift_L'), ['shift']], [K('Shift_R'), ['shift']],
  [K('Super_L'), ['meta']], [K('Super_R'), ['meta']], [K('Hyper_L'), ['meta']], [K('Hyper_R'), ['meta']],
  [K('Meta_L'), ['alt', 'meta']], [K('Meta_R'), ['alt', 'meta']],
]);

/** Keysyms that act as a listed key: keypad and shifted variants of the keys the list names. */
const SAME_KEY = new Map<number, number>([
  [K('ISO_Left_Tab'), K('Tab')], [K('KP_Tab'), K('Tab')],
  [K('KP_Delete'), K('Delete')], [K('KP_Space'), K('space')],
  [K('KP_F1'), K('F1')], [K('KP_F2'), K('F2')], [K('KP_F3'), K('F3')], [K('KP_F4'), K('F4')],
]);

/** One key as the list compares it: case folded (shift+Q is q), variants mapped to their key. */
function canonicalKey(keysym: number): number {
  const same = SAME_KEY.get(keysym);
  if (same !== undefined) return same;
  if ((keysym >= 0x41 && keysym <= 0x5a) || (keysym >= 0xc0 && keysym <= 0xde && keysym !== 0xd7)) return keysym + 0x20;
  if (keysym >= 0x0100_0100 && keysym <= 0x0110_ffff) return charKeysym(String.fromCodePoint(keysym - 0x0100_0000).toLowerCase().codePointAt(0)!);
  return keysym;
}

interface ChordParts {
  modifiers: Set<string>;
  keys: number[];
}

function chordParts(chord: KeysymChord): ChordParts {
  const parts: ChordParts = { modifiers: new Set(), keys: [] };
  for (const keysym of chord) {
    const names = MODIFIER_KEYSYMS.get(keysym);
    if (names) names.forEach((name) => parts.modifiers.add(name));
    else parts.keys.push(canonicalKey(keysym));
  }
  return parts;
}

/** Most modifiers first, so shift+cmd+q reports "logs out" rather than meta+q's "quits". */
const COMPILED = BLOCKED_COMBOS.map((entry) => {
  const [chord] = parseKeys(entry.combo);
  const { modifiers, keys } = chordParts(chord!);
  return { entry, modifiers: [...modifiers], key: keys[0]! };
}).sort((a, b) => b.modifiers.length - a.modifiers.length);

/**
 * The listed system shortcut that pressing `chords` would send, or undefined. `together`: the
 * chords are all held at once (hold_key), so they count as one chord — "alt f4" held is alt+f4.
 * `platform`: the desktop's, which decides the lists in force (COMBO_LISTS).
 */
export function blockedCombo(chords: readonly KeysymChord[], together = false, platform: DesktopPlatform = 'linux'): BlockedCombo | undefined {
  const groups = together ? [chords.flat()] : chords;
  const lists = COMBO_LISTS[platform];
  for (const chord of groups) {
    const { modifiers, keys } = chordParts(chord);
    for (const key of keys) {
      const hit = COMPILED.find((combo) => combo.key === key && lists.includes(combo.entry.platform) && combo.modifiers.every((name) => modifiers.has(name)));
      if (hit) return hit.entry;
    }
  }
  return undefined;
}
