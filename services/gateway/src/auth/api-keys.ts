/**
 * API keys: `dg_` + 32 random bytes, shown once at creation and stored only as a SHA-256
 * hash (the keys are random and long, so a fast hash is enough; nothing to brute-force).
 * Each key belongs to exactly one tenant. A verified key is remembered (by its hash) for half
 * a second, like the kill switch: an agent's back-to-back calls skip a Redis round trip each,
 * and a revocation takes effect within that time.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ShortLivedCache, keys, tenantId } from '@deskgate/dispatch';

export interface Principal {
  tenant: string;
  keyId: string;
}

const PREFIX = 'dg_';
export const VERIFY_CACHE_MS = 500;

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export class ApiKeyStore {
  private readonly verified = new ShortLivedCache<Principal>(VERIFY_CACHE_MS);

  constructor(private readonly redis: Redis) {}

  async create(tenant: string, label = ''): Promise<{ key: string; keyId: string }> {
    tenantId.parse(tenant);
    const key = PREFIX + randomBytes(32).toString('base64url');
    const keyId = `k_${randomBytes(6).toString('hex')}`;
    await this.redis.hset(keys.apiKeys(), hashKey(key), JSON.stringify({ tenant, keyId, label, createdAt: Date.now() }));
    return { key, keyId };
  }

  async verify(key: string): Promise<Principal | null> {
    if (!key.startsWith(PREFIX) || key.length > 200) return null;
    const hash = hashKey(key);
    const cached = this.verified.get(hash);
    if (cached) return cached;
    const record = await this.redis.hget(keys.apiKeys(), hash);
    if (!record) return null;
    const { tenant, keyId } = JSON.parse(record) as Principal;
    this.verified.set(hash, { tenant, keyId });
    return { tenant, keyId };
  }

  async revoke(keyId: string): Promise<boolean> {
    const all = await this.redis.hgetall(keys.apiKeys());
    for (const [hash, record] of Object.entries(all)) {
      if ((JSON.parse(record) as Principal).keyId === keyId) {
        this.verified.delete(hash);
        return (await this.redis.hdel(keys.apiKeys(), hash)) === 1;
      }
    }
    return false;
  }
}
