import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultPolicy } from '../access/policy.ts';
import { errorResult, toolContext } from '../dispatch.ts';
import type { Executor, WindowInfo } from '../executor.ts';
import { initialSessionState } from '../session-state.ts';
import { findTool } from './registry.ts';
import { withSettledScreenshot } from './settled-screenshot.ts';

const APP: WindowInfo = { window: 1, title: 'a', wmClass: ['a', 'A'], pid: 1, exe: null, x: 0, y: 0, width: 100, height: 100, mapped: true };

function context(settle: () => Promise<{ settled: boolean; waitedMs: number }>, abort?: AbortController) {
  const state = initialSessionState();
  state.grants.apps.push({ app: 'A', tier: 'full', category: 'other' });
  const executor = {
    monitors: async () => [{ name: 'DG-1', x: 0, y: 0, width: 100, height: 100, primary: true }],
    listWindows: async () => [APP],
    capture: async () => ({ data: Buffer.from('x'), width: 100, height: 100, mimeType: 'image/jpeg', timings: {} }),
    waitForSettle: settle,
    guard: () => undefined,
  } as unknown as Executor;
  return toolContext({ executor, state, signal: (abort ?? new AbortController()).signal, policy: defaultPolicy(), approvals: null });
}

const clicked = { content: [{ type: 'text' as const, text: 'Left-click at (1, 1).' }] };

test('a tool that acts gets the settled screen appended, with how long the wait took', async () => {
  const result = await withSettledScreenshot(findTool('left_click'), clicked, context(async () => ({ settled: true, waitedMs: 95.4 })));
  assert.deepEqual(result.content.map((block) => block.type), ['text', 'image']);
  assert.deepEqual(result.structuredContent, { settle: { settled: true, waitedMs: 95 } });
});

test('tools that only look, and refused calls, are returned unchanged', async () => {
  const never = context(async () => assert.fail('no wait for these'));
  assert.equal(await withSettledScreenshot(findTool('list_granted_applications'), clicked, never), clicked);
  assert.equal(await withSettledScreenshot(findTool('zoom'), clicked, never), clicked);
  const refused = errorResult('tier_insufficient', 'no');
  assert.equal(await withSettledScreenshot(findTool('left_click'), refused, never), refused);
});

test('a call stopped during the wait keeps the result of the action that already ran', async () => {
  const abort = new AbortController();
  const ctx = context(async () => (abort.abort(), Promise.reject(new Error('stopped'))), abort);
  const result = await withSettledScreenshot(findTool('key'), clicked, ctx);
  assert.deepEqual(result.content, clicked.content);
  assert.equal((result.structuredContent?.settle as { settled: boolean }).settled, false);
});
