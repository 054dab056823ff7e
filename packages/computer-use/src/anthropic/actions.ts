/**
 * The actions of Anthropic's computer tool (computer_20250124; computer_20251124 adds zoom) and
 * the native tool each one runs, with the parameters each takes. Like the reference
 * implementation (anthropic-quickstarts, computer_use_demo/tools/computer.py), a parameter an
 * action does not take is refused rather than ignored: `type` with a coordinate would otherwise
 * type somewhere other than the model meant. One deliberate difference: clicks take their held
 * keys in `text`, as the model's tool schema says ("can also be used by click or scroll actions
 * to hold down keys"), where the reference reads a `key` parameter the model never sends.
 */
import { ToolError } from '../errors.ts';

export const FIELDS = ['coordinate', 'start_coordinate', 'text', 'scroll_direction', 'scroll_amount', 'duration', 'region'] as const;
export type Field = (typeof FIELDS)[number];

export interface ActionSpec {
  /** The native tool that does it. */
  tool: string;
  required: Field[];
  optional: Field[];
  /** A native parameter name where it differs (open_application's app arrives in `text`). */
  rename?: Partial<Record<Field, string>>;
  /** Without a coordinate, the action happens where the pointer is (the reference's clicks and scroll). */
  atPointer?: boolean;
  /** The reply ends with a screenshot of the settled screen; false for what already replies with an image or a position. */
  screenshot: boolean;
}

const click = (tool: string): ActionSpec => ({ tool, required: [], optional: ['coordinate', 'text'], atPointer: true, screenshot: true });

export const ACTIONS = {
  screenshot: { tool: 'screenshot', required: [], optional: [], screenshot: false },
  zoom: { tool: 'zoom', required: ['region'], optional: [], screenshot: false },
  cursor_position: { tool: 'cursor_position', required: [], optional: [], screenshot: false },
  left_click: click('left_click'),
  right_click: click('right_click'),
  middle_click: click('middle_click'),
  double_click: click('double_click'),
  triple_click: click('triple_click'),
  mouse_move: { tool: 'mouse_move', required: ['coordinate'], optional: [], screenshot: true },
  left_click_drag: { tool: 'left_click_drag', required: ['coordinate'], optional: ['start_coordinate', 'text'], screenshot: true },
  left_mouse_down: { tool: 'left_mouse_down', required: [], optional: [], screenshot: true },
  left_mouse_up: { tool: 'left_mouse_up', required: [], optional: [], screenshot: true },
  scroll: { tool: 'scroll', required: ['scroll_direction', 'scroll_amount'], optional: ['coordinate', 'text'], atPointer: true, screenshot: true },
  type: { tool: 'type', required: ['text'], optional: [], screenshot: true },
  key: { tool: 'key', required: ['text'], optional: [], screenshot: true },
  hold_key: { tool: 'hold_key', required: ['text', 'duration'], optional: [], screenshot: true },
  wait: { tool: 'wait', required: ['duration'], optional: [], screenshot: true },
  // deskgate's extension: the reference has no way to start an app (its loops use a bash tool).
  open_application: { tool: 'open_application', required: ['text'], optional: [], rename: { text: 'app' }, screenshot: true },
} satisfies Record<string, ActionSpec>;

export type Action = keyof typeof ACTIONS;
export const ACTION_NAMES = Object.keys(ACTIONS) as Action[];

export type ComputerArgs = { action: Action } & Partial<Record<Field, unknown>>;

export interface NativeCall {
  spec: ActionSpec;
  tool: string;
  args: Record<string, unknown>;
  /** The coordinate is to be the pointer's position (filled in by the caller, which can ask the desktop). */
  atPointer: boolean;
}

/** The native call for an action, or bad_args naming what is missing or not accepted. */
export function toNative(args: ComputerArgs): NativeCall {
  const spec: ActionSpec = ACTIONS[args.action];
  const given = FIELDS.filter((field) => args[field] !== undefined && args[field] !== null);
  const refused = given.filter((field) => !spec.required.includes(field) && !spec.optional.includes(field));
  if (refused.length) {
    throw new ToolError('bad_args', `${refused.join(' and ')} ${refused.length > 1 ? 'are' : 'is'} not accepted for ${args.action}.${hintFor(args.action, refused)}`);
  }
  const missing = spec.required.filter((field) => !given.includes(field));
  if (missing.length) throw new ToolError('bad_args', `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required for ${args.action}.`);
  const native = Object.fromEntries(given.map((field) => [spec.rename?.[field] ?? field, args[field]]));
  return { spec, tool: spec.tool, args: native, atPointer: Boolean(spec.atPointer) && native.coordinate === undefined };
}

function hintFor(action: Action, refused: Field[]): string {
  if (refused.includes('coordinate') && ['type', 'key', 'hold_key', 'left_mouse_down', 'left_mouse_up'].includes(action)) {
    return ' Move the pointer or click where it should go first (mouse_move, left_click).';
  }
  return '';
}
