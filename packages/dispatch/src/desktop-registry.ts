/**
 * Desktops as the cluster sees them: which worker owns one, its display, which session holds
 * it, and a liveness key the owner keeps refreshing. A desktop whose key lapsed is gone.
 */
import type { Redis } from 'ioredis';
import { keys } from './keys.ts';

export interface DesktopRecord {
  id: string;
  workerId: string;
  display: string;
  width: number;
  height: number;
  tenant: string;
  session: string;
}

export const ALIVE_TTL_MS = 5000;

export class DesktopRegistry {
  constructor(private readonly redis: Redis) {}

  async register(record: DesktopRecord): Promise<void> {
    await this.redis
      .multi()
      .hset(keys.desktop(record.id), { ...record })
      .set(keys.desktopAlive(record.id), record.workerId, 'PX', ALIVE_TTL_MS)
      .exec();
  }

  async heartbeat(desktopIds: string[], workerId: string): Promise<void> {
    if (desktopIds.length === 0) return;
    const multi = this.redis.multi();
    for (const id of desktopIds) multi.set(keys.desktopAlive(id), workerId, 'PX', ALIVE_TTL_MS);
    await multi.exec();
  }

  async get(id: string): Promise<DesktopRecord | null> {
    const hash = await this.redis.hgetall(keys.desktop(id));
    if (!hash.id) return null;
    return { ...(hash as unknown as DesktopRecord), width: Number(hash.width), height: Number(hash.height) };
  }

  async isAlive(id: string): Promise<boolean> {
    return (await this.redis.exists(keys.desktopAlive(id))) === 1;
  }

  async remove(id: string): Promise<void> {
    await this.redis.del(keys.desktop(id), keys.desktopAlive(id), keys.desktopActions(id), keys.desktopLock(id), keys.desktopEpoch(id), keys.desktopClaimed(id));
  }
}
