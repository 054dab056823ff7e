/**
 * Who flipped a tenant's kill switch from the console, and when. The REST API flips the
 * switch without this record, so a record whose state is not the switch's current state is
 * reported as superseded rather than shown as the flip that set it.
 */
import type { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';

export interface KillSwitchFlip {
  on: boolean;
  keyId: string;
  role: string;
  at: number;
}

export class KillSwitchFlips {
  constructor(private readonly redis: Redis) {}

  async record(tenant: string, flip: KillSwitchFlip): Promise<void> {
    await this.redis.set(keys.consoleKillSwitchFlip(tenant), JSON.stringify(flip));
  }

  /** The console's last flip, or `changedElsewhere` when the switch was flipped since by another way (the REST API). */
  async last(tenant: string, currentlyOn: boolean): Promise<(Omit<KillSwitchFlip, 'at'> & { at: string }) | { changedElsewhere: true } | null> {
    const json = await this.redis.get(keys.consoleKillSwitchFlip(tenant));
    if (!json) return null;
    const flip = JSON.parse(json) as KillSwitchFlip;
    if (flip.on !== currentlyOn) return { changedElsewhere: true };
    return { ...flip, at: new Date(flip.at).toISOString() };
  }
}
