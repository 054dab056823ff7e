/**
 * The built-in classification, one file per category. Operators extend it with ClassificationData.
 * Ids compare case-insensitively and with a ".desktop" or ".exe" suffix dropped, so "Firefox"
 * (a WM_CLASS class) and "firefox" (an executable) are one entry; an id sits in one category only.
 */
import type { CategoryEntries } from '../types.ts';
import { BROWSERS } from './browsers.ts';
import { DENIED } from './denied.ts';
import { TERMINALS } from './terminals.ts';
import { TRADING } from './trading.ts';

export type ClassifiedCategory = 'browser' | 'terminal' | 'trading' | 'denied';

export const BUILTIN_CLASSIFICATION: Record<ClassifiedCategory, CategoryEntries> = {
  browser: BROWSERS,
  terminal: TERMINALS,
  trading: TRADING,
  denied: DENIED,
};
