import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { defineTool, text } from './define-tool.ts';
import { seconds } from './params.ts';

export const waitTools = [
  defineTool({
    name: 'wait',
    description: () => 'Wait a number of seconds (0–100), e.g. for an app to finish loading.',
    inputSchema: z.strictObject({ duration: seconds('How long to wait, in seconds (0–100)') }),
    actionKind: 'none',
    extraSeconds: (args) => args.duration,
    async handle(args, { signal }) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, args.duration * 1000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new ToolError('timeout', 'The wait was cut short: the call ran out of time.'));
        });
      });
      return text(`Waited ${args.duration} s.`);
    },
  }),
];
