import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActionKind } from '../tools/define-tool.ts';
import { categoryTier, TIER_ANTI_SUBVERSION, tierFor, tierSatisfies } from './tier.ts';
import type { AppCategory, Tier } from './types.ts';

test('tierSatisfies: read < click < full', () => {
  const table: Array<[Tier, Tier, boolean]> = [
    ['read', 'read', true], ['read', 'click', false], ['read', 'full', false],
    ['click', 'read', true], ['click', 'click', true], ['click', 'full', false],
    ['full', 'read', true], ['full', 'click', true], ['full', 'full', true],
  ];
  for (const [granted, needed, expected] of table) assert.equal(tierSatisfies(granted, needed), expected, `${granted} vs ${needed}`);
});

test('tierFor maps each action kind to the tier it needs', () => {
  const table: Array<[ActionKind, Tier | null]> = [
    ['none', null], ['hover', 'read'], ['mouse', 'click'], ['mouse_full', 'full'], ['keyboard', 'full'],
  ];
  for (const [kind, tier] of table) assert.equal(tierFor(kind), tier, kind);
});

test('categoryTier: browser and trading read, terminal click, other full, denied none', () => {
  const table: Array<[AppCategory, Tier | null]> = [
    ['browser', 'read'], ['trading', 'read'], ['terminal', 'click'], ['other', 'full'], ['denied', null],
  ];
  for (const [category, tier] of table) assert.equal(categoryTier(category), tier, category);
});

test('the anti-subversion sentence names scripts, shell commands, other apps and shortcuts', () => {
  for (const word of ['scripts', 'shell commands', 'other apps', 'keyboard shortcuts']) assert.match(TIER_ANTI_SUBVERSION, new RegExp(word));
});
