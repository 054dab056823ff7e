/**
 * A BullMQ QueueEvents that hears every event written after it was asked for.
 *
 * QueueEvents reads its stream from `$` (events after its first XREAD) unless given an id,
 * and that first XREAD comes a round trip or more after `waitUntilReady()`. A job that
 * finishes in that gap — a worker with room answers an allocation in about a millisecond —
 * is missed, and `waitUntilFinished` waits out its whole bound (seen on a loaded CI machine
 * for the first macOS allocation). Starting from the stream's tail as it is now closes the gap.
 */
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';

export async function queueEventsFromNow(queueName: string, connection: Redis, prefix: string): Promise<QueueEvents> {
  const tail = await connection.xrevrange(`${prefix}:${queueName}:events`, '+', '-', 'COUNT', 1);
  // An empty or missing stream: everything in it is new.
  const lastEventId = tail[0]?.[0] ?? '0-0';
  const events = new QueueEvents(queueName, { connection, prefix, lastEventId });
  // From the start: an 'error' with no listener would end the process. It reconnects by itself;
  // a call waiting on it times out.
  events.on('error', () => undefined);
  try {
    await events.waitUntilReady();
  } catch (error) {
    await events.close().catch(() => undefined);
    throw error;
  }
  return events;
}
