/**
 * A small frame of the screen after the calls of a session, for the console's audit timeline:
 * the worker adds one (320×200 JPEG, a few KB) once calls are answered — at most 5 a second
 * (timeline-recorder.ts), so one frame is often taken after several calls — naming the ids of
 * every call it was taken after (their ids on the action channel); each audit entry carries its
 * call's id, and the gateway pairs the two by it. One entry per frame, not per call: a burst of
 * fast calls stores the JPEG once instead of once per call. Storage is bounded per session: a
 * stream capped at AUDIT_FRAMES.perSession frames (the newest kept), expiring with the audit log.
 */
import type { Redis } from 'ioredis';
import { AUDIT_DEFAULTS } from './audit-log.ts';
import { keys } from './keys.ts';

export const AUDIT_FRAMES = { perSession: 100, width: 320, height: 200, quality: 50, maxCallsPerFrame: 100 } as const;

export interface AuditFrame {
  id: string;
  /** The calls the frame was taken after (empty in frames kept before calls had ids). */
  actionIds: string[];
  /** The tool of the last of those calls. */
  tool: string;
  /** When the worker answered the last of those calls (epoch ms). */
  at: number;
  jpeg: Buffer;
}

/** The call ids of a stored frame: `actions` (a JSON array), or `action` (one id) as frames were kept before frames were shared. */
function actionIdsOf(fields: Record<string, Buffer>): string[] {
  if (fields.action) return [fields.action.toString()];
  if (!fields.actions) return [];
  try {
    const ids: unknown = JSON.parse(fields.actions.toString());
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

export class AuditFrames {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number = AUDIT_DEFAULTS.ttlSeconds,
  ) {}

  /** One frame taken after these calls (the last `maxCallsPerFrame` of them), kept once under all their ids, in one round trip. */
  async add(tenant: string, session: string, calls: { actionId: string; tool: string; at: number }[], jpeg: Buffer): Promise<void> {
    const named = calls.slice(-AUDIT_FRAMES.maxCallsPerFrame);
    const last = named.at(-1);
    if (!last) return;
    const key = keys.auditFrames(tenant, session);
    const actions = JSON.stringify(named.map((call) => call.actionId));
    await this.redis
      .multi()
      .xadd(key, 'MAXLEN', '=', AUDIT_FRAMES.perSession, '*', 'actions', actions, 'tool', last.tool, 'at', String(last.at), 'jpeg', jpeg)
      .expire(key, this.ttlSeconds)
      .exec();
  }

  /** The session's frames, newest first. */
  async list(tenant: string, session: string): Promise<AuditFrame[]> {
    const rows = (await this.redis.xrevrangeBuffer(keys.auditFrames(tenant, session), '+', '-', 'COUNT', AUDIT_FRAMES.perSession)) as [Buffer, Buffer[]][];
    return rows.map(([id, flat]) => {
      const f: Record<string, Buffer> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!.toString()] = flat[i + 1]!;
      return { id: id.toString(), actionIds: actionIdsOf(f), tool: f.tool?.toString() ?? '', at: Number(f.at?.toString()), jpeg: f.jpeg ?? Buffer.alloc(0) };
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

type AuditedCall = { actionId?: string; tool: string; at: number; ms: number };

/**
 * Pairs audited calls with their frames: the frame that names the call's id (indexed once, for
 * the many entries of a timeline). Entries and frames from before calls had ids are paired the
 * old way — the frame of the same tool answered within the call's span, the nearest when several
 * fit — which two calls of one tool close together can confuse; a frame with ids is never paired
 * by time.
 */
export function pairFrames(frames: AuditFrame[], slackMs = 250): (entry: AuditedCall) => AuditFrame | undefined {
  const byCall = new Map<string, AuditFrame>();
  for (const frame of frames) for (const id of frame.actionIds) if (!byCall.has(id)) byCall.set(id, frame);
  return (entry) => (entry.actionId !== undefined ? byCall.get(entry.actionId) : byTime(frames, entry, slackMs));
}

/** The frame of one audited call (pairFrames, for a single entry). */
export function frameOfCall(frames: AuditFrame[], entry: AuditedCall, slackMs = 250): AuditFrame | undefined {
  return pairFrames(frames, slackMs)(entry);
}

function byTime(frames: AuditFrame[], entry: AuditedCall, slackMs: number): AuditFrame | undefined {
  let best: AuditFrame | undefined;
  for (const frame of frames) {
    if (frame.actionIds.length > 0 || frame.tool !== entry.tool || frame.at < entry.at - entry.ms - slackMs || frame.at > entry.at + slackMs) continue;
    if (!best || Math.abs(frame.at - entry.at) < Math.abs(best.at - entry.at)) best = frame;
  }
  return best;
}
