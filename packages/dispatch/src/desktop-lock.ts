/**
 * The lock a controller holds on a desktop while it drives it. One controller at a time: the
 * lock is taken (or renewed) atomically with every enqueue (lua/enqueueAction-5.lua), its
 * lease is renewed while a call is in flight, and it lapses when the holder stops acting —
 * a controller that died frees the desktop one lease later. Each taking of the lock gets a
 * fencing epoch; the worker's claim (lua/claimAction-3.lua) refuses a request carrying an
 * epoch that is no longer the lock's, so an action queued under a lapsed lease never runs
 * after another controller took over. The Lua side parses the lock in lua/includes/lock.lua.
 */
import type { Redis } from 'ioredis';
import { ToolError } from '@deskgate/computer-use';
import { keys } from './keys.ts';
import { scriptsOf } from './scripts.ts';


export const LOCK_LEASE_MS = { default: 30_000, min: 500, max: 600_000 } as const;
/**
 * The epoch counter expires this long after its last use. Requests live at most minutes
 * (their deadline), so by then no request with an old epoch can exist, and a counter that
 * starts again at 1 cannot be confused with one.
 */
export const EPOCH_RETENTION_MS = 7 * 24 * 3600 * 1000;

export interface LockHolder {
  epoch: number;
  controller: string;
}

export function parseLock(value: string | null): LockHolder | null {
  if (!value) return null;
  const bar = value.indexOf('|');
  return { epoch: Number(value.slice(0, bar)), controller: value.slice(bar + 1) };
}

/**
 * A person driving a desktop from the web console is the controller "person:<key id>". An
 * agent's controller is its key id (`k_…`) or "<key id>/<label>", so none can take that form.
 */
const PERSON_PREFIX = 'person:';
export const personController = (keyId: string) => `${PERSON_PREFIX}${keyId}`;
export const isPersonController = (controller: string) => controller.startsWith(PERSON_PREFIX);

/** Controllers are "<key id>", "<key id>/<label>" or a person's; this is what a refusal shows of one. */
export function describeController(controller: string): string {
  if (isPersonController(controller)) return `a person in the web console, API key ${controller.slice(PERSON_PREFIX.length)}`;
  const slash = controller.indexOf('/');
  return slash < 0 ? `API key ${controller}` : `API key ${controller.slice(0, slash)}, controller "${controller.slice(slash + 1)}"`;
}

const leaseSeconds = (leaseLeftMs: number) => Math.max(1, Math.ceil(leaseLeftMs / 1000));

export class LockHeldError extends ToolError {
  constructor(readonly holder: string, readonly leaseLeftMs: number) {
    super(
      'lock_held',
      isPersonController(holder)
        ? `A person is driving this session's desktop (${describeController(holder)}). Nothing was done and nothing was queued: wait until they hand it back, then take a screenshot before acting.`
        : `Another controller is driving this session's desktop (${describeController(holder)}). Its lock ends within ${leaseSeconds(leaseLeftMs)} s unless it keeps acting. Nothing was done: wait and call again, or use another session name.`,
      // A person hands the desktop back when they choose: no time to give.
      isPersonController(holder) ? undefined : leaseSeconds(leaseLeftMs) * 1000,
    );
  }
}

/** The worker's fence: why a request must not run, or null when its epoch is the lock's. */
export function fenceRefusal(lockValue: string | null, epoch: number): string | null {
  const holder = parseLock(lockValue);
  return holder?.epoch === epoch ? null : staleEpochMessage(epoch, holder?.epoch ?? null);
}

/** What a caller is told of a request refused for its stale epoch (`lockEpoch` null: nobody holds the lock). */
export function staleEpochMessage(epoch: number, lockEpoch: number | null): string {
  return lockEpoch !== null
    ? `This action was queued under lock epoch ${epoch}, but another controller has held the desktop since (epoch ${lockEpoch}). It was not run; take a screenshot before acting again.`
    : `This action was queued under lock epoch ${epoch}, whose lease lapsed before it could run. It was not run; take a screenshot before acting again.`;
}

export type ReleaseOutcome = 'released' | 'free' | 'held_by_other';

export class DesktopLocks {
  constructor(private readonly redis: Redis) {}

  /** Extends the lease of the holder that took the lock at `holder.epoch`; false if it lost it. */
  async renew(desktopId: string, holder: LockHolder, leaseMs: number): Promise<boolean> {
    return (await scriptsOf(this.redis).renewLock(keys.desktopLock(desktopId), holder.epoch, holder.controller, leaseMs)) === 1;
  }

  async release(desktopId: string, controller: string): Promise<ReleaseOutcome> {
    const outcome = await scriptsOf(this.redis).releaseLock(keys.desktopLock(desktopId), controller);
    return outcome === 1 ? 'released' : outcome === 0 ? 'free' : 'held_by_other';
  }

  async inspect(desktopId: string): Promise<(LockHolder & { leaseLeftMs: number }) | null> {
    const [[, value], [, ttl]] = (await this.redis.multi().get(keys.desktopLock(desktopId)).pttl(keys.desktopLock(desktopId)).exec()) as [[null, string | null], [null, number]];
    const holder = parseLock(value);
    return holder && { ...holder, leaseLeftMs: Math.max(0, ttl) };
  }
}
