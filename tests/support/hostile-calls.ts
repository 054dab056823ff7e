/**
 * Hostile tool calls for the fuzz suite: random arguments of every shape, key text with random
 * Unicode separators and keysym aliases, coordinates on the screen's edges, on window frames
 * and on the background. Seeded, so a failure replays exactly.
 */

export interface HostileCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface Landmarks {
  /** Screen size in the last screenshot's pixels. */
  width: number;
  height: number;
  /** Points worth aiming at: window centres, title bars, edges, the background. */
  points: [number, number][];
}

/** mulberry32: a small, well-mixed 32-bit PRNG; good enough to pick test inputs. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEPARATORS = ['\u0000', '\u0009', '\u000a', '\u000b', '\u000c', '\u000d', '\u001c', '\u001d', '\u001e', '\u001f', '\u0085', '\u00a0', '\u1680', '\u2000', '\u2007', '\u200b', '\u200c', '\u200d', '\u2028', '\u2029', '\u202f', '\u205f', '\u2060', '\u3000', '\ufeff', '\u007f', '\u061c', '\u180e', ' ', '+', '++', '  '];
const KEY_NAMES = [
  'alt', 'ctrl', 'shift', 'super', 'meta', 'cmd', 'win', 'hyper', 'Alt_L', 'Meta_L', 'Meta_R', 'Super_R', 'Control_R', 'ISO_Level3_Shift', 'Mode_switch',
  'f4', 'F4', 'KP_F4', 'L1', 'L2', 'F11', 'F12', 'f2', 'tab', 'ISO_Left_Tab', 'BackSpace', 'Delete', 'KP_Delete', 'del', 'Terminate_Server',
  'XF86Switch_VT_1', 'XF86_Switch_VT_2', 'xf86logoff', 'XF86PowerOff', 'XF86ScreenSaver', 'q', 'Q', 't', 'l', 'd', 'space', 'Escape', 'Return',
  '0x71', 'U+0071', '0xffc1', 'U+FFC1', '0x1b', 'U+0009', 'a', 'ö', '日', '+', 'plus', 'minus', 'nosuchkey', '', 'ctrl+', '++',
];
const TOOLS = [
  'left_click', 'double_click', 'triple_click', 'right_click', 'middle_click', 'mouse_move', 'left_click_drag', 'scroll',
  'left_mouse_down', 'left_mouse_up', 'type', 'key', 'hold_key', 'cursor_position', 'screenshot', 'zoom', 'wait',
  'open_application', 'switch_display', 'read_clipboard', 'write_clipboard', 'list_granted_applications', 'request_access', 'computer_batch',
] as const;
const APPS = ['yes', 'killall5', 'reboot', 'sh', 'bash', 'python3', 'python3.11', '/bin/sh', '../../bin/sh', 'xterm -e sh', 'openbox', 'tint2', 'DeskgateProbe', 'XTerm.desktop', 'sudo', 'env', 'x'.repeat(300), ''];
const WEIRD = [null, true, false, -1, 0, 1e308, -1e308, Number.NaN, 'NaN', '1', [], {}, [1], [1, 2, 3], ['1', '2'], 'a'.repeat(5000), '\u0000'];

export function hostileCalls(seed: number, count: number, landmarks: Landmarks): HostileCall[] {
  const next = random(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const chance = (p: number) => next() < p;
  const int = (max: number) => Math.floor(next() * max);

  const coordinate = (): unknown => {
    if (chance(0.1)) return pick(WEIRD);
    if (chance(0.5)) {
      const [x, y] = pick(landmarks.points);
      return [x + int(5) - 2, y + int(5) - 2];
    }
    const edges = [0, 1, landmarks.width - 1, landmarks.width, landmarks.width + 1, -1, 99_999, 100_001];
    return chance(0.5) ? [pick(edges), int(landmarks.height)] : [int(landmarks.width), pick([0, landmarks.height - 1, landmarks.height, -1, 1e9])];
  };
  const keyText = (): string => {
    const parts = Array.from({ length: 1 + int(4) }, () => pick(KEY_NAMES));
    let text = parts[0]!;
    for (const part of parts.slice(1)) text += pick(SEPARATORS) + part;
    return chance(0.1) ? text + pick(SEPARATORS) : text;
  };
  const duration = (): unknown => (chance(0.8) ? next() * 0.05 : pick([1e7, -1, 101, Number.POSITIVE_INFINITY, '1', null]));
  const maybe = (value: () => unknown) => (chance(0.85) ? value() : pick(WEIRD));

  const argsFor = (tool: string): Record<string, unknown> => {
    switch (tool) {
      case 'left_click': case 'double_click': case 'triple_click': case 'right_click': case 'middle_click':
        return { coordinate: coordinate(), ...(chance(0.3) ? { text: chance(0.5) ? keyText() : pick(['shift', 'ctrl', 'alt', 'meta+shift']) } : {}) };
      case 'mouse_move': return { coordinate: coordinate() };
      case 'left_click_drag': return { coordinate: coordinate(), ...(chance(0.7) ? { start_coordinate: coordinate() } : {}) };
      case 'scroll': return { coordinate: coordinate(), scroll_direction: maybe(() => pick(['up', 'down', 'left', 'right'])), scroll_amount: maybe(() => int(12)) };
      case 'type': return { text: maybe(() => (chance(0.5) ? keyText() : pick(['id > /tmp/pwned\n', 'rm -rf ~\n', 'echo hi', '\u0003', 'exit\n']))) };
      case 'key': return { text: maybe(keyText), ...(chance(0.2) ? { repeat: maybe(() => 1 + int(3)) } : {}) };
      case 'hold_key': return { text: maybe(keyText), duration: duration() };
      case 'zoom': return { region: chance(0.5) ? [int(landmarks.width), int(landmarks.height), int(landmarks.width * 2), int(landmarks.height * 2)] : pick(WEIRD) };
      case 'wait': return { duration: duration() };
      case 'open_application': return { app: pick(APPS) };
      case 'switch_display': return { display: pick(['auto', 'screen', 'DP-1', '', '../x']) };
      case 'write_clipboard': return { text: maybe(() => 'echo pwned\n') };
      case 'request_access': return { apps: maybe(() => [pick(APPS), pick(APPS)]), reason: 'fuzz', ...(chance(0.3) ? { systemKeyCombos: true, clipboardWrite: true } : {}) };
      case 'computer_batch':
        return { actions: Array.from({ length: 1 + int(4) }, () => { const action = pick(['key', 'type', 'left_click', 'right_click', 'hold_key', 'left_mouse_down', 'mouse_move', 'wait']); return { action, ...argsFor(action) }; }) };
      default: return chance(0.1) ? { unexpected: pick(WEIRD) } : {};
    }
  };
  return Array.from({ length: count }, () => {
    const tool = chance(0.01) ? pick(['', 'nosuch', 'computer', 'x'.repeat(200)]) : pick(TOOLS);
    return { tool, args: argsFor(tool) };
  });
}
