/**
 * The kill switch, global (operators) or per tenant: while on, every tool refuses and
 * tools/list is empty. It fails closed: while its state cannot be read from Redis (an error,
 * or no answer in time), it counts as on (tools refuse with `unavailable`). Readings are remembered for half a second, so
 * flipping it takes effect within that time without a Redis round trip per call; a failed
 * reading is remembered too, so a Redis outage does not turn into a queue of slow reads.
 * Shared by the gateway (refuses before routing) and the workers (refuse before running).
 *
 * Every flip records who made it and when, in the same transaction as the switch itself, so
 * whichever way it was flipped (the console, the REST API, the CLI) the record matches it.
 */
import type { Redis } from 'ioredis';
import { ToolError } from '@deskgate/computer-use';
import { keys } from './keys.ts';
import { ShortLivedCache } from './short-lived-cache.ts';

export const KILL_SWITCH_DEFAULTS = { cacheMs: 500, readTimeoutMs: 1000 } as const;

/** `unknown`: Redis could not be read, which every caller must treat as `on`. */
export type KillSwitchReading = 'on' | 'off' | 'unknown';

/** Who flips the switch: an API key (its id, never the key) or the operator's CLI. */
export interface KillSwitchActor {
  /** The key id, or null for the CLI (which reaches Redis directly, with no key). */
  keyId: string | null;
  role: string | null;
  via: 'console' | 'api' | 'cli';
}

export interface KillSwitchFlip extends KillSwitchActor {
  on: boolean;
  /** When, in epoch milliseconds. */
  at: number;
}

export interface KillSwitchState {
  global: boolean;
  tenant: boolean;
  /** The flip that set the tenant's switch as it is now; null when none is recorded. */
  lastFlip: KillSwitchFlip | null;
  globalLastFlip: KillSwitchFlip | null;
}

export interface KillSwitchOptions {
  cacheMs?: number;
  /** A read that has not answered by then is `unknown` (a client may queue commands while disconnected). */
  readTimeoutMs?: number;
}

export class KillSwitch {
  private readonly cache: ShortLivedCache<KillSwitchReading>;
  private readonly readTimeoutMs: number;

  constructor(
    private readonly redis: Redis,
    options: KillSwitchOptions = {},
  ) {
    this.cache = new ShortLivedCache(options.cacheMs ?? KILL_SWITCH_DEFAULTS.cacheMs);
    this.readTimeoutMs = options.readTimeoutMs ?? KILL_SWITCH_DEFAULTS.readTimeoutMs;
  }

  async read(tenant: string): Promise<KillSwitchReading> {
    const cached = this.cache.get(tenant);
    if (cached !== undefined) return cached;
    const reading = await this.fetch(tenant);
    this.cache.set(tenant, reading);
    return reading;
  }

  /** Fails closed: true while the switch is on, and while its state cannot be read. */
  async isOnOrUnknown(tenant: string): Promise<boolean> {
    return (await this.read(tenant)) !== 'off';
  }

  /** The `disabled` error a tool call gets, or undefined when it may go ahead. */
  async refusal(tenant: string): Promise<ToolError | undefined> {
    const reading = await this.read(tenant);
    if (reading === 'on') return new ToolError('disabled', 'Computer use is switched off for this tenant (kill switch). Nothing was done.');
    if (reading === 'unknown') {
      // Fails closed, and says why: the state store is unreachable, not that someone switched it on.
      return new ToolError('unavailable', "Computer use is refused because the kill switch state is unknown: deskgate's state store (Redis) cannot be reached right now. Nothing was done; retry in a few seconds.");
    }
    return undefined;
  }

  /** tenant null = the global switch. Records `by` and the time with the flip, atomically. */
  async set(tenant: string | null, on: boolean, by: KillSwitchActor, now = Date.now()): Promise<KillSwitchFlip> {
    const key = tenant === null ? keys.killSwitch() : keys.tenantKillSwitch(tenant);
    const flip: KillSwitchFlip = { on, keyId: by.keyId, role: by.role, via: by.via, at: now };
    const multi = this.redis.multi();
    if (on) multi.set(key, '1');
    else multi.del(key);
    multi.set(tenant === null ? keys.globalKillSwitchFlip() : keys.killSwitchFlip(tenant), JSON.stringify(flip));
    const results = await multi.exec();
    const failed = results?.find(([error]) => error)?.[0];
    if (!results || failed) throw failed ?? new Error('the kill switch transaction was discarded');
    this.cache.clear();
    return flip;
  }

  async state(tenant: string): Promise<KillSwitchState> {
    const [global, own, globalFlip, ownFlip] = await this.redis.mget(keys.killSwitch(), keys.tenantKillSwitch(tenant), keys.globalKillSwitchFlip(), keys.killSwitchFlip(tenant));
    const state = { global: global === '1', tenant: own === '1' };
    return { ...state, lastFlip: flipMatching(ownFlip, state.tenant), globalLastFlip: flipMatching(globalFlip, state.global) };
  }

  private async fetch(tenant: string): Promise<KillSwitchReading> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'unknown'>((resolve) => (timer = setTimeout(() => resolve('unknown'), this.readTimeoutMs)));
    const read = this.redis.mget(keys.killSwitch(), keys.tenantKillSwitch(tenant)).then(
      ([global, own]): KillSwitchReading => (global === '1' || own === '1' ? 'on' : 'off'),
      (): KillSwitchReading => 'unknown',
    );
    try {
      return await Promise.race([read, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A recorded flip, only if it set the switch as it is now (a switch set before flips were recorded has none). */
function flipMatching(json: string | null | undefined, on: boolean): KillSwitchFlip | null {
  if (!json) return null;
  try {
    const flip = JSON.parse(json) as KillSwitchFlip;
    return flip.on === on ? flip : null;
  } catch {
    return null;
  }
}
