/**
 * A `computer` tool that speaks the actions of Anthropic's computer_20250124 and
 * computer_20251124 tools (zoom included), so an existing computer-use agent loop can point
 * at deskgate. Every action is mapped onto the native tool of the same meaning and run by the
 * same dispatcher — the same validation, the same gates, the same executor.
 */
import { z } from 'zod';
import { callTool } from '../dispatch.ts';
import { ToolError } from '../errors.ts';
import { fromScreen } from '../geometry/coordinates.ts';
import { defineTool, type ToolContext } from '../tools/define-tool.ts';
import { frameOf } from '../tools/target.ts';

const ACTIONS = [
  'screenshot', 'zoom', 'left_click', 'right_click', 'middle_click', 'double_click', 'triple_click',
  'mouse_move', 'left_click_drag', 'left_mouse_down', 'left_mouse_up', 'scroll', 'type', 'key', 'hold_key',
  'wait', 'cursor_position',
] as const;
type Action = (typeof ACTIONS)[number];

const CLICKS = new Set<Action>(['left_click', 'right_click', 'middle_click', 'double_click', 'triple_click']);

const schema = z.strictObject({
  action: z.enum(ACTIONS).describe('What to do'),
  coordinate: z.array(z.number()).optional().describe('[x, y] in screenshot pixels: where to click, move, scroll, or end a drag'),
  start_coordinate: z.array(z.number()).optional().describe('[x, y] where a left_click_drag starts'),
  text: z.string().optional().describe('Text to type, a key chord for key/hold_key, or modifier keys held during a click or scroll'),
  scroll_direction: z.enum(['up', 'down', 'left', 'right']).optional().describe('For scroll'),
  scroll_amount: z.number().optional().describe('For scroll: wheel clicks'),
  duration: z.number().optional().describe('Seconds, for wait and hold_key'),
  region: z.array(z.number()).optional().describe('[x0, y0, x1, y1] in screenshot pixels, for zoom'),
});
type ComputerArgs = z.infer<typeof schema>;

function pick(args: ComputerArgs, fields: (keyof ComputerArgs)[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((field) => args[field] !== undefined).map((field) => [field, args[field]]));
}

/** Anthropic's clicks may omit the coordinate: they then click where the pointer is. */
async function pointerCoordinate(context: ToolContext): Promise<[number, number]> {
  const point = await context.executor.cursorPosition();
  const { x, y } = fromScreen(point, await frameOf(context), context.state.coordinateMode);
  return [x, y];
}

async function nativeCall(args: ComputerArgs, context: ToolContext): Promise<[string, Record<string, unknown>]> {
  const action = args.action;
  if (CLICKS.has(action)) {
    const call = pick(args, ['coordinate', 'text']);
    call.coordinate ??= await pointerCoordinate(context);
    return [action, call];
  }
  switch (action) {
    case 'screenshot':
    case 'cursor_position':
    case 'left_mouse_down':
    case 'left_mouse_up':
      return [action, {}];
    case 'zoom':
      return ['zoom', pick(args, ['region'])];
    case 'mouse_move':
      return ['mouse_move', pick(args, ['coordinate'])];
    case 'left_click_drag':
      return ['left_click_drag', pick(args, ['start_coordinate', 'coordinate'])];
    case 'scroll': {
      const call = pick(args, ['coordinate', 'scroll_direction', 'scroll_amount', 'text']);
      call.coordinate ??= await pointerCoordinate(context);
      return ['scroll', call];
    }
    case 'type':
    case 'key':
      return [action, pick(args, ['text'])];
    case 'hold_key':
      return ['hold_key', pick(args, ['text', 'duration'])];
    case 'wait':
      return ['wait', pick(args, ['duration'])];
  }
  throw new ToolError('bad_args', `unknown action ${String(action)}`);
}

export const computerTool = defineTool({
  name: 'computer',
  // Its actions are gated, pixel-checked and screenshot one by one, as the native tools they map to.
  title: 'Use the computer', effect: 'acts', gated: false, pixelChecked: false, batchable: false,
  description: () =>
    `Use the mouse and keyboard and take screenshots of a virtual desktop. Actions: ${ACTIONS.join(', ')}. Coordinates are in the pixels of the last screenshot.`,
  inputSchema: schema,
  actionKind: 'none',
  extraSeconds: (args) => (typeof args.duration === 'number' ? Math.max(0, args.duration) : 0),
  async handle(args, context) {
    const [tool, native] = await nativeCall(args, context);
    const result = await callTool(tool, native, context);
    if (result.isError) throw new ToolError(result.structuredContent?.error?.kind ?? 'executor_failed', `computer ${args.action}: ${result.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ')}`);
    return result;
  },
});
