/**
 * The audit log: every tool call of a session, one entry each, in a Redis stream per
 * (tenant, session). Each append trims the stream to `maxEntries` and pushes its expiry
 * `ttlSeconds` out, so a busy session keeps its latest entries and an abandoned one's log
 * goes away on its own. Entries hold arguments already redacted (see redactArgs).
 *
 * Trimming is exact (MAXLEN =), not approximate (~): approximate trimming only drops whole
 * stream nodes of ~100 entries, so a small limit would not hold at all, and trimming one
 * entry per append costs a few microseconds either way.
 */
import type { Redis } from 'ioredis';
import { consoleMessage } from './console-events.ts';
import { keys } from './keys.ts';
import { scriptsOf } from './scripts.ts';

export interface AuditEntry {
  /** The call's id: the one it had on the action channel, which its timeline frame carries too. */
  actionId?: string;
  tenant: string;
  session: string;
  tool: string;
  /** The arguments as sent, already redacted. */
  args: unknown;
  outcome: 'ok' | 'error';
  /** The error kind of a failed or refused call. */
  kind?: string;
  /** How long the call took at the gateway, in milliseconds. */
  ms: number;
  /** The API key that made the call (its id, never the key). */
  keyId?: string;
  /** The controller that made the call, for the desktop lock: the key id, or "<key id>/<Deskgate-Controller>". */
  controller?: string;
  /** When the call finished, in epoch milliseconds. */
  at: number;
}

export interface StoredAuditEntry extends AuditEntry {
  /** The stream id; pass it as `before` to read the page after this entry. */
  id: string;
}

export interface AuditLogOptions {
  maxEntries?: number;
  ttlSeconds?: number;
}

export interface ReadOptions {
  /** 1–1000, default 100. */
  count?: number;
  /** Only entries older than this stream id. */
  before?: string;
}

export const AUDIT_DEFAULTS = { maxEntries: 10_000, ttlSeconds: 7 * 24 * 3600, readCount: 100, readCountMax: 1000 } as const;

export const STREAM_ID = /^\d{1,20}-\d{1,20}$/;

export class AuditLog {
  readonly maxEntries: number;
  readonly ttlSeconds: number;

  constructor(
    private readonly redis: Redis,
    options: AuditLogOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? AUDIT_DEFAULTS.maxEntries;
    this.ttlSeconds = options.ttlSeconds ?? AUDIT_DEFAULTS.ttlSeconds;
  }

  /** Appends one entry; resolves to its stream id. */
  async record(entry: AuditEntry): Promise<string> {
    const key = keys.audit(entry.tenant, entry.session);
    const fields = [
      'tenant', entry.tenant,
      'session', entry.session,
      'tool', entry.tool,
      'outcome', entry.outcome,
      'ms', String(entry.ms),
      'at', String(entry.at),
      'args', JSON.stringify(entry.args ?? null),
      ...(entry.actionId ? ['actionId', entry.actionId] : []),
      ...(entry.kind ? ['kind', entry.kind] : []),
      ...(entry.keyId ? ['keyId', entry.keyId] : []),
      ...(entry.controller ? ['controller', entry.controller] : []),
    ];
    // The session's console row (last call, lock holder, grants) changed with it: told as it is
    // recorded, by the same script (lua/recordAudit-1.lua).
    const [channel, message] = consoleMessage(entry.tenant, { type: 'session', session: entry.session });
    return (await scriptsOf(this.redis).recordAudit(key, this.maxEntries, this.ttlSeconds, channel, message, ...fields)) as string;
  }

  /** A session's entries, newest first. */
  async read(tenant: string, session: string, options: ReadOptions = {}): Promise<StoredAuditEntry[]> {
    const count = Math.min(Math.max(Math.trunc(options.count ?? AUDIT_DEFAULTS.readCount), 1), AUDIT_DEFAULTS.readCountMax);
    if (options.before !== undefined && !STREAM_ID.test(options.before)) throw new RangeError(`not a stream id: ${options.before}`);
    const end = options.before ? `(${options.before}` : '+';
    const rows = await this.redis.xrevrange(keys.audit(tenant, session), end, '-', 'COUNT', count);
    return rows.map(([id, flat]) => parse(id, flat));
  }
}

function parse(id: string, flat: string[]): StoredAuditEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
  return {
    id,
    ...(f.actionId ? { actionId: f.actionId } : {}),
    tenant: f.tenant ?? '',
    session: f.session ?? '',
    tool: f.tool ?? '',
    args: f.args ? JSON.parse(f.args) : null,
    outcome: f.outcome === 'ok' ? 'ok' : 'error',
    ...(f.kind ? { kind: f.kind } : {}),
    ms: Number(f.ms),
    ...(f.keyId ? { keyId: f.keyId } : {}),
    ...(f.controller ? { controller: f.controller } : {}),
    at: Number(f.at),
  };
}
