/**
 * The modifier keys of click tools ("shift", "ctrl+shift", "cmd"), with the aliases of TOOLS.md
 * folded: cmd/command/super/win → meta, control → ctrl, option → alt. The input layer accepts
 * exactly the four canonical names. (Key chords of key/hold_key are parsed in keysyms.ts.)
 */
import { ToolError } from '../errors.ts';

const MODIFIER_ALIASES: Record<string, string> = {
  ctrl: 'ctrl',
  control: 'ctrl',
  alt: 'alt',
  option: 'alt',
  shift: 'shift',
  meta: 'meta',
  super: 'meta',
  cmd: 'meta',
  command: 'meta',
  win: 'meta',
};
const MODIFIER_ORDER = ['ctrl', 'alt', 'shift', 'meta'];

export function splitChord(text: string): string[] {
  const parts = text.split('+').map((part) => part.trim());
  // "ctrl++" means ctrl and the plus key.
  const keys: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '' && parts[i + 1] === '') {
      keys.push('plus');
      i++;
    } else keys.push(parts[i]!);
  }
  if (keys.some((key) => key === '')) {
    throw new ToolError('bad_args', `"${text}" is not a key chord: join key names with "+", e.g. "ctrl+shift+a"`);
  }
  return keys;
}

export function modifierName(key: string): string | undefined {
  return MODIFIER_ALIASES[key.toLowerCase()];
}

/** Parses the `text` of a click tool: only modifier keys, returned in canonical order. */
export function parseModifiers(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '') return [];
  const names = splitChord(text).map((key) => {
    const name = modifierName(key);
    if (!name) throw new ToolError('bad_args', `"${key}" is not a modifier key; use shift, ctrl, alt or meta`);
    return name;
  });
  return MODIFIER_ORDER.filter((name) => names.includes(name));
}
