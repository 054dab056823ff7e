/**
 * Worker side of the action channel, one per desktop: claim a request, skip it when its
 * caller has already given up or its lock epoch is stale, run it, send the reply (to the
 * gateway directly when it may go ahead of the writes that come with it, else through Redis).
 *
 * The claim is one script (lua/claimAction-3.lua): it pops the request (popping is what makes
 * the channel at-most-once: a crash after the pop loses the request instead of replaying it)
 * and compares its epoch with the desktop lock's in the same atomic step, so the fence costs
 * no round trip of its own. A script cannot block, so the worker waits with a blocking command
 * that leaves the list as it is (BLMOVE of the list onto itself, LEFT LEFT: it returns once an
 * entry is there) and sends the claim in the same write, right behind it: Redis runs the claim
 * as soon as the wait returns, and a request reaches the worker in one round trip.
 *
 * A claim whose answer comes too late (past the command deadline: Redis or the host stalled)
 * may have popped a request the worker never saw. Each pop is numbered and recorded, and every
 * claim sends the number of the last one received, so the next claim hands such a request over
 * instead of leaving its caller to wait out its whole timeout; it is sent at once, without the
 * wait in front of it.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { errorResult } from '@deskgate/computer-use';
import { runBlockingLoop } from '@deskgate/service-kit';
import { actionRequest, type ActionReply, type ActionRequest } from './action-protocol.ts';
import { staleEpochMessage } from './desktop-lock.ts';
import { keys } from './keys.ts';
import { DeskgateRedis, isRedisUnavailable, REDIS_TIMEOUTS } from './redis-connection.ts';
import { multiOf, pipelineOf, queueScript } from './scripts.ts';
import type { ReplySender } from './direct-replies/reply-sender.ts';

export interface HandledAction extends Omit<ActionReply, 'id'> {
  /** Writes to make in the same transaction as the reply (e.g. the session's new state). */
  persist?: (multi: ChainableCommander) => void;
  /**
   * What `persist` writes is nothing a next call reads (only when the session was last used):
   * the reply may go to the gateway directly, ahead of those writes. Otherwise it goes through
   * Redis in their transaction, so the caller's next call finds them applied.
   */
  replyFirst?: boolean;
}

export type ActionHandler = (request: ActionRequest) => Promise<HandledAction>;

const REPLY_TTL_SECONDS = 60;
/** How long a desktop's claim record is kept: far past any call's deadline (a request found later is refused as expired). */
const CLAIM_RECORD_MS = 10 * 60 * 1000;

/** lua/claimAction-3.lua's answer, the claim's number last: nothing queued | run it | refuse it (stale epoch) | unreadable entry. */
type Claim = [0] | [1, string, number, number] | [-1, string, number, number, number] | [-2, string, number];

export class ActionServer {
  private running = true;
  private readonly loop: Promise<void>;
  /** The number of the last claim whose answer arrived (lua/claimAction-3.lua). */
  private received = 0;
  /** The last claim failed: the next one is sent without waiting first, to pick up what it may have popped. */
  private claimFailed = false;
  private inFlight = 0;

  constructor(
    private readonly redis: Redis,
    private readonly reader: Redis,
    private readonly desktopId: string,
    private readonly handle: ActionHandler,
    private readonly onError: (error: unknown) => void,
    /** Writes replies to their gateway directly where the request allows it. */
    private readonly replies?: ReplySender,
  ) {
    this.loop = this.serve();
  }

  /**
   * How long one wait blocks, in seconds. The claim queued behind it is an ordinary command and
   * gets the connection's command deadline from the moment it is sent, so the wait ends well
   * within that deadline (half of it, at most 1 s).
   */
  private waitSeconds(): number {
    const deadlineMs = this.reader instanceof DeskgateRedis ? (this.reader.settings.commandTimeoutMs ?? REDIS_TIMEOUTS.commandMs) : 0;
    return deadlineMs > 0 ? Math.min(1, deadlineMs / 2000) : 1;
  }

  /** Waits for the next request (up to `waitSeconds`) and claims it: the claim script's answer. */
  private async claim(queue: string, lock: string, waitSeconds: number): Promise<Claim> {
    const wait = !this.claimFailed;
    const pipeline = wait ? pipelineOf(this.reader).blmove(queue, queue, 'LEFT', 'LEFT', waitSeconds) : pipelineOf(this.reader);
    this.claimFailed = true; // until its answer arrives
    const answers = await queueScript(pipeline, 'claimAction', queue, lock, keys.desktopClaimed(this.desktopId), this.received, CLAIM_RECORD_MS).exec();
    const [claimError, claimed] = answers?.[wait ? 1 : 0] ?? [new Error('the claim got no answer')];
    if (claimError) throw claimError;
    this.claimFailed = false;
    const claim = claimed as Claim;
    if (claim[0] !== 0) this.received = claim[claim.length - 1] as number;
    return claim;
  }

  /** Claims requests until closed; a claim that fails (Redis unreachable) is retried, the outage reported once. */
  private serve(): Promise<void> {
    const queue = keys.desktopActions(this.desktopId);
    const lock = keys.desktopLock(this.desktopId);
    const waitSeconds = this.waitSeconds();
    return runBlockingLoop<Exclude<Claim, [0]>>({
      running: () => this.running,
      next: async () => {
        const claimed = await this.claim(queue, lock, waitSeconds);
        return claimed[0] === 0 ? null : claimed;
      },
      handle: (claimed) => this.answer(claimed),
      onError: (error, repeated) => {
        if (!(repeated && isRedisUnavailable(error))) this.onError(error);
      },
      sameOutage: isRedisUnavailable,
    });
  }

  /** Runs one claimed request (or refuses it: expired, stale epoch, malformed) and sends its reply. */
  private async answer(claimed: Exclude<Claim, [0]>): Promise<void> {
    this.inFlight++;
    try {
      await this.answerClaimed(claimed);
    } finally {
      this.inFlight--;
    }
  }

  private async answerClaimed(claimed: Exclude<Claim, [0]>): Promise<void> {
    const poppedAt = Date.now();
    if (claimed[0] === -2) {
      this.onError(new Error(`dropped an action entry that is not "<epoch>|<request>": ${claimed[1].slice(0, 200)}`));
      return;
    }
    const [verdict, body, epoch] = claimed;
    const lockEpoch = verdict === -1 ? claimed[3] : 0;
    let request: ActionRequest;
    try {
      request = actionRequest.parse({ ...(JSON.parse(body) as object), epoch });
    } catch (error) {
      this.onError(error);
      return;
    }
    // Its gateway's connection for direct replies is opened (once) while the action runs.
    if (request.direct) this.replies?.connect(request.direct);
    const stale = verdict === -1 ? staleEpochMessage(epoch, lockEpoch || null) : null;
    let reply: HandledAction;
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
    const { persist, replyFirst, ...answer } = reply;
    answer.timings.queueMs = poppedAt - request.sentAt;
    const line = JSON.stringify({ id: request.id, ...answer });
    const queueReply = (multi: ChainableCommander) => multi.rpush(request.replyTo, line).expire(request.replyTo, REPLY_TTL_SECONDS);
    const resend = () => void queueReply(this.redis.multi()).exec().catch(this.onError);
    const direct = replyFirst === true && request.direct !== undefined && this.replies?.send(request.direct, line, resend) === true;
    if (direct && !persist) return;
    const multi = multiOf(this.redis); // persist may queue a script
    persist?.(multi);
    if (!direct) queueReply(multi);
    await multi.exec().catch(this.onError);
  }

  /** Requests claimed whose reply has not been written yet (the handler may be done already). */
  get answering(): number {
    return this.inFlight;
  }

  async close(): Promise<void> {
    this.running = false;
    this.reader.disconnect();
    await this.loop.catch(() => undefined);
  }
}
