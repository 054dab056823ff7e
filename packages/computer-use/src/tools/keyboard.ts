/** The keyboard tools of the seed: type, key, hold_key. */
import { z } from 'zod';
import { defineTool, text } from './define-tool.ts';
import { chord, LIMITS, seconds } from './params.ts';
import { parseKeys } from '../keys/keysyms.ts';
import { pasteText, shouldPaste } from './paste.ts';

export const keyboardTools = [
  defineTool({
    name: 'type',
    title: 'Type text', effect: 'acts', gated: true, pixelChecked: false, batchable: true,
    description: () =>
      `Type text into the focused window, as a person would on the keyboard. Any Unicode text; newlines press Return. At most ${LIMITS.typeTextMax} characters per call. With the clipboardWrite grant, long or multi-line text is pasted instead (the clipboard is restored afterwards).`,
    inputSchema: z.strictObject({
      text: z.string().max(LIMITS.typeTextMax, { message: `text is limited to ${LIMITS.typeTextMax} characters per call; split it over several calls` }).describe('The text to type'),
    }),
    actionKind: 'keyboard',
    async handle(args, context) {
      if (shouldPaste(args.text, context)) {
        await pasteText(args.text, context);
        return text(`Pasted ${[...args.text].length} characters.`);
      }
      await context.executor.type(args.text);
      return text(`Typed ${[...args.text].length} characters.`);
    },
  }),
  defineTool({
    name: 'key',
    title: 'Press a key or chord', effect: 'acts', gated: true, pixelChecked: false, batchable: true,
    description: () => 'Press a key or key chord in xdotool style, e.g. "Return", "ctrl+a", "ctrl+shift+t", optionally several times.',
    inputSchema: z.strictObject({
      text: chord,
      repeat: z.number().int().min(1).max(LIMITS.repeatMax).optional().describe('How many times to press the chord, 1–100 (default 1)'),
    }),
    actionKind: 'keyboard',
    async handle(args, { executor }) {
      const repeat = args.repeat ?? 1;
      await executor.key(parseKeys(args.text), repeat);
      return text(`Pressed ${args.text}${repeat > 1 ? ` ${repeat} times` : ''}.`);
    },
  }),
  defineTool({
    name: 'hold_key',
    title: 'Hold a key down', effect: 'acts', gated: true, pixelChecked: false, batchable: true,
    description: () => 'Hold a key or chord down for a number of seconds, then release it.',
    inputSchema: z.strictObject({
      text: chord,
      duration: seconds('How long to hold, in seconds (0–100)'),
    }),
    actionKind: 'keyboard',
    extraSeconds: (args) => args.duration,
    async handle(args, { executor, signal }) {
      await executor.holdKey(parseKeys(args.text), args.duration, signal);
      return text(`Held ${args.text} for ${args.duration} s.`);
    },
  }),
];
