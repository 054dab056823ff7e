/**
 * View-only links to one session's live view. The token is random (not a key, and no key can
 * be derived from it), stored only as its SHA-256 with a TTL of at most 15 minutes, and grants
 * exactly one thing: watching that session's screen until the link expires. It travels in the
 * URL's fragment (`/console/watch#<token>`), which browsers never send to a server or put in a
 * Referer; the page exchanges it for a cookie scoped to `/console/share`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { keys } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';

export interface ShareLink {
  tenant: string;
  session: string;
  /** The key id of the operator who shared it. */
  by: string;
  expiresAt: number;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const keyOf = (token: string) => keys.consoleShare(createHash('sha256').update(token).digest('hex'));

export class ShareLinks {
  constructor(
    private readonly redis: Redis,
    readonly ttlSeconds: number,
  ) {}

  async create(tenant: string, session: string, by: string): Promise<{ token: string; link: ShareLink }> {
    const token = randomBytes(32).toString('base64url');
    const link: ShareLink = { tenant, session, by, expiresAt: Date.now() + this.ttlSeconds * 1000 };
    await this.redis.set(keyOf(token), JSON.stringify(link), 'EX', this.ttlSeconds);
    return { token, link };
  }

  async get(token: string | undefined): Promise<ShareLink | null> {
    if (!token || !TOKEN.test(token)) return null;
    const json = await this.redis.get(keyOf(token));
    const link = json ? (JSON.parse(json) as ShareLink) : null;
    return link && link.expiresAt > Date.now() ? link : null;
  }
}
