/**
 * The operator's extension of the built-in classification, as it appears in a config file:
 *
 *   { "trading": { "ids": ["com.acme.desk"], "names": ["acme trader"] },
 *     "other":   { "ids": ["org.gnome.Terminal"] } }
 *
 * Entries are added to their category and win over the built-ins, so listing an app under
 * another category moves it there ("other" means the full tier).
 */
import { z } from 'zod';

const CATEGORIES = ['browser', 'terminal', 'trading', 'denied', 'other'] as const;

const appIds = z
  .array(z.string().trim().min(1, 'an app id cannot be empty'), {
    error: 'ids must be a list of app ids: macOS bundle ids, .desktop ids, WM_CLASS names or executable names',
  })
  .describe('Exact app ids, compared case-insensitively');

const nameSubstrings = z
  .array(
    z.string().trim().min(3, 'a name substring needs at least 3 characters, or it would match almost every app'),
    { error: 'names must be a list of substrings of app names or window titles' },
  )
  .describe('Substrings of the app name, window title, id, WM_CLASS or executable, compared in lowercase');

const categoryEntries = z.strictObject(
  { ids: appIds.optional(), names: nameSubstrings.optional() },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `a category lists only "ids" and "names", not ${issue.keys.map((key) => `"${key}"`).join(', ')}`
        : 'a category must be an object like { "ids": [...], "names": [...] }',
  },
);

export const classificationDataSchema = z.strictObject(
  {
    browser: categoryEntries.optional(),
    terminal: categoryEntries.optional(),
    trading: categoryEntries.optional(),
    denied: categoryEntries.optional(),
    other: categoryEntries.optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown app categor${issue.keys.length > 1 ? 'ies' : 'y'} ${issue.keys.map((key) => `"${key}"`).join(', ')}; use ${CATEGORIES.join(', ')}`
        : `the app classification must be an object keyed by category (${CATEGORIES.join(', ')})`,
  },
);

export type ClassificationData = z.infer<typeof classificationDataSchema>;
