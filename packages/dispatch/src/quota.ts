/**
 * Per-tenant quotas, so one tenant cannot take the capacity every tenant shares: how many
 * sessions (desktops) it holds at once, and how many tool calls it makes per second. Both are
 * kept in Redis, so they hold across gateway replicas; each check is one script, one round
 * trip. A tenant over a quota gets `quota_exceeded`, saying which limit and when to retry,
 * and nothing is queued or started.
 */
import type { Redis } from 'ioredis';
import { ToolError } from '@deskgate/computer-use';
import { keys } from './keys.ts';
import { scriptsOf } from './scripts.ts';
import type { SessionRef } from './names.ts';

export const QUOTA_DEFAULTS = { maxSessions: 8, callsPerSecond: 100 } as const;
/** The call-rate window; the enqueue script counts in it too (lua/enqueueAction-5.lua). */
export const CALL_WINDOW_MS = 1000;

export interface TenantQuotaOptions {
  /** Concurrent sessions per tenant. */
  maxSessions?: number;
  /** Tool calls per second per tenant; 0 turns the limit (and its round trip) off. */
  callsPerSecond?: number;
  /** How long a session being started holds its place (past its allocation timeout). */
  reservationMs?: number;
}

export class QuotaExceededError extends ToolError {
  constructor(message: string, retryAfterMs?: number) {
    super('quota_exceeded', message, retryAfterMs);
  }
}

/** The answer to a call over its tenant's rate: which limit, and when to retry. */
export function callRateExceeded(callsPerSecond: number, leftMs: number): QuotaExceededError {
  const retryAfterMs = Math.max(100, Math.ceil(leftMs / 100) * 100);
  return new QuotaExceededError(`This tenant is over its limit of ${callsPerSecond} tool calls per second. Nothing was done; retry in ${retryAfterMs / 1000} s.`, retryAfterMs);
}

export class TenantQuotas {
  readonly maxSessions: number;
  readonly callsPerSecond: number;
  private readonly reservationMs: number;

  constructor(
    private readonly redis: Redis,
    options: TenantQuotaOptions = {},
  ) {
    this.maxSessions = options.maxSessions ?? QUOTA_DEFAULTS.maxSessions;
    this.callsPerSecond = options.callsPerSecond ?? QUOTA_DEFAULTS.callsPerSecond;
    this.reservationMs = options.reservationMs ?? 120_000;
  }

  /**
   * Counts one tool call; throws QuotaExceededError when the tenant is over its rate. A call
   * that goes to a desktop the gateway already knows is counted by its enqueue instead
   * (ActionClient's `callsPerSecond`), in the same round trip.
   */
  async countCall(tenant: string): Promise<void> {
    if (this.callsPerSecond === 0) return;
    const [allowed, , leftMs] = (await scriptsOf(this.redis).countCall(keys.tenantCalls(tenant), this.callsPerSecond, CALL_WINDOW_MS)) as [number, number, number];
    if (allowed !== 1) throw callRateExceeded(this.callsPerSecond, leftMs);
  }

  /**
   * Holds a place for a session about to be started, or throws QuotaExceededError when the
   * tenant already has its quota of sessions. Call the returned function once the allocation
   * has ended, whichever way: the session then counts as a member of the tenant's sessions.
   */
  async reserveSession(ref: SessionRef): Promise<() => Promise<void>> {
    const reservations = keys.tenantSessionReservations(ref.tenant);
    const [ok, inUse] = (await scriptsOf(this.redis).reserveSession(
      keys.sessionsOfTenant(ref.tenant),
      reservations,
      ref.name,
      this.maxSessions,
      Date.now(),
      this.reservationMs,
    )) as [number, number];
    if (ok !== 1) {
      throw new QuotaExceededError(
        `This tenant already has ${inUse} sessions, its limit of concurrent sessions is ${this.maxSessions}, so session "${ref.name}" was not started. Nothing was done: end a session you no longer need (DELETE /v1/sessions/<name>) and retry, or retry once one has ended.`,
      );
    }
    return async () => {
      await this.redis.zrem(reservations, ref.name);
    };
  }
}
