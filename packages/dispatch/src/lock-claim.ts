/**
 * Taking a desktop's lock without acting: before an agent ends a session, it must be the
 * controller holding the session's desktop — or take the lock because nobody holds it — so an
 * agent can never end a session another controller is driving (lua/claimLock-2.lua).
 */
import type { Redis } from 'ioredis';
import { EPOCH_RETENTION_MS } from './desktop-lock.ts';
import { keys } from './keys.ts';
import { scriptsOf } from './scripts.ts';

export type LockClaim = { held: true; epoch: number } | { held: false; holder: string; leaseLeftMs: number };

export async function claimLock(redis: Redis, desktopId: string, controller: string, leaseMs: number): Promise<LockClaim> {
  const [outcome, ...detail] = (await scriptsOf(redis).claimLock(keys.desktopLock(desktopId), keys.desktopEpoch(desktopId), controller, leaseMs, EPOCH_RETENTION_MS)) as [number, ...(string | number)[]];
  return outcome === 1 ? { held: true, epoch: Number(detail[0]) } : { held: false, holder: String(detail[0]), leaseLeftMs: Math.max(0, Number(detail[1])) };
}
