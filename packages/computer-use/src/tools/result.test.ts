import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolError } from '../errors.ts';
import { errorResult, toolErrorResult } from './result.ts';

test('a refusal that knows when to retry carries it as whole milliseconds; one that does not has no such field', () => {
  assert.deepEqual(toolErrorResult(new ToolError('quota_exceeded', 'retry in 1.5 s', 1499.2)), {
    isError: true,
    content: [{ type: 'text', text: 'retry in 1.5 s' }],
    structuredContent: { error: { kind: 'quota_exceeded', message: 'retry in 1.5 s', retryAfterMs: 1500 } },
  });
  assert.deepEqual(toolErrorResult(new ToolError('bad_args', 'no')).structuredContent, { error: { kind: 'bad_args', message: 'no' } });
  assert.equal(errorResult('lock_held', 'now', -5).structuredContent?.error?.retryAfterMs, 0, 'never negative');
});
