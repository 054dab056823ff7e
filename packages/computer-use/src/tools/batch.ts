/**
 * computer_batch: several actions in one call. Every action is validated before any runs; then
 * they run in order, each through the same dispatcher (and so the same gates) as a single
 * call, stopping at the first failure. Coordinates all refer to the screenshot taken before the
 * batch, even when the batch itself takes screenshots. Which tools a batch may hold is each
 * tool's own fact (`batchable`): the registry builds the batch tool from them.
 */
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { defineTool, type ContentBlock, type ToolDefinition } from './define-tool.ts';
import { LIMITS } from './params.ts';
import type { ToolCallResult } from './result.ts';

const FIELDS = ['coordinate', 'start_coordinate', 'text', 'scroll_direction', 'scroll_amount', 'duration', 'repeat'] as const;

const batchActionOf = (names: readonly [string, ...string[]]) => z
  .strictObject({
    action: z.enum(names).describe('The tool to run'),
    coordinate: z.unknown().optional().describe('As for the tool'),
    start_coordinate: z.unknown().optional().describe('As for left_click_drag'),
    text: z.unknown().optional().describe('As for type, key, hold_key, or click modifiers'),
    scroll_direction: z.unknown().optional().describe('As for scroll'),
    scroll_amount: z.unknown().optional().describe('As for scroll'),
    duration: z.unknown().optional().describe('As for wait and hold_key, in seconds'),
    repeat: z.unknown().optional().describe('As for key'),
  })
  .describe('One action and the parameters of its tool');

type BatchAction = z.infer<ReturnType<typeof batchActionOf>>;

const subArgs = (action: BatchAction) => Object.fromEntries(FIELDS.filter((field) => action[field] !== undefined).map((field) => [field, action[field]]));

/** computer_batch over the tools that declare themselves batchable. */
export function batchTool(tools: readonly ToolDefinition[]): ToolDefinition {
  const names = tools.filter((tool) => tool.batchable).map((tool) => tool.name);
  if (names.length === 0) throw new Error('a batch needs at least one batchable tool');
  const BATCHABLE = names as [string, ...string[]];
  const batchAction = batchActionOf(BATCHABLE);
  return defineTool({
    name: 'computer_batch',
    title: 'Run several actions', effect: 'acts', gated: false, pixelChecked: false, batchable: false,
    description: () =>
      `Run up to ${LIMITS.batchMax} actions in order in one call (${BATCHABLE.join(', ')}). Stops at the first failure and reports what completed, what failed and what was left undone. All coordinates refer to the screenshot taken before the batch.`,
    inputSchema: z.strictObject({
      actions: z.array(batchAction).min(1, { message: 'a batch needs at least one action' }).max(LIMITS.batchMax, { message: `a batch holds at most ${LIMITS.batchMax} actions` }).describe('The actions, in order'),
    }),
    actionKind: 'none',
    extraSeconds: (args) => args.actions.reduce((sum, action) => sum + (typeof action.duration === 'number' ? action.duration : 0), 0),
    async handle(args, context) {
      const calls = args.actions.map((action, index) => {
        try {
          return { action: action.action, args: context.dispatcher.parse(action.action, subArgs(action)).args };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          throw new ToolError('bad_args', `actions[${index}] (${action.action}): ${message}. Nothing in the batch was run.`);
        }
      });
      const seconds = args.actions.reduce((sum, action) => sum + (typeof action.duration === 'number' ? action.duration : 0), 0);
      if (seconds > LIMITS.secondsMax) {
        throw new ToolError('bad_args', `the waits and holds of a batch add up to at most ${LIMITS.secondsMax} s; this one asks for ${seconds} s. Nothing was run.`);
      }

      const { state } = context;
      const frame = state.lastScreenshot;
      const content: ContentBlock[] = [];
      const completed: { index: number; action: string; text: string }[] = [];
      for (const [index, call] of calls.entries()) {
        // Each action sees the pre-batch frame; a screenshot taken inside becomes the frame after.
        const subState = { ...state, lastScreenshot: frame };
        // A stopped call (kill switch, deadline) ends between steps: callTool refuses at once.
        const result: ToolCallResult = await context.dispatcher.call(call.action, call.args, { ...context, state: subState });
        state.mouseHeld = subState.mouseHeld;
        state.display = subState.display;
        if (subState.lastScreenshot !== frame) state.lastScreenshot = subState.lastScreenshot;
        const text = result.content.filter((block) => block.type === 'text').map((block) => (block as { text: string }).text).join(' ');
        if (result.isError) {
          const kind = result.structuredContent?.error?.kind ?? 'executor_failed';
          const batch = { completed, failed: { index, action: call.action, kind, message: text }, remaining: calls.slice(index + 1).map((c) => c.action) };
          const message = `Batch stopped at actions[${index}] (${call.action}): ${text} Completed ${completed.length}, ${batch.remaining.length} not run.`;
          return {
            isError: true,
            content: [...content, { type: 'text', text: `${message}\n${JSON.stringify(batch)}` }],
            structuredContent: { error: { kind, message }, batch },
          };
        }
        content.push(...result.content.filter((block) => block.type === 'image'));
        completed.push({ index, action: call.action, text });
      }
      const batch = { completed, failed: null, remaining: [] };
      return { content: [...content, { type: 'text', text: `Completed all ${completed.length} actions.\n${JSON.stringify(batch)}` }], structuredContent: { batch } };
    },
  });
}
