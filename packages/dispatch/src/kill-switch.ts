/**
 * The kill switch, global (operators) or per tenant: while on, every tool refuses and
 * tools/list is empty. It fails closed: while its state cannot be read from Redis (an error,
 * or no answer in time), it counts as on (tools refuse with `unavailable`). Readings are remembered for half a second, so
 * flipping it takes effect within that time without a Redis round trip per call; a failed
 * reading is remembered too, so a Redis outage does not turn into a queue of slow reads.
 * Shared by the gateway (refuses before routing) and the workers (refuse before running).
 */
import type { Redis } from 'ioredis';
import { ToolError } from '@deskgate/computer-use';
import { keys } from './keys.ts';
import { ShortLivedCache } from './short-lived-cache.ts';

export const KILL_SWITCH_DEFAULTS = { cacheMs: 500, readTimeoutMs: 1000 } as const;

/** `unknown`: Redis could not be read, which every caller must treat as `on`. */
export type KillSwitchReading = 'on' | 'off' | 'unknown';

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

  /** tenant null = the global switch. */
  async set(tenant: string | null, on: boolean): Promise<void> {
    const key = tenant === null ? keys.killSwitch() : keys.tenantKillSwitch(tenant);
    if (on) await this.redis.set(key, '1');
    else await this.redis.del(key);
    this.cache.clear();
  }

  async state(tenant: string): Promise<{ global: boolean; tenant: boolean }> {
    const [global, own] = await this.redis.mget(keys.killSwitch(), keys.tenantKillSwitch(tenant));
    return { global: global === '1', tenant: own === '1' };
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
