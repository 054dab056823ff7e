/**
 * The kill switch, global (operators) or per tenant: while on, every tool refuses and
 * tools/list is empty. The gateway reads it on each call through a half-second cache, so
 * flipping it takes effect within that time without a Redis round trip per call.
 */
import type { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';
import { ShortLivedCache } from '../cache/short-lived-cache.ts';

export class KillSwitch {
  private readonly cache = new ShortLivedCache<boolean>(500);

  constructor(private readonly redis: Redis) {}

  async isOn(tenant: string): Promise<boolean> {
    const cached = this.cache.get(tenant);
    if (cached !== undefined) return cached;
    const [global, own] = await this.redis.mget(keys.killSwitch(), keys.tenantKillSwitch(tenant));
    const on = global === '1' || own === '1';
    this.cache.set(tenant, on);
    return on;
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
}
