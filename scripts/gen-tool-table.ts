/**
 * Rewrites the tool table in README.md (between <!-- tools:start --> and <!-- tools:end -->)
 * from the tool registry: `node --import tsx scripts/gen-tool-table.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withToolTable } from '../packages/computer-use/src/tools/tool-table.ts';

const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
const before = readFileSync(readmePath, 'utf8');
const after = withToolTable(before);
if (after === before) {
  console.log('README.md tool table is up to date.');
} else {
  writeFileSync(readmePath, after);
  console.log('README.md tool table rewritten.');
}
