/** The mouse tools of the seed: clicks, move, drag, raw button down/up, scroll, cursor position. */
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import type { MouseButton } from '../executor.ts';
import { fromScreen } from '../geometry/coordinates.ts';
import { parseModifiers } from '../keys/chord.ts';
import { defineTool, text, type ToolDefinition } from './define-tool.ts';
import { coordinate, coordinateSpace, LIMITS, modifiers } from './params.ts';
import { chooseMonitor } from './monitors.ts';
import { assertMouseFree, frameOf, resolvePoint } from './target.ts';

const hasModifiers = (text: string | undefined) => text !== undefined && text.trim() !== '';

const clickSchema = z.strictObject({
  coordinate: coordinate('Where to click, [x, y]'),
  text: modifiers,
});

function clickTool(name: string, verb: string, button: MouseButton, count: 1 | 2 | 3): ToolDefinition {
  return defineTool({
    name,
    title: verb, effect: 'acts', gated: true, pixelChecked: true, batchable: true,
    description: (ctx) => `${verb} at a coordinate ${coordinateSpace(ctx)}. Optional modifier keys in text.`,
    inputSchema: clickSchema,
    // Plain left clicks need the click tier; other buttons or modifiers need full.
    actionKind: button === 'left' ? 'mouse' : 'mouse_full',
    actionKindFor: (args) => (button === 'left' && !hasModifiers(args.text) ? 'mouse' : 'mouse_full'),
    async handle(args, context) {
      assertMouseFree(context, name);
      const mods = parseModifiers(args.text);
      const point = await resolvePoint(args.coordinate, context);
      await context.executor.click(point, button, count, mods);
      return text(`${verb} at (${args.coordinate.join(', ')})${mods.length ? ` with ${mods.join('+')}` : ''}.`);
    },
  });
}

export const mouseTools = [
  clickTool('left_click', 'Left-click', 'left', 1),
  clickTool('double_click', 'Double-click', 'left', 2),
  clickTool('triple_click', 'Triple-click', 'left', 3),
  clickTool('right_click', 'Right-click', 'right', 1),
  clickTool('middle_click', 'Middle-click', 'middle', 1),
  defineTool({
    name: 'mouse_move',
    title: 'Move the pointer', effect: 'acts', idempotent: true, gated: true, pixelChecked: false, batchable: true,
    description: (ctx) => `Move the mouse pointer to a coordinate ${coordinateSpace(ctx)}. While the left button is held (left_mouse_down) this drags.`,
    inputSchema: z.strictObject({ coordinate: coordinate('Where to move the pointer, [x, y]') }),
    actionKind: 'hover',
    // With the button held (left_mouse_down) a move drags, which needs the full tier.
    actionKindFor: (_args, state) => (state.mouseHeld ? 'mouse_full' : 'hover'),
    async handle(args, context) {
      await context.executor.move(await resolvePoint(args.coordinate, context));
      return text(`Moved the pointer to (${args.coordinate.join(', ')}).`);
    },
  }),
  defineTool({
    name: 'left_click_drag',
    title: 'Drag with the left button', effect: 'acts', gated: true, pixelChecked: true, batchable: true,
    description: (ctx) => `Press the left button at start_coordinate (default: the current pointer position), move to coordinate and release there. Coordinates ${coordinateSpace(ctx)}.`,
    inputSchema: z.strictObject({
      coordinate: coordinate('Where to release the button, [x, y]'),
      start_coordinate: coordinate('Where to press the button, [x, y]; omit to start at the current pointer position').optional(),
    }),
    actionKind: 'mouse_full',
    async handle(args, context) {
      assertMouseFree(context, 'left_click_drag');
      const from = args.start_coordinate ? await resolvePoint(args.start_coordinate, context, 'start_coordinate') : null;
      const to = await resolvePoint(args.coordinate, context);
      await context.executor.drag(from, to, []);
      return text(`Dragged to (${args.coordinate.join(', ')}).`);
    },
  }),
  defineTool({
    name: 'left_mouse_down',
    title: 'Press the left button', effect: 'acts', gated: true, pixelChecked: false, batchable: true,
    description: () => 'Press and hold the left mouse button at the current pointer position. Release it with left_mouse_up.',
    inputSchema: z.strictObject({}),
    actionKind: 'mouse',
    async handle(_args, context) {
      assertMouseFree(context, 'left_mouse_down');
      await context.executor.mouseDown('left');
      context.state.mouseHeld = true;
      return text('Left mouse button is down.');
    },
  }),
  defineTool({
    name: 'left_mouse_up',
    title: 'Release the left button', effect: 'acts', gated: true, pixelChecked: false, batchable: true,
    description: () => 'Release the left mouse button pressed with left_mouse_down.',
    inputSchema: z.strictObject({}),
    actionKind: 'mouse',
    async handle(_args, context) {
      if (!context.state.mouseHeld) {
        throw new ToolError('state_conflict', 'The left mouse button is not held; call left_mouse_down first.');
      }
      await context.executor.mouseUp('left');
      context.state.mouseHeld = false;
      return text('Left mouse button is up.');
    },
  }),
  defineTool({
    name: 'scroll',
    title: 'Scroll', effect: 'acts', gated: true, pixelChecked: true, batchable: true,
    description: (ctx) => `Scroll at a coordinate ${coordinateSpace(ctx)}, by scroll_amount wheel clicks in scroll_direction.`,
    inputSchema: z.strictObject({
      coordinate: coordinate('Where to scroll, [x, y]'),
      scroll_direction: z.enum(['up', 'down', 'left', 'right']).describe('Direction to scroll'),
      scroll_amount: z.number().int().min(0).max(LIMITS.scrollAmountMax).describe('Number of wheel clicks, 0–100'),
      text: modifiers,
    }),
    actionKind: 'mouse',
    actionKindFor: (args) => (hasModifiers(args.text) ? 'mouse_full' : 'mouse'),
    async handle(args, context) {
      assertMouseFree(context, 'scroll');
      const mods = parseModifiers(args.text);
      const point = await resolvePoint(args.coordinate, context);
      await context.executor.scroll(point, args.scroll_direction, args.scroll_amount, mods);
      return text(`Scrolled ${args.scroll_direction} by ${args.scroll_amount} at (${args.coordinate.join(', ')}).`);
    },
  }),
  defineTool({
    name: 'cursor_position',
    title: 'Get the pointer position', effect: 'observes', gated: true, pixelChecked: false, batchable: true,
    description: (ctx) => `Get the mouse pointer position ${coordinateSpace(ctx)}.`,
    inputSchema: z.strictObject({}),
    actionKind: 'none',
    async handle(_args, context) {
      const { executor, state } = context;
      const point = await executor.cursorPosition();
      if (!state.lastScreenshot && state.coordinateMode === 'pixels') {
        return text(`(${point.x}, ${point.y}) in display pixels; no screenshot has been taken yet.`);
      }
      const frame = await frameOf(context);
      const { x, y } = fromScreen(point, frame, state.coordinateMode);
      const inside = point.x >= frame.originX && point.y >= frame.originY && point.x < frame.originX + frame.displayWidth && point.y < frame.originY + frame.displayHeight;
      if (inside) return text(`(${x}, ${y})`);
      // With several monitors the pointer can be on one the model is not looking at.
      const monitors = await executor.monitors();
      const on = monitors.find((m) => point.x >= m.x && point.y >= m.y && point.x < m.x + m.width && point.y < m.y + m.height);
      const shown = state.lastScreenshot?.monitor ?? chooseMonitor(monitors, state.display).name;
      return text(`(${x}, ${y}): outside the display shown — the pointer is on ${on?.name ?? 'no monitor'}, not on ${shown}.`);
    },
  }),
];
