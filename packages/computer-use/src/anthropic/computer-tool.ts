/**
 * A `computer` tool that speaks Anthropic's computer_20250124 and computer_20251124 (zoom), so an
 * agent loop written for them can point at deskgate unchanged: the same action names,
 * parameters, refusals and replies as the reference implementation, a screenshot of the
 * settled screen with every action (the reference loop sleeps 2 s, then screenshots), and
 * cursor_position as "X=..,Y=..". Each action runs as the native tool of the same meaning,
 * through the same dispatcher — the same validation, gates and executor. Action table and
 * choices: docs/computer-endpoint.md.
 */
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { fromScreen, type ScreenshotGeometry } from '../geometry/coordinates.ts';
import { targetImageSize } from '../geometry/image-size.ts';
import { defineTool, type ToolContext, type ToolDefinition, type ToolOutput } from '../tools/define-tool.ts';
import { chooseMonitor } from '../tools/monitors.ts';
import { type ToolCallResult, textOf } from '../tools/result.ts';
import { SETTLE_MAX_MS, settledScreenshot } from '../tools/settled-screenshot.ts';
import { frameOf } from '../tools/target.ts';
import { ACTION_NAMES, toNative, type ComputerArgs, type NativeCall } from './actions.ts';
import { dragWithModifiers } from './modified-drag.ts';

const schema = z.strictObject({
  action: z.enum(ACTION_NAMES as [string, ...string[]]).describe('What to do'),
  coordinate: z.array(z.number()).optional().describe('[x, y] in screenshot pixels: where to click, move, scroll, or end a drag; clicks and scroll without it act where the pointer is'),
  start_coordinate: z.array(z.number()).optional().describe('[x, y] where a left_click_drag starts (default: where the pointer is)'),
  text: z.string().optional().describe('Text to type, a key chord for key and hold_key, keys held during a click, drag or scroll ("shift", "ctrl+shift"), or the app for open_application'),
  scroll_direction: z.enum(['up', 'down', 'left', 'right']).optional().describe('For scroll'),
  scroll_amount: z.number().optional().describe('For scroll: wheel clicks'),
  duration: z.number().optional().describe('Seconds, for wait and hold_key'),
  region: z.array(z.number()).optional().describe('[x0, y0, x1, y1] in screenshot pixels, for zoom'),
});

/** Where the pointer is, in the pixels of the last screenshot (the reference's clicks without a coordinate click there). */
async function pointerCoordinate(context: ToolContext): Promise<[number, number]> {
  const { x, y } = fromScreen(await context.executor.cursorPosition(), await frameOf(context), 'pixels');
  return [x, y];
}

/** The frame the pointer is reported in: the last screenshot's, or the one the next screenshot will have. */
async function replyFrame(context: ToolContext): Promise<ScreenshotGeometry> {
  if (context.state.lastScreenshot) return context.state.lastScreenshot;
  const monitor = chooseMonitor(await context.executor.monitors(), context.state.display);
  const size = targetImageSize(monitor);
  return { imageWidth: size.width, imageHeight: size.height, displayWidth: monitor.width, displayHeight: monitor.height, originX: monitor.x, originY: monitor.y };
}

const failed = (action: string, result: ToolCallResult) => new ToolError(result.structuredContent?.error?.kind ?? 'executor_failed', `computer ${action}: ${textOf(result)}`);

async function runNative(call: NativeCall, context: ToolContext): Promise<ToolCallResult> {
  if (call.atPointer) call.args.coordinate = await pointerCoordinate(context);
  if (call.tool === 'left_click_drag' && typeof call.args.text === 'string' && call.args.text.trim()) return dragWithModifiers(call.args, context);
  return context.dispatcher.call(call.tool, call.args, context);
}

/** The `computer` tool over the native tools it maps its actions onto (the registry hands them in). */
export function computerTool(native: readonly ToolDefinition[]): ToolDefinition {
  const byName = new Map(native.map((tool) => [tool.name, tool]));
  return defineTool({
    name: 'computer',
    // Its actions are gated, pixel-checked and screenshot one by one, as the native tools they map to.
    title: 'Use the computer', effect: 'acts', gated: false, pixelChecked: false, batchable: false,
    description: () =>
      `Use the mouse and keyboard and take screenshots of a virtual desktop. Actions: ${ACTION_NAMES.join(', ')}. Coordinates are in the pixels of the last screenshot. Every action that changes the screen replies with a screenshot taken once the screen has settled. open_application (text: the app's name) brings a granted app to the front, starting it if needed.`,
    inputSchema: schema,
    actionKind: 'none',
    extraSeconds(args) {
      let call: NativeCall;
      try {
        call = toNative(args as ComputerArgs);
      } catch {
        return 0; // refused before anything runs
      }
      const settle = call.spec.screenshot ? SETTLE_MAX_MS / 1000 : 0;
      // Invalid arguments are refused by the native tool, with its message: they add nothing here.
      const tool = byName.get(call.tool);
      const parsed = tool?.inputSchema.safeParse(call.args);
      return settle + (parsed?.success ? (tool!.extraSeconds?.(parsed.data as never) ?? 0) : 0);
    },
    async handle(args, context): Promise<ToolOutput> {
      const action = args.action as ComputerArgs['action'];
      const call = toNative(args as ComputerArgs);
      const actedAt = performance.now();
      const result = await runNative(call, context);
      if (result.isError) throw failed(action, result);
      if (action === 'cursor_position') {
        const { x, y } = fromScreen(await context.executor.cursorPosition(), await replyFrame(context), 'pixels');
        return { content: [{ type: 'text', text: `X=${x},Y=${y}` }], structuredContent: { action, x, y } };
      }
      if (!call.spec.screenshot) return { ...result, structuredContent: { ...result.structuredContent, action } };
      const { screenshot, settle } = await settledScreenshot(context, actedAt);
      // The action ran: an error now would invite the loop to run it again, so a failed screenshot is reported, not thrown.
      const after = screenshot.isError ? [{ type: 'text' as const, text: `No screenshot after ${action}: ${textOf(screenshot)}` }] : screenshot.content;
      return {
        content: [...result.content.filter((block) => block.type === 'text'), ...after],
        structuredContent: { action, settle, ...(screenshot.isError ? { screenshotError: screenshot.structuredContent?.error } : {}) },
      };
    },
  });
}
