import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FailureSignal } from './failure-signal.ts';

test('the first failure is reported once, to every listener, and to one that comes later', () => {
  const reported: string[] = [];
  const heard: string[] = [];
  const end = new FailureSignal((reason) => reported.push(reason));
  end.onFailure((reason) => heard.push(`a: ${reason}`));
  end.fail('Xvfb stopped (exit 1)');
  end.fail('the window manager stopped (exit 1)');
  end.onFailure((reason) => heard.push(`b: ${reason}`));
  assert.deepEqual(reported, ['Xvfb stopped (exit 1)']);
  assert.deepEqual(heard, ['a: Xvfb stopped (exit 1)', 'b: Xvfb stopped (exit 1)']);
  assert.equal(end.failed, 'Xvfb stopped (exit 1)');
  assert.equal(end.ended, true);
});

test('stop() tears down once, and a failure after it is none', async () => {
  let teardowns = 0;
  const heard: string[] = [];
  const end = new FailureSignal();
  end.onFailure((reason) => heard.push(reason));
  assert.equal(end.ended, false);
  const first = end.stop(async () => {
    teardowns += 1;
  });
  const second = end.stop(async () => {
    teardowns += 1;
  });
  assert.equal(first, second);
  await second;
  end.fail('Xvfb stopped (killed by SIGTERM)');
  assert.equal(teardowns, 1);
  assert.deepEqual(heard, []);
  assert.equal(end.failed, null);
  assert.equal(end.ended, true);
});
