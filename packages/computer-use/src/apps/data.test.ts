import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILTIN_CLASSIFICATION } from './data/index.ts';

const categories = Object.entries(BUILTIN_CLASSIFICATION);

test('no exact id sits in two categories, and none repeats', () => {
  const seen = new Map<string, string>();
  for (const [category, entries] of categories) {
    for (const id of entries.ids) {
      const key = id.toLowerCase();
      assert.equal(seen.get(key), undefined, `"${id}" is listed in ${seen.get(key)} and ${category}`);
      seen.set(key, category);
    }
  }
});

test('name substrings are lowercase, at least 3 characters and unique per category', () => {
  for (const [category, entries] of categories) {
    assert.equal(new Set(entries.names).size, entries.names.length, `${category} repeats a name`);
    for (const name of entries.names) {
      assert.equal(name, name.toLowerCase(), `${category}: "${name}" must be lowercase`);
      assert.ok(name.length >= 3, `${category}: "${name}" is too short to be a useful substring`);
    }
  }
});

test('every category has the breadth of the seed: dozens of ids', () => {
  for (const [category, entries] of categories) assert.ok(entries.ids.length >= 40, `${category}: ${entries.ids.length} ids`);
});
