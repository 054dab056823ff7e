/**
 * Shared argument schemas, with the limits the seed states and the ceilings deskgate adds.
 * Every field is described: these descriptions are what the model reads.
 */
import { z } from 'zod';
import type { DescribeContext } from './define-tool.ts';

export const LIMITS = {
  /** Characters in one `type` call. */
  typeTextMax: 20_000,
  /** Characters in a key chord or a modifier string. */
  chordMax: 200,
  repeatMax: 100,
  scrollAmountMax: 100,
  secondsMax: 100,
  coordinateMax: 100_000,
  /** Characters written to the clipboard in one call. */
  clipboardTextMax: 200_000,
  /** Actions in one computer_batch. */
  batchMax: 50,
} as const;

export const coordinateSpace = ({ coordinateMode }: DescribeContext) =>
  coordinateMode === 'pixels'
    ? 'in the pixels of the last screenshot (x from the left, y from the top)'
    : 'in percent of the display, 0–100 (x from the left, y from the top)';

export const coordinate = (what: string) =>
  z
    .array(z.number().finite().min(0).max(LIMITS.coordinateMax))
    .length(2, { message: 'a coordinate is exactly two numbers [x, y]' })
    .describe(what) as unknown as z.ZodType<[number, number]>;

export const modifiers = z
  .string()
  .max(LIMITS.chordMax)
  .optional()
  .describe('Modifier keys to hold during the click, joined with "+", e.g. "shift" or "ctrl+shift"');

export const chord = z
  .string()
  .min(1, { message: 'a key chord cannot be empty' })
  .max(LIMITS.chordMax)
  .describe('Key or chord in xdotool style, joined with "+", e.g. "Return", "ctrl+a", "ctrl+shift+t"');

export const seconds = (what: string) => z.number().finite().min(0).max(LIMITS.secondsMax).describe(what);
