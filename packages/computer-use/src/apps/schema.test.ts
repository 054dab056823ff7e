import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classificationDataSchema } from './classify.ts';

const problems = (input: unknown) =>
  classificationDataSchema.safeParse(input).error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);

test('accepts ids and names per category, all optional', () => {
  const data = { trading: { ids: ['com.acme.desk'], names: ['acme trader'] }, other: { ids: ['xterm'] }, denied: {} };
  assert.deepEqual(classificationDataSchema.parse(data), data);
  assert.deepEqual(classificationDataSchema.parse({}), {});
});

test('names the unknown category and the categories to use', () => {
  assert.deepEqual(problems({ browsers: {} }), [
    ': unknown app category "browsers"; use browser, terminal, trading, denied, other',
  ]);
});

test('names the unknown field of a category', () => {
  assert.deepEqual(problems({ browser: { ids: [], bundleIds: [] } }), [
    'browser: a category lists only "ids" and "names", not "bundleIds"',
  ]);
});

test('explains wrong shapes and values', () => {
  assert.deepEqual(problems([]), [': the app classification must be an object keyed by category (browser, terminal, trading, denied, other)']);
  assert.deepEqual(problems({ terminal: ['xterm'] }), ['terminal: a category must be an object like { "ids": [...], "names": [...] }']);
  assert.match(problems({ terminal: { ids: 'xterm' } })![0]!, /^terminal\.ids: ids must be a list of app ids/);
  assert.deepEqual(problems({ terminal: { ids: ['  '] } }), ['terminal.ids.0: an app id cannot be empty']);
  assert.match(problems({ denied: { names: ['tv'] } })![0]!, /^denied\.names\.0: a name substring needs at least 3 characters/);
});
