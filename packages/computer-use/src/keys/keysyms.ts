/**
 * Key text ("ctrl+shift+a", "Return ctrl+v") to X keysyms, parsed once, here. The gates check
 * the keysyms and the input layer presses exactly those keysyms, so no second parser can read
 * the same text differently (an attacker once split "shift\u001calt+f4" one way for the
 * blocklist and another for the keyboard).
 *
 * Syntax: chords separated by ASCII spaces; keys within a chord joined with "+" ("ctrl++" is
 * ctrl and the plus key). No other whitespace and no control or format characters anywhere.
 * A key name is tried as: a friendly alias (case-insensitive), an exact X keysym name
 * ("Return", "F13", "XF86AudioMute"), one printable character ("ö", "-", "日"), a code point
 * ("U+20AC", "0x20ac" — always a character, never a raw keysym), then a keysym name matched
 * case-insensitively when that match is unique ("page_up", "kp_enter").
 */
import { ToolError } from '../errors.ts';
import type { KeysymChord } from '../executor.ts';
import { KEYSYM_NAMES } from './keysym-names.ts';

export const KEY_LIMITS = { keysPerChord: 8, chords: 32 } as const;

const ALIASES: Record<string, string> = {
  ctrl: 'Control_L', control: 'Control_L', lctrl: 'Control_L', rctrl: 'Control_R',
  alt: 'Alt_L', option: 'Alt_L', lalt: 'Alt_L', ralt: 'Alt_R', altgr: 'ISO_Level3_Shift',
  shift: 'Shift_L', lshift: 'Shift_L', rshift: 'Shift_R',
  super: 'Super_L', meta: 'Super_L', cmd: 'Super_L', command: 'Super_L', win: 'Super_L', windows: 'Super_L', hyper: 'Hyper_L',
  enter: 'Return', return: 'Return', esc: 'Escape', escape: 'Escape', backspace: 'BackSpace',
  del: 'Delete', delete: 'Delete', ins: 'Insert', insert: 'Insert', tab: 'Tab', space: 'space', spacebar: 'space',
  pgup: 'Page_Up', pageup: 'Page_Up', page_up: 'Page_Up', pgdn: 'Page_Down', pagedown: 'Page_Down', page_down: 'Page_Down',
  up: 'Up', down: 'Down', left: 'Left', right: 'Right',
  arrowup: 'Up', arrowdown: 'Down', arrowleft: 'Left', arrowright: 'Right',
  home: 'Home', end: 'End', menu: 'Menu', pause: 'Pause', break: 'Break',
  capslock: 'Caps_Lock', caps_lock: 'Caps_Lock', numlock: 'Num_Lock', scrolllock: 'Scroll_Lock',
  print: 'Print', printscreen: 'Print', prtsc: 'Print', plus: 'plus', minus: 'minus',
  ...Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`f${i + 1}`, `F${i + 1}`])),
};

/** Keysym names matched case-insensitively, only where the lowercase spelling is unambiguous. */
const BY_LOWER_NAME: ReadonlyMap<string, number> = (() => {
  const table = new Map<string, number>();
  const clashes = new Set<string>();
  for (const [name, value] of Object.entries(KEYSYM_NAMES)) {
    const low = name.toLowerCase();
    if (table.has(low) && table.get(low) !== value) clashes.add(low);
    table.set(low, value);
  }
  for (const low of clashes) table.delete(low);
  return table;
})();

/** Control, format, separator and other invisible characters: never part of a key name. */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Z}\p{Co}\p{Cn}\p{Cs}]/u;

const bad = (message: string) => new ToolError('bad_args', message);
const describeChar = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The keysym that types a character: Latin-1 keysyms equal the code point, others are Unicode keysyms. */
export function charKeysym(codePoint: number): number {
  if ((codePoint >= 0x20 && codePoint <= 0x7e) || (codePoint >= 0xa0 && codePoint <= 0xff)) return codePoint;
  return 0x0100_0000 + codePoint;
}

function byName(name: string): number | undefined {
  return KEYSYM_NAMES[name] ?? (name.startsWith('XF86') ? KEYSYM_NAMES[`XF86_${name.slice(4).replace(/^_+/, '')}`] : undefined);
}

/** One key name to its keysym; throws ToolError('bad_args') naming the problem. */
export function keysymOf(name: string): number {
  if (name === '') throw bad('empty key name');
  const alias = ALIASES[name.toLowerCase()];
  if (alias) return KEYSYM_NAMES[alias]!;
  const exact = byName(name);
  if (exact !== undefined) return exact;
  const chars = [...name];
  if (chars.length === 1) return charKeysym(name.codePointAt(0)!);
  const codePoint = /^(?:u\+|0x)([0-9a-f]{2,6})$/i.exec(name);
  if (codePoint) {
    const value = Number.parseInt(codePoint[1]!, 16);
    if (value >= 0x20 && value <= 0x10ffff && !(value >= 0x7f && value < 0xa0) && !(value >= 0xd800 && value <= 0xdfff)) return charKeysym(value);
    throw bad(`${name} is not a printable character`);
  }
  const low = name.toLowerCase();
  const folded = BY_LOWER_NAME.get(low) ?? (low.startsWith('xf86') ? BY_LOWER_NAME.get(`xf86_${low.slice(4).replace(/^_+/, '')}`) : undefined);
  if (folded !== undefined) return folded;
  throw bad(`unknown key name "${name}"`);
}

function splitChord(text: string): string[] {
  if (text === '+') return ['+'];
  // "U+20AC" is one key: read it as "0x20AC" before splitting on "+".
  const chord = text.replace(/(^|\+)u\+([0-9a-f]{2,6})(?=\+|$)/gi, '$10x$2');
  const parts = chord.split('+');
  const keys: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    // "ctrl++" is ctrl and the plus key: two empty parts in a row stand for "+".
    if (parts[i] === '' && parts[i + 1] === '' && i + 1 === parts.length - 1) {
      keys.push('+');
      i++;
    } else keys.push(parts[i]!);
  }
  if (keys.some((key) => key === '')) throw bad(`"${text}" is not a key chord: join key names with "+", e.g. "ctrl+shift+a"`);
  return keys;
}

/** Parses key text into chords of keysyms, validating everything before anything is pressed. */
export function parseKeys(text: string): KeysymChord[] {
  const forbidden = [...text].find((ch) => ch !== ' ' && FORBIDDEN.test(ch));
  if (forbidden) {
    throw bad(`key text contains ${describeChar(forbidden)}, which is not allowed: separate chords with plain spaces and join keys with "+"`);
  }
  const chords = text.split(' ').filter(Boolean);
  if (chords.length === 0) throw bad('key text names no key; e.g. "Return" or "ctrl+a"');
  if (chords.length > KEY_LIMITS.chords) throw bad(`at most ${KEY_LIMITS.chords} chords per call; this text has ${chords.length}`);
  return chords.map((chord) => {
    const keys = splitChord(chord);
    if (keys.length > KEY_LIMITS.keysPerChord) throw bad(`"${chord}" presses ${keys.length} keys at once; the limit is ${KEY_LIMITS.keysPerChord}`);
    return keys.map((key) => {
      try {
        return keysymOf(key);
      } catch (error) {
        throw bad(`${(error as Error).message} in key chord "${chord}"`);
      }
    });
  });
}

/** A keysym back to a readable name (for messages): the X name, else the character, else hex. */
export function keysymName(keysym: number): string {
  for (const [name, value] of Object.entries(KEYSYM_NAMES)) if (value === keysym) return name;
  if (keysym >= 0x0100_0100 && keysym <= 0x0110_ffff) return String.fromCodePoint(keysym - 0x0100_0000);
  return `0x${keysym.toString(16)}`;
}
