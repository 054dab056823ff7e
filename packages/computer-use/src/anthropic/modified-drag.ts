/**
 * left_click_drag with held keys (the model's `text`, e.g. "shift" to extend a selection), which
 * the native left_click_drag does not take. It is the native tool with modifiers, under the
 * native name, so the same gates judge it (the drag's press and drop targets, the full tier,
 * pixel staleness) before it runs.
 */
import { z } from 'zod';
import { parseModifiers } from '../keys/chord.ts';
import { defineTool, text, type ToolContext } from '../tools/define-tool.ts';
import { mouseTools } from '../tools/mouse.ts';
import { coordinate, modifiers } from '../tools/params.ts';
import type { ToolCallResult } from '../tools/result.ts';
import { assertMouseFree, resolvePoint } from '../tools/target.ts';

const nativeDrag = mouseTools.find((tool) => tool.name === 'left_click_drag')!;

const modifiedDrag = defineTool({
  ...nativeDrag,
  inputSchema: z.strictObject({
    coordinate: coordinate('Where to release the button, [x, y]'),
    start_coordinate: coordinate('Where to press the button, [x, y]').optional(),
    text: modifiers,
  }),
  async handle(args, context) {
    assertMouseFree(context, 'left_click_drag');
    const mods = parseModifiers(args.text);
    const from = args.start_coordinate ? await resolvePoint(args.start_coordinate, context, 'start_coordinate') : null;
    const to = await resolvePoint(args.coordinate, context);
    await context.executor.drag(from, to, mods);
    return text(`Dragged to (${args.coordinate.join(', ')}) with ${mods.join('+')} held.`);
  },
});

/** Runs a drag with modifiers as the dispatcher runs a native call: validate, gate, act; every failure an error result. */
export function dragWithModifiers(args: Record<string, unknown>, context: ToolContext): Promise<ToolCallResult> {
  return context.dispatcher.run(modifiedDrag, args, context);
}
