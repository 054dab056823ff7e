/**
 * A small frame of the screen after each call of a session, for the console's audit timeline:
 * the worker adds one (320×200 JPEG, a few KB) once the call is answered, under the call's id
 * on the action channel; the audit entry carries the same id, and the gateway pairs the two by
 * it. Storage is bounded per session: a stream capped
 * at FRAMES_PER_SESSION entries (the newest kept), expiring with the audit log.
 */
import type { Redis } from 'ioredis';
import { AUDIT_DEFAULTS } from './audit-log.ts';
import { keys } from './keys.ts';

export const AUDIT_FRAMES = { perSession: 100, width: 320, height: 200, quality: 50 } as const;

export interface AuditFrame {
  id: string;
  /** The id of the call the frame was taken after (absent in frames kept before calls had ids). */
  actionId?: string;
  tool: string;
  /** When the worker answered the call (epoch ms). */
  at: number;
  jpeg: Buffer;
}

export class AuditFrames {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number = AUDIT_DEFAULTS.ttlSeconds,
  ) {}

  /** One frame kept under each of these calls (a frame taken after all of them), in one round trip. */
  async add(tenant: string, session: string, calls: { actionId: string; tool: string; at: number }[], jpeg: Buffer): Promise<void> {
    if (calls.length === 0) return;
    const key = keys.auditFrames(tenant, session);
    const multi = this.redis.multi();
    for (const call of calls.slice(-AUDIT_FRAMES.perSession)) {
      multi.xadd(key, 'MAXLEN', '=', AUDIT_FRAMES.perSession, '*', 'action', call.actionId, 'tool', call.tool, 'at', String(call.at), 'jpeg', jpeg);
    }
    await multi.expire(key, this.ttlSeconds).exec();
  }

  /** The session's frames, newest first. */
  async list(tenant: string, session: string): Promise<AuditFrame[]> {
    const rows = (await this.redis.xrevrangeBuffer(keys.auditFrames(tenant, session), '+', '-', 'COUNT', AUDIT_FRAMES.perSession)) as [Buffer, Buffer[]][];
    return rows.map(([id, flat]) => {
      const f: Record<string, Buffer> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!.toString()] = flat[i + 1]!;
      return { id: id.toString(), ...(f.action ? { actionId: f.action.toString() } : {}), tool: f.tool?.toString() ?? '', at: Number(f.at?.toString()), jpeg: f.jpeg ?? Buffer.alloc(0) };
    });
  }

  async get(tenant: string, session: string, id: string): Promise<Buffer | null> {
    if (!/^\d{1,20}-\d{1,20}$/.test(id)) return null;
    const rows = (await this.redis.xrangeBuffer(keys.auditFrames(tenant, session), id, id)) as [Buffer, Buffer[]][];
    const flat = rows[0]?.[1];
    if (!flat) return null;
    for (let i = 0; i + 1 < flat.length; i += 2) if (flat[i]!.toString() === 'jpeg') return flat[i + 1]!;
    return null;
  }
}

/**
 * The frame of an audited call: the one kept under the call's id. Entries and frames from
 * before calls had ids are paired the old way — the frame of the same tool answered within the
 * call's span, the nearest when several fit — which two calls of one tool close together can
 * confuse; a frame with an id is never paired by time.
 */
export function frameOfCall(frames: AuditFrame[], entry: { actionId?: string; tool: string; at: number; ms: number }, slackMs = 250): AuditFrame | undefined {
  if (entry.actionId !== undefined) return frames.find((frame) => frame.actionId === entry.actionId);
  let best: AuditFrame | undefined;
  for (const frame of frames) {
    if (frame.actionId !== undefined || frame.tool !== entry.tool || frame.at < entry.at - entry.ms - slackMs || frame.at > entry.at + slackMs) continue;
    if (!best || Math.abs(frame.at - entry.at) < Math.abs(best.at - entry.at)) best = frame;
  }
  return best;
}
