/**
 * The built-in classification, one file per category. Operators extend it with ClassificationData.
 * Ids compare case-insensitively and with a ".desktop" or ".exe" suffix dropped, so "Firefox"
 * (a WM_CLASS class) and "firefox" (an executable) are one entry; an id sits in one category only.
 */
import type { CategoryEntries } from '../types.ts';
import { BROWSERS } from './browsers.ts';
import { DENIED } from './denied.ts';
import { FILE_BROWSERS } from './file-browsers.ts';
import { TERMINALS } from './terminals.ts';
import { TRADING } from './trading.ts';

export type ClassifiedCategory = 'browser' | 'terminal' | 'trading' | 'denied';

export const BUILTIN_CLASSIFICATION: Record<ClassifiedCategory, CategoryEntries> = {
  // Web and file browsers: both open whatever they are pointed at (read tier).
  browser: { ids: [...BROWSERS.ids, ...FILE_BROWSERS.ids], names: [...BROWSERS.names, ...FILE_BROWSERS.names] },
  terminal: TERMINALS,
  trading: TRADING,
  denied: DENIED,
};
