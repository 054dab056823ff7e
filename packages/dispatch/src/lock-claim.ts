/**
 * Taking a desktop's lock without acting: before an agent ends a session, it must be the
 * controller holding the session's desktop — or take the lock because nobody holds it — so an
 * agent can never end a session another controller is driving (lua/claim-lock.lua).
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { EPOCH_RETENTION_MS } from './desktop-lock.ts';
import { keys } from './keys.ts';

const claimScript = readFileSync(new URL('./lua/claim-lock.lua', import.meta.url), 'utf8');

export type LockClaim = { held: true; epoch: number } | { held: false; holder: string; leaseLeftMs: number };

export async function claimLock(redis: Redis, desktopId: string, controller: string, leaseMs: number): Promise<LockClaim> {
  const [outcome, ...detail] = (await redis.eval(claimScript, 2, keys.desktopLock(desktopId), keys.desktopEpoch(desktopId), controller, leaseMs, EPOCH_RETENTION_MS)) as [number, ...(string | number)[]];
  return outcome === 1 ? { held: true, epoch: Number(detail[0]) } : { held: false, holder: String(detail[0]), leaseLeftMs: Math.max(0, Number(detail[1])) };
}
