import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { envFlag, parseEnv, runBlockingLoop, serviceEnv, SettingsError, withinMs } from './index.ts';

const schema = z.object({ ...serviceEnv, DESKGATE_PORT: z.coerce.number().int().max(65535).default(1), DESKGATE_ON: envFlag.default(false) });

test('settings: defaults with nothing set; every bad setting named in one error', () => {
  assert.deepEqual(parseEnv('test', schema, {}), { REDIS_URL: 'redis://127.0.0.1:6379', DESKGATE_LOG_LEVEL: 'info', DESKGATE_DRAIN_SECONDS: 10, DESKGATE_PORT: 1, DESKGATE_ON: false });
  assert.equal(parseEnv('test', schema, { DESKGATE_DRAIN_SECONDS: '' }).DESKGATE_DRAIN_SECONDS, 10, 'empty reads as unset');
  assert.equal(parseEnv('test', schema, { DESKGATE_ON: 'yes' }).DESKGATE_ON, true);
  assert.throws(
    () => parseEnv('test', schema, { DESKGATE_PORT: '70000', DESKGATE_DRAIN_SECONDS: '601', DESKGATE_LOG_LEVEL: 'loud', DESKGATE_ON: 'maybe' }),
    (error: unknown) =>
      error instanceof SettingsError &&
      /^Invalid test configuration — /.test(error.message) &&
      ['DESKGATE_PORT', 'DESKGATE_DRAIN_SECONDS', 'DESKGATE_LOG_LEVEL', 'DESKGATE_ON: expected true or false'].every((name) => error.message.includes(name)),
  );
});

test('withinMs: the value in time, undefined when late or failed', async () => {
  assert.equal(await withinMs(Promise.resolve(7), 100), 7);
  assert.equal(await withinMs(new Promise((resolve) => setTimeout(() => resolve(7), 200)), 20), undefined);
  assert.equal(await withinMs(Promise.reject(new Error('gone')), 100), undefined);
});

test('the blocking loop: hands items over in order, skips empty waits, reports an outage once, survives a bad item, stops', async () => {
  const script: (string | null | Error)[] = ['a', null, new Error('down'), new Error('down'), 'b', 'bad', 'c'];
  const handled: string[] = [];
  const reported: [string, boolean][] = [];
  await runBlockingLoop<string>({
    running: () => script.length > 0,
    next: async () => {
      const step = script.shift()!;
      if (step instanceof Error) throw step;
      return step;
    },
    handle: (item) => {
      if (item === 'bad') throw new Error('bad item');
      handled.push(item);
    },
    onError: (error, repeated) => reported.push([(error as Error).message, repeated]),
    sameOutage: (error) => (error as Error).message === 'down',
    retryMs: 1,
  });
  assert.deepEqual(handled, ['a', 'b', 'c']);
  assert.deepEqual(reported, [['down', false], ['down', true], ['bad item', false]]);
});
