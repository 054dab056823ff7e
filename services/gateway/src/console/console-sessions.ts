/**
 * Sign-ins to the web console. A person signs in with an approver, operator or admin key
 * once; the key is exchanged for a random session id (the cookie) and is never kept, in the
 * browser or here. Redis holds the session under the SHA-256 of its id, with a TTL, so a
 * gateway restart or another replica serves it, and a Redis dump does not hold usable ids.
 * Each session carries its own CSRF token (sent back by the page in a header) and the hash of
 * the key it came from, so revoking that key ends the session on its next request.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';
import type { Role } from '../auth/roles.ts';

export interface ConsoleUser {
  tenant: string;
  keyId: string;
  role: Role;
  /** The SHA-256 of the API key signed in with (what the key store is indexed by). */
  keyHash: string;
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

const sessionKey = (id: string) => keys.consoleSession(createHash('sha256').update(id).digest('hex'));

/** Session ids and CSRF tokens: 32 random bytes, base64url (43 characters). */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export class ConsoleSessions {
  constructor(
    private readonly redis: Redis,
    readonly ttlSeconds: number,
  ) {}

  async create(user: Omit<ConsoleUser, 'csrf' | 'createdAt' | 'expiresAt'>): Promise<{ id: string; user: ConsoleUser }> {
    const id = randomBytes(32).toString('base64url');
    const now = Date.now();
    const stored: ConsoleUser = { ...user, csrf: randomBytes(32).toString('base64url'), createdAt: now, expiresAt: now + this.ttlSeconds * 1000 };
    await this.redis.set(sessionKey(id), JSON.stringify(stored), 'EX', this.ttlSeconds);
    return { id, user: stored };
  }

  async get(id: string | undefined): Promise<ConsoleUser | null> {
    if (!id || !SESSION_ID.test(id)) return null;
    const json = await this.redis.get(sessionKey(id));
    return json ? (JSON.parse(json) as ConsoleUser) : null;
  }

  async end(id: string): Promise<void> {
    if (SESSION_ID.test(id)) await this.redis.del(sessionKey(id));
  }
}

/** Constant-time comparison of a presented CSRF token with the session's. */
export function csrfMatches(user: ConsoleUser, presented: string | undefined): boolean {
  if (!presented) return false;
  const a = Buffer.from(user.csrf);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
