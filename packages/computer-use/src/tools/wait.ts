import { z } from 'zod';
import { sleep } from '../abort.ts';
import { defineTool, text } from './define-tool.ts';
import { seconds } from './params.ts';

export const waitTools = [
  defineTool({
    name: 'wait',
    title: 'Wait', effect: 'observes', gated: false, pixelChecked: false, batchable: true,
    description: () => 'Wait a number of seconds (0–100), e.g. for an app to finish loading.',
    inputSchema: z.strictObject({ duration: seconds('How long to wait, in seconds (0–100)') }),
    actionKind: 'none',
    extraSeconds: (args) => args.duration,
    async handle(args, { signal }) {
      await sleep(args.duration * 1000, signal);
      return text(`Waited ${args.duration} s.`);
    },
  }),
];
