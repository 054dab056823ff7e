/**
 * API keys: `dg_` + 32 random bytes, shown once at creation and stored only as a SHA-256
 * hash (the keys are random and long, so a fast hash is enough; nothing to brute-force).
 * Each key belongs to exactly one tenant and has one role (roles.ts); a record stored before
 * roles existed is an agent's. A verified key is remembered (by its hash) for half a second,
 * like the kill switch: an agent's back-to-back calls skip a Redis round trip each, and a
 * revocation takes effect within that time.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ShortLivedCache, keys, tenantId } from '@deskgate/dispatch';
import { role as roleSchema, type Role } from './roles.ts';

/** Who is calling: resolved once per request from the API key. */
export interface Principal {
  tenant: string;
  keyId: string;
  role: Role;
}

/** What GET /v1/keys shows of a key (never the key or its hash). */
export interface KeyInfo extends Principal {
  label: string;
  createdAt: string;
}

interface KeyRecord {
  tenant: string;
  keyId: string;
  role?: string;
  label?: string;
  createdAt?: number;
}

const PREFIX = 'dg_';
export const VERIFY_CACHE_MS = 500;
export const MAX_LABEL = 200;

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

const roleOf = (record: KeyRecord): Role => {
  const parsed = roleSchema.safeParse(record.role ?? 'agent');
  // An unreadable role is the least one: such a key drives desktops and controls nothing.
  return parsed.success ? parsed.data : 'agent';
};

const principalOf = (record: KeyRecord): Principal => ({ tenant: record.tenant, keyId: record.keyId, role: roleOf(record) });

/** The stored record of a new key; the sandbox pins its keys with it. */
export function keyRecord(tenant: string, keyId: string, role: Role, label: string): string {
  return JSON.stringify({ tenant, keyId, role, label: label.slice(0, MAX_LABEL), createdAt: Date.now() });
}

export class ApiKeyStore {
  private readonly verified = new ShortLivedCache<Principal>(VERIFY_CACHE_MS);

  constructor(private readonly redis: Redis) {}

  async create(tenant: string, label = '', role: Role = 'agent'): Promise<{ key: string; keyId: string; role: Role }> {
    tenantId.parse(tenant);
    roleSchema.parse(role);
    const key = PREFIX + randomBytes(32).toString('base64url');
    const keyId = `k_${randomBytes(6).toString('hex')}`;
    await this.redis.hset(keys.apiKeys(), hashKey(key), keyRecord(tenant, keyId, role, label));
    return { key, keyId, role };
  }

  async verify(key: string): Promise<Principal | null> {
    if (!key.startsWith(PREFIX) || key.length > 200) return null;
    const hash = hashKey(key);
    const cached = this.verified.get(hash);
    if (cached) return cached;
    const record = await this.redis.hget(keys.apiKeys(), hash);
    if (!record) return null;
    const principal = principalOf(JSON.parse(record) as KeyRecord);
    this.verified.set(hash, principal);
    return principal;
  }

  /** A tenant's keys, oldest first. */
  async list(tenant: string): Promise<KeyInfo[]> {
    const records = Object.values(await this.redis.hgetall(keys.apiKeys())).map((json) => JSON.parse(json) as KeyRecord);
    return records
      .filter((record) => record.tenant === tenant)
      .sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0))
      .map((record) => ({ ...principalOf(record), label: record.label ?? '', createdAt: new Date(record.createdAt ?? 0).toISOString() }));
  }

  /** Revokes a key by its id; with `tenant`, only a key of that tenant (another tenant's id is not found). */
  async revoke(keyId: string, tenant?: string): Promise<boolean> {
    const all = await this.redis.hgetall(keys.apiKeys());
    for (const [hash, json] of Object.entries(all)) {
      const record = JSON.parse(json) as KeyRecord;
      if (record.keyId !== keyId || (tenant !== undefined && record.tenant !== tenant)) continue;
      this.verified.delete(hash);
      return (await this.redis.hdel(keys.apiKeys(), hash)) === 1;
    }
    return false;
  }
}
