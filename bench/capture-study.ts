/**
 * The capture study alone, not the whole `npm run bench`: one stack at 1280×800, then the rows
 * `npm run bench` prints for the screenshot encoders (bench/encoders.ts) and for action →
 * settled screenshot (bench/settle.ts). STUDY_TRIALS (default 6) and STUDY_ITERATIONS
 * (default 40) set the sizes.
 *
 *     node --import tsx bench/capture-study.ts
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack } from '../scripts/lib/stack.ts';
import { BENCH_POLICY_FILE } from './client.ts';
import { renderTable } from './report.ts';
import { captureRows, measureCapture } from './settle.ts';

const stack = await startStack({
  env: { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_DESKTOP_SIZE: '1280x800', DESKGATE_POLICY_FILE: BENCH_POLICY_FILE },
  tenant: 'bench',
  logDir: mkdtempSync(join(tmpdir(), 'deskgate-capture-study-')),
});
try {
  const figures = await measureCapture(stack, {
    encoderIterations: Number(process.env.STUDY_ITERATIONS ?? 40),
    settleTrials: Number(process.env.STUDY_TRIALS ?? 6),
  });
  process.stdout.write(`${renderTable({ title: 'deskgate capture study', machine: {}, rows: captureRows(figures), extra: {} })}\n`);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  await stack.stop();
}
