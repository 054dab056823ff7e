/**
 * Worker side of the action channel, one per desktop: pop a request (popping is what makes
 * it at-most-once: a crash after the pop loses the request instead of replaying it), skip it
 * when its caller has already given up or its lock epoch is stale, run it, push the reply.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { errorResult } from '@deskgate/computer-use';
import { actionRequest, type ActionReply, type ActionRequest } from './action-protocol.ts';
import { fenceRefusal } from './desktop-lock.ts';
import { keys } from './keys.ts';
import { isRedisUnavailable } from './redis-connection.ts';

export interface HandledAction extends Omit<ActionReply, 'id'> {
  /** Writes to make in the same transaction as the reply (e.g. the session's new state). */
  persist?: (multi: ChainableCommander) => void;
}

export type ActionHandler = (request: ActionRequest) => Promise<HandledAction>;

const REPLY_TTL_SECONDS = 60;

export class ActionServer {
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly redis: Redis,
    private readonly reader: Redis,
    private readonly desktopId: string,
    private readonly handle: ActionHandler,
    private readonly onError: (error: unknown) => void,
  ) {
    this.loop = this.serve();
  }

  private async serve(): Promise<void> {
    const queue = keys.desktopActions(this.desktopId);
    // While Redis is unreachable the pop fails at once: retry every 200 ms (the connection
    // reconnects by itself), and report an outage once, not five times a second.
    let unreachable = false;
    while (this.running) {
      let popped: [string, string] | null;
      try {
        popped = await this.reader.blpop(queue, 1);
        unreachable = false;
      } catch (error) {
        if (!this.running) return;
        if (!(unreachable && isRedisUnavailable(error))) this.onError(error);
        unreachable = isRedisUnavailable(error);
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      if (!popped) continue;
      const poppedAt = Date.now();
      let request: ActionRequest;
      try {
        request = actionRequest.parse(JSON.parse(popped[1]));
      } catch (error) {
        this.onError(error);
        continue;
      }
      let reply: HandledAction;
      const stale = poppedAt <= request.deadline && fenceRefusal(await this.redis.get(keys.desktopLock(this.desktopId)).catch(() => null), request.epoch);
      if (poppedAt > request.deadline) {
        // The caller already got a timeout: running this now would be a surprise replay.
        reply = { result: errorResult('timeout', `${request.tool} expired in the queue and was not run.`), timings: {} };
      } else if (stale) {
        reply = { result: errorResult('stale_epoch', stale), timings: {} };
      } else {
        reply = await this.handle(request).catch((error: unknown) => ({
          result: errorResult('executor_failed', `${request.tool} failed in the worker: ${error instanceof Error ? error.message : String(error)}`),
          timings: {},
        }));
      }
      const { persist, ...answer } = reply;
      answer.timings.queueMs = poppedAt - request.sentAt;
      const multi = this.redis.multi();
      persist?.(multi);
      await multi
        .rpush(request.replyTo, JSON.stringify({ id: request.id, ...answer }))
        .expire(request.replyTo, REPLY_TTL_SECONDS)
        .exec()
        .catch(this.onError);
    }
  }

  async close(): Promise<void> {
    this.running = false;
    this.reader.disconnect();
    await this.loop.catch(() => undefined);
  }
}
