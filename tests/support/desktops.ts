/** Looks behind the gateway, for assertions only: which desktop a session holds, and its helpers. */
import { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';

export interface DesktopFacts {
  id: string;
  display: string;
  workerId: string;
  capturePid: number;
  inputPid: number;
  /** The display's cookie file (its X server refuses clients without it, local root aside). */
  xauthority?: string;
}

export async function desktopOf(redis: Redis, tenant: string, session: string): Promise<DesktopFacts> {
  const id = await redis.hget(keys.session(tenant, session), 'desktopId');
  if (!id) throw new Error(`session ${tenant}/${session} holds no desktop`);
  const record = await redis.hgetall(keys.desktop(id));
  return { id, display: record.display!, workerId: record.workerId!, capturePid: Number(record.capturePid), inputPid: Number(record.inputPid), ...(record.xauthority ? { xauthority: record.xauthority } : {}) };
}
