/**
 * Computer-use sessions in Redis: which desktop a (tenant, session name) holds and the
 * session's tool state. Nothing about a session lives in a service's memory.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { initialSessionState, type SessionState } from '@deskgate/computer-use';
import { keys } from './keys.ts';
import type { SessionRef } from './names.ts';

export interface SessionRecord {
  desktopId: string | null;
  state: SessionState;
  createdAt: number;
  lastUsedAt: number;
}

export class SessionStore {
  constructor(private readonly redis: Redis) {}

  async get(ref: SessionRef): Promise<SessionRecord | null> {
    const hash = await this.redis.hgetall(keys.session(ref.tenant, ref.name));
    if (!hash.createdAt) return null;
    return {
      desktopId: hash.desktopId || null,
      state: hash.state ? (JSON.parse(hash.state) as SessionState) : initialSessionState(),
      createdAt: Number(hash.createdAt),
      lastUsedAt: Number(hash.lastUsedAt ?? hash.createdAt),
    };
  }

  async desktopOf(ref: SessionRef): Promise<string | null> {
    return (await this.redis.hget(keys.session(ref.tenant, ref.name), 'desktopId')) || null;
  }

  /** Binds a desktop to the session with a fresh state (a new desktop knows no screenshot). */
  async assign(ref: SessionRef, desktopId: string, state: SessionState): Promise<void> {
    const now = Date.now();
    await this.redis
      .multi()
      .hset(keys.session(ref.tenant, ref.name), { desktopId, state: JSON.stringify(state), createdAt: now, lastUsedAt: now })
      .sadd(keys.sessionsOfTenant(ref.tenant), ref.name)
      .exec();
  }

  /** Adds "used now, and (when given) this is the new state" to a transaction the caller runs. */
  queueSave(multi: ChainableCommander, ref: SessionRef, state: SessionState | null): void {
    multi.hset(keys.session(ref.tenant, ref.name), state ? { state: JSON.stringify(state), lastUsedAt: Date.now() } : { lastUsedAt: Date.now() });
  }

  /** Forgets the desktop (it died or was released) but keeps nothing else either. */
  async remove(ref: SessionRef): Promise<void> {
    await this.redis.multi().del(keys.session(ref.tenant, ref.name)).srem(keys.sessionsOfTenant(ref.tenant), ref.name).exec();
  }

  async list(tenant: string): Promise<string[]> {
    return (await this.redis.smembers(keys.sessionsOfTenant(tenant))).sort();
  }
}
