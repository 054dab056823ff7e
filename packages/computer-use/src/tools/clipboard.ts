/** read_clipboard and write_clipboard on the desktop's CLIPBOARD selection, each behind its grant flag. */
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { clickTierInFront } from '../gates/clipboard-guard.ts';
import { defineTool, text } from './define-tool.ts';
import { LIMITS } from './params.ts';

export const clipboardTools = [
  defineTool({
    name: 'read_clipboard',
    title: 'Read the clipboard', effect: 'observes', gated: true, pixelChecked: false, batchable: false,
    description: () => 'Read the text on the desktop\'s clipboard. Needs the clipboardRead grant flag.',
    inputSchema: z.strictObject({}),
    actionKind: 'none',
    async handle(_args, { executor, state }) {
      if (!state.grants.flags.clipboardRead) {
        throw new ToolError('grant_flag_required', 'Reading the clipboard needs the clipboardRead flag: call request_access with clipboardRead: true.');
      }
      const value = await executor.readClipboard();
      return text(value ?? '');
    },
  }),
  defineTool({
    name: 'write_clipboard',
    title: 'Write the clipboard', effect: 'acts', idempotent: true, gated: true, pixelChecked: false, batchable: false,
    description: () => `Put text on the desktop's clipboard (at most ${LIMITS.clipboardTextMax} characters). Needs the clipboardWrite grant flag.`,
    inputSchema: z.strictObject({
      text: z.string().max(LIMITS.clipboardTextMax, { message: `clipboard text is limited to ${LIMITS.clipboardTextMax} characters` }).describe('The text to put on the clipboard'),
    }),
    actionKind: 'none',
    async handle(args, context) {
      const { executor, state } = context;
      if (!state.grants.flags.clipboardWrite) {
        throw new ToolError('grant_flag_required', 'Writing the clipboard needs the clipboardWrite flag: call request_access with clipboardWrite: true.');
      }
      const [frontmost, windows] = await Promise.all([executor.frontmostApp(), executor.listWindows()]);
      if (windows.some((window) => window.window === frontmost.window) && clickTierInFront(frontmost, context)) {
        throw new ToolError('tier_insufficient', 'The clipboard cannot be written while a click-tier app (a terminal or IDE) is in front: a click on Paste would run it. Bring a full-tier app to the front first.');
      }
      await executor.writeClipboard(args.text);
      return text(`Put ${[...args.text].length} characters on the clipboard.`);
    },
  }),
];
