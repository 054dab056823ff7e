import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { queueEventsFromNow } from './queue-events-from-now.ts';
import { usePrivateRedis } from './test-support/private-redis.ts';

const db = usePrivateRedis((url) => new Redis(url, { maxRetriesPerRequest: null }));
const prefix = 'dg-test';

/** Heard within 3 s, or a clear failure (a missed event would otherwise wait forever). */
const heardWithin = <T>(heard: Promise<T>, what: string) =>
  Promise.race([heard, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} was never heard`)), 3000).unref())]);

const completed = (redis: Redis, queue: string, jobId: string) =>
  redis.xadd(`${prefix}:${queue}:events`, '*', 'event', 'completed', 'jobId', jobId, 'returnvalue', JSON.stringify({ jobId }));

test('an event written the moment the listener is ready is heard; one written before it was asked for is not', async () => {
  await completed(db.redis, 'q1', 'before');
  const connection = db.redis.duplicate();
  const events = await queueEventsFromNow('q1', connection, prefix);
  try {
    const heard: string[] = [];
    events.on('completed', ({ jobId }) => heard.push(jobId));
    const now = once(events, 'completed:now');
    // Before the listener's first stream read (it sets its client name first): `$` would miss this.
    await completed(db.redis, 'q1', 'now');
    await heardWithin(now, 'the event written at once');
    assert.deepEqual(heard, ['now']);
  } finally {
    await events.close();
    connection.disconnect();
  }
});

test('on a queue whose event stream does not exist yet, the first event is heard', async () => {
  const connection = db.redis.duplicate();
  const events = await queueEventsFromNow('q-new', connection, prefix);
  try {
    const first = once(events, 'completed:first');
    await completed(db.redis, 'q-new', 'first');
    const [args] = (await heardWithin(first, 'the first event')) as [{ returnvalue: { jobId: string } }];
    assert.deepEqual(args.returnvalue, { jobId: 'first' });
  } finally {
    await events.close();
    connection.disconnect();
  }
});
