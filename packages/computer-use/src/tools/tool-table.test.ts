import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { toolTable, withToolTable } from './tool-table.ts';

test('the README tool table is the one the registry renders (run scripts/gen-tool-table.ts)', () => {
  const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
  assert.equal(withToolTable(readme), readme, 'README.md is out of date: node --import tsx scripts/gen-tool-table.ts');
});

test('the table has a row per tool of both endpoints, with the hints as columns', () => {
  const rows = toolTable().split('\n').slice(2);
  assert.equal(rows.length, 25);
  assert.match(rows.find((row) => row.startsWith('| `screenshot`'))!, /\| `\/mcp` \| yes \| – \| yes \| yes \| – \| yes \|$/);
  assert.match(rows.find((row) => row.startsWith('| `computer`'))!, /\*\*action\*\*.*\| `\/computer` \| – \| yes \|/);
  assert.match(rows.find((row) => row.startsWith('| `request_access`'))!, /`\/mcp`, `\/computer`/);
});

test('a README without the markers is an error, not a silent no-op', () => {
  assert.throws(() => withToolTable('# no markers'), /markers/);
});
