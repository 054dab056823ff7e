/**
 * Computer-use sessions in Redis: which desktop a (tenant, session name) holds and the
 * session's tool state. Nothing about a session lives in a service's memory. A session
 * starting, losing its desktop or ending is told to the tenant's console pages (console-events.ts).
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { initialSessionState, type SessionState } from '@deskgate/computer-use';
import { queueConsoleEvent } from './console-events.ts';
import { keys } from './keys.ts';
import { queueScript, scriptsOf } from './scripts.ts';
import type { SessionRef } from './names.ts';

export interface SessionRecord {
  desktopId: string | null;
  state: SessionState;
  createdAt: number;
  lastUsedAt: number;
  /** Why the session's last desktop was lost (its worker died or drained), until a new one is bound. */
  lostDesktop: string | null;
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
      lostDesktop: hash.lostDesktop || null,
    };
  }

  async desktopOf(ref: SessionRef): Promise<string | null> {
    return (await this.redis.hget(keys.session(ref.tenant, ref.name), 'desktopId')) || null;
  }

  /**
   * Binds a desktop to the session with its state (a new desktop knows no screenshot). A
   * session that lost its desktop keeps its creation time; its loss mark is cleared.
   */
  async assign(ref: SessionRef, desktopId: string, state: SessionState, createdAt = Date.now()): Promise<void> {
    const multi = this.redis
      .multi()
      .hset(keys.session(ref.tenant, ref.name), { desktopId, state: JSON.stringify(state), createdAt, lastUsedAt: Date.now() })
      .hdel(keys.session(ref.tenant, ref.name), 'lostDesktop')
      .sadd(keys.sessionsOfTenant(ref.tenant), ref.name);
    await queueConsoleEvent(multi, ref.tenant, { type: 'session', session: ref.name }).exec();
  }

  /**
   * The session's desktop is gone with its worker: the session keeps its state (grants,
   * coordinate mode) for its next desktop, and `why` for the notice that desktop gives. Only
   * when the session still points at `desktopId`.
   */
  async detach(ref: SessionRef, desktopId: string, why: string): Promise<boolean> {
    const detached = (await scriptsOf(this.redis).detachDesktop(keys.session(ref.tenant, ref.name), desktopId, why)) === 1;
    if (detached) await this.changed(ref);
    return detached;
  }

  /**
   * Adds "used now, and (when given) this is the new state" to a transaction the caller runs
   * (made with pipelineOf or after scriptsOf on its connection) — written only while the
   * session still holds `desktopId`, so a call that ends after the session was ended or moved
   * never brings its key back.
   */
  queueSave(multi: ChainableCommander, ref: SessionRef, desktopId: string, state: SessionState | null): void {
    queueScript(multi, 'saveSession', keys.session(ref.tenant, ref.name), desktopId, Date.now(), state ? JSON.stringify(state) : '');
  }

  /** Forgets the desktop (it died or was released) but keeps nothing else either. */
  async remove(ref: SessionRef): Promise<void> {
    await queueConsoleEvent(this.redis.multi().del(keys.session(ref.tenant, ref.name)).srem(keys.sessionsOfTenant(ref.tenant), ref.name), ref.tenant, { type: 'session', session: ref.name }).exec();
  }

  /** Tells the tenant's console pages the session changed (its lock was taken or released). */
  async changed(ref: SessionRef): Promise<void> {
    await queueConsoleEvent(this.redis.multi(), ref.tenant, { type: 'session', session: ref.name }).exec();
  }

  async list(tenant: string): Promise<string[]> {
    return (await this.redis.smembers(keys.sessionsOfTenant(tenant))).sort();
  }
}
