/**
 * The one way deskgate connects to Redis (gateway, worker, the keys CLI, BullMQ): every
 * command has a deadline, a dead Redis is reported at once instead of queueing calls behind
 * it, and the connection comes back by itself.
 *
 * - Non-blocking commands fail after `commandMs` (default 1 s) with RedisUnavailableError.
 *   ioredis' own `commandTimeout` cannot be used: it applies to blocking commands too, and
 *   would cut BLPOP/BZPOPMIN/XREAD BLOCK (the action channel's and BullMQ's waits) short.
 *   Blocking commands instead get ioredis' `blockingTimeout`: a blocking command left
 *   unanswered past its own timeout plus a grace is settled as "nothing popped", so a loop
 *   stuck on a dead connection moves on.
 * - Once a connection has been ready, commands sent while it is down fail at once
 *   (enableOfflineQueue off) instead of waiting in ioredis' offline queue. Before the first
 *   connect they wait (bounded by `commandMs`), so a service may start with Redis.
 * - A command that already failed its caller is never sent later (after a reconnect, from the
 *   offline queue or the unfulfilled-commands resend): the caller was told "not done", and an
 *   enqueue that ran anyway would be a replay.
 * - Commands in flight when the connection drops are not resent (a replayed enqueue could
 *   queue an action twice); their callers get RedisUnavailableError.
 * - Reconnects retry every 100 ms … 1 s, forever; READONLY (a replica after a failover)
 *   forces a reconnect to the new primary.
 *
 * BullMQ's blocking workers need `maxRetriesPerRequest: null`; such connections (the `bullmq`
 * role, or any duplicate made with that override) keep ioredis' offline queue and resend,
 * which BullMQ's own watchdogs expect; their non-blocking commands still time out.
 */
import { Command, Redis, type RedisOptions } from 'ioredis';
import { ToolError } from '@deskgate/computer-use';

export type RedisRole = 'gateway' | 'worker' | 'cli' | 'bullmq';

/** A command deadline the event loop overslept by more than this was a stall of this process, not Redis's silence. */
const STALL_MS = 250;

export const REDIS_TIMEOUTS = {
  /** A non-blocking command answers within this or fails. */
  commandMs: 1000,
  /** A TCP connect (and handshake) attempt gives up after this. */
  connectMs: 1000,
  /** Reconnect delays grow 100 ms per attempt up to this. */
  reconnectMaxMs: 1000,
  /** A blocking command unanswered this long past its own timeout is settled as a timeout. */
  blockingGraceMs: 2000,
  /** The safety net for a blocking command that would block forever (timeout 0). */
  blockingMaxMs: 60_000,
} as const;

/** What callers are told while Redis cannot be reached. */
export const UNAVAILABLE_MESSAGE = "deskgate's state store (Redis) cannot be reached right now, so nothing was done. Retry in a few seconds.";

/** A Redis command failed because Redis could not be reached (or did not answer in time). */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
  /**
   * The command had been sent when its deadline passed: Redis may still run it (a slow Redis
   * answers late), so "nothing was done" cannot be promised. False when it never left this process.
   */
  readonly maySucceedLate: boolean;
  constructor(reason: string, options?: { cause?: unknown; maySucceedLate?: boolean }) {
    super(`Redis unavailable: ${reason}`, options);
    this.maySucceedLate = options?.maySucceedLate ?? false;
  }
}

/** ioredis' and Redis' own ways of saying the store is unreachable or not serving yet. */
const UNREACHABLE = [
  /Stream isn't writeable/i,
  /Connection is closed/i,
  /Command timed out/i,
  /Reached the max retries per request limit/i,
  /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)\b/,
  /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY)\b/,
];

/** Whether an error means "Redis is unreachable" (the caller should be told `unavailable`, 503). */
export function isRedisUnavailable(error: unknown): boolean {
  if (error instanceof RedisUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE[4]!.test(code)) return true;
  return UNREACHABLE.some((pattern) => pattern.test(error.message));
}

/** The tool error a call gets while Redis is unreachable. */
export function unavailableToolError(): ToolError {
  return new ToolError('unavailable', UNAVAILABLE_MESSAGE);
}

export interface DeskgateRedisSettings {
  /** Deadline of each non-blocking command (0: none). */
  commandTimeoutMs?: number;
  /** Once ready, fail commands at once while disconnected (default: unless maxRetriesPerRequest is null). */
  failFast?: boolean;
}

export type DeskgateRedisOptions = RedisOptions & DeskgateRedisSettings;

/** ioredis options for a role; `createRedis` is how to use them. */
export function redisOptions(role: RedisRole, overrides: DeskgateRedisOptions = {}): DeskgateRedisOptions {
  const blockingForBull = role === 'bullmq';
  return {
    connectTimeout: REDIS_TIMEOUTS.connectMs,
    retryStrategy: (times: number) => Math.min(times * 100, REDIS_TIMEOUTS.reconnectMaxMs),
    reconnectOnError: (error: Error) => (/^READONLY\b/.test(error.message) ? 1 : false),
    // BullMQ's blocking connections must have null; ours fail pending commands on the second failed reconnect.
    maxRetriesPerRequest: blockingForBull ? null : 1,
    autoResendUnfulfilledCommands: blockingForBull,
    blockingTimeout: REDIS_TIMEOUTS.blockingMaxMs,
    blockingTimeoutGrace: REDIS_TIMEOUTS.blockingGraceMs,
    commandTimeoutMs: commandTimeoutFromEnv(),
    // The CLI runs one command and exits: it never needs to wait for a reconnect.
    failFast: !blockingForBull,
    ...overrides,
  };
}

function commandTimeoutFromEnv(): number {
  const raw = process.env.DESKGATE_REDIS_COMMAND_TIMEOUT_MS;
  if (raw === undefined || raw === '') return REDIS_TIMEOUTS.commandMs;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 50 || ms > 60_000) {
    throw new Error(`DESKGATE_REDIS_COMMAND_TIMEOUT_MS must be a whole number of milliseconds from 50 to 60000 (got "${raw}")`);
  }
  return ms;
}

/** A connection with deskgate's timeouts (see the file's comment): `createRedis(url, role)`. */
export function createRedis(url: string, role: RedisRole, overrides: DeskgateRedisOptions = {}): DeskgateRedis {
  return new DeskgateRedis(url, redisOptions(role, overrides));
}

const ARMED = Symbol('deskgate.commandDeadline');
const SENT = Symbol('deskgate.commandSent');
type TimedCommand = Command & { [ARMED]?: true; [SENT]?: true; promise: Promise<unknown> };

export class DeskgateRedis extends Redis {
  private readonly commandTimeoutMs: number;
  private readonly failFast: boolean;
  /** @internal what duplicate() passes on */
  readonly settings: DeskgateRedisSettings;
  /** @internal */
  readonly url: string;

  constructor(url: string, options: DeskgateRedisOptions) {
    const { commandTimeoutMs, failFast, ...ioredisOptions } = options;
    super(url, ioredisOptions as RedisOptions & { replyMapping?: 'legacy' });
    this.settings = { commandTimeoutMs, failFast };
    this.commandTimeoutMs = commandTimeoutMs ?? REDIS_TIMEOUTS.commandMs;
    this.failFast = failFast ?? options.maxRetriesPerRequest !== null;
    this.url = url;
    if (this.failFast) this.once('ready', () => (this.options.enableOfflineQueue = false));
    // Connection errors (each failed reconnect) reach callers as failed commands; without a
    // listener ioredis would print every one to stderr, once a second per connection.
    this.on('error', () => undefined);
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const timed = command as TimedCommand;
    // Its caller already got an error: sending it now (a resend, an offline-queue flush) would run it unasked.
    if (!stream && timed.isSettled) return timed.promise;
    // Written to the socket now (not parked in the offline queue): from here on Redis may run it.
    if (stream || this.status === 'ready') timed[SENT] = true;
    if (!timed[ARMED] && this.commandTimeoutMs > 0 && !Command.checkFlag('BLOCKING_COMMANDS', command.name)) {
      timed[ARMED] = true;
      const ms = this.commandTimeoutMs;
      const sentAt = performance.now();
      let timer: NodeJS.Timeout;
      let extended = false;
      // A deadline judged on this process's clock, not Redis's: when the event loop was stalled
      // (a busy CPU), the timer fires before the socket's data is read, and an answer that came
      // in time would be counted as none, its work done but its reply lost. So the verdict waits
      // one I/O turn (setImmediate runs after the poll phase reads what arrived), and a deadline
      // the loop overslept by more than STALL_MS gets one more period.
      const expire = () => {
        const late = performance.now() - sentAt - (extended ? 2 * ms : ms);
        setImmediate(() => {
          if (timed.isSettled) return;
          if (!extended && late > STALL_MS) {
            extended = true;
            timer = setTimeout(expire, ms);
            timer.unref();
            return;
          }
          timed.reject(new RedisUnavailableError(`${command.name} got no answer within ${extended ? 2 * ms : ms} ms`, { maySucceedLate: timed[SENT] === true }));
        });
      };
      timer = setTimeout(expire, ms);
      timer.unref();
      const clear = () => clearTimeout(timer);
      timed.promise.then(clear, clear);
    }
    return super.sendCommand(command, stream);
  }
}

/**
 * duplicate() makes a DeskgateRedis with the same settings (BullMQ duplicates the connections
 * it is given, so its own connections get the timeouts too). `maxRetriesPerRequest: null` in
 * the override makes it a BullMQ-style one. Set on the prototype: ioredis types duplicate()
 * with a reply-mapping generic a subclass cannot restate.
 */
function duplicate(this: DeskgateRedis, override?: Partial<DeskgateRedisOptions>): DeskgateRedis {
  const bullStyle = override?.maxRetriesPerRequest === null;
  const inherited = { ...this.options } as DeskgateRedisOptions;
  // The copy has an offline queue of its own until its first connect.
  inherited.enableOfflineQueue = true;
  const options: DeskgateRedisOptions = {
    ...inherited,
    ...this.settings,
    ...(bullStyle ? { autoResendUnfulfilledCommands: true, failFast: false } : {}),
    ...(override ?? {}),
  };
  // Host, port and credentials are in the options already; the URL is parsed again to the same.
  return new DeskgateRedis(this.url, options);
}
(DeskgateRedis.prototype as unknown as { duplicate: typeof duplicate }).duplicate = duplicate;
