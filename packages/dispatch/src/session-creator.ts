/**
 * Which API key started a session: recorded in the session's own hash (so it goes when the
 * session goes, lua/markSessionCreator-1.lua) right after the session's desktop is allocated. An agent's session list shows
 * only the sessions its key started; operators see every session of the tenant.
 */
import type { Redis } from 'ioredis';
import { keys } from './keys.ts';
import type { SessionRef } from './names.ts';
import { scriptsOf } from './scripts.ts';

export async function markSessionCreator(redis: Redis, ref: SessionRef, keyId: string): Promise<void> {
  await scriptsOf(redis).markSessionCreator(keys.session(ref.tenant, ref.name), keyId);
}

export async function sessionCreator(redis: Redis, ref: SessionRef): Promise<string | null> {
  return redis.hget(keys.session(ref.tenant, ref.name), 'createdBy');
}
