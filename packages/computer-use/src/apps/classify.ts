/**
 * Which category an app falls in, and so its default tier. Exact ids first (bundle id,
 * .desktop id, WM_CLASS instance and class, executable basename, all case-insensitive), then
 * lowercase name substrings over every identity field. Operator entries are consulted before the
 * built-ins, exact then names, so an operator can add apps and move any app to another category.
 */
import { BUILTIN_CLASSIFICATION } from './data/index.ts';
import type { ClassificationData } from './schema.ts';
import { categoryTier } from './tier.ts';
import type { AppCategory, AppClassification, AppIdentity } from './types.ts';

export { classificationDataSchema, type ClassificationData } from './schema.ts';

/**
 * The order categories are tried in, for names (and for an id an operator lists twice).
 * Trading comes first: finance apps carry generic words, so "Bloomberg Terminal" must be
 * trading, not terminal. Denied comes before browser and terminal: when only a window title is
 * known it may name both a page and its app ("Spotify – Web Player — Mozilla Firefox"), and a
 * policy denial must never soften into a grantable tier because a browser or terminal word also
 * appears. Trading may precede denied because both are lists of brand names that do not collide.
 */
const CATEGORY_ORDER: readonly AppCategory[] = ['trading', 'denied', 'browser', 'terminal', 'other'];

interface Matcher {
  ids: Map<string, AppCategory>;
  names: Array<{ needle: string; category: AppCategory }>;
}

type Entries = Partial<Record<AppCategory, { ids?: readonly string[]; names?: readonly string[] }>>;

function compile(data: Entries): Matcher {
  const ids = new Map<string, AppCategory>();
  const names: Matcher['names'] = [];
  for (const category of CATEGORY_ORDER) {
    for (const id of data[category]?.ids ?? []) {
      const key = id.trim().toLowerCase();
      if (!ids.has(key)) ids.set(key, category);
    }
    for (const name of data[category]?.names ?? []) names.push({ needle: name.trim().toLowerCase(), category });
  }
  return { ids, names };
}

const BUILTIN = compile(BUILTIN_CLASSIFICATION);
const compiledExtras = new WeakMap<ClassificationData, Matcher>();

function operatorMatcher(extra: ClassificationData): Matcher {
  let matcher = compiledExtras.get(extra);
  if (!matcher) compiledExtras.set(extra, (matcher = compile(extra)));
  return matcher;
}

interface Field {
  label: string;
  value: string;
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** The identity's fields, each with its lowercase form; blank ones dropped. */
function fields(identity: AppIdentity): Field[] {
  const out: Field[] = [];
  const add = (label: string, value: string | null | undefined) => {
    if (value && value.trim()) out.push({ label, value: value.trim() });
  };
  add('id', identity.id);
  add('wmClass', identity.wmClass?.[0]);
  add('wmClass', identity.wmClass?.[1]);
  add('exe', identity.exe ? basename(identity.exe) : undefined);
  add('name', identity.name);
  return out;
}

/** Exact keys of a field: itself, and without a ".desktop" or ".exe" suffix. */
function exactKeys(field: Field): string[] {
  const key = field.value.toLowerCase();
  const bare = key.replace(/\.(desktop|exe)$/, '');
  return bare === key ? [key] : [key, bare];
}

function matchExact(matcher: Matcher, candidates: Field[]): { category: AppCategory; by: string } | undefined {
  for (const field of candidates) {
    for (const key of exactKeys(field)) {
      const category = matcher.ids.get(key);
      if (category) return { category, by: `${field.label} "${field.value}"` };
    }
  }
  return undefined;
}

function matchName(matcher: Matcher, haystacks: Field[]): { category: AppCategory; by: string } | undefined {
  const lowered = haystacks.map((field) => ({ label: field.label, text: field.value.toLowerCase() }));
  for (const { needle, category } of matcher.names) {
    const hit = lowered.find((field) => field.text.includes(needle));
    if (hit) return { category, by: `${hit.label} contains "${needle}"` };
  }
  return undefined;
}

/** Classifies an app; `extra` is the operator's classification, merged over the built-ins. */
export function classifyApp(identity: AppIdentity, extra?: ClassificationData): AppClassification {
  const all = fields(identity);
  const exactCandidates = all.filter((field) => field.label !== 'name');
  const layers = [{ matcher: BUILTIN, source: '' }];
  if (extra) layers.unshift({ matcher: operatorMatcher(extra), source: 'operator ' });
  for (const { matcher, source } of layers) {
    const found = matchExact(matcher, exactCandidates) ?? matchName(matcher, all);
    if (found) return { category: found.category, tier: categoryTier(found.category), matchedBy: source + found.by };
  }
  return { category: 'other', tier: 'full', matchedBy: 'default' };
}
