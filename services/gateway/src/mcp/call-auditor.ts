/**
 * Records a finished tool call — in the session's audit stream and as one JSON log line —
 * without holding up the reply: both happen right after the reply is on its way (a Redis
 * write and a log write are a syscall each, worth a tenth of a millisecond apiece), and a
 * failure to write is logged, never turned into a failed call. Entries keep their order.
 * Arguments are redacted before either sees them; the log line always without typed text.
 *
 * Only calls on sessions that exist are stored. A call refused before its session existed (an
 * unknown tool, bad arguments, a quota) is counted (`deskgate_gateway_refused_calls_total`,
 * by reason) and logged, never stored under the name the client chose: otherwise any client
 * could create audit streams without limit. Calls refused for the tenant's call rate are never
 * stored either — storing them would be the very load the limit keeps off Redis.
 */
import { boundArgs, findTool, redactArgs, type ToolCallResult } from '@deskgate/computer-use';
import type { AuditEntry, AuditLog } from '@deskgate/dispatch';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../http/metrics.ts';
import type { CallScope } from './call-scope.ts';

export interface FinishedCall {
  scope: CallScope;
  tool: string;
  /** The arguments as the client sent them (a refused call has no validated ones). */
  args: unknown;
  result: ToolCallResult;
  ms: number;
  /** Whether the call's session exists: only then is the call stored in its audit log. */
  sessionExists: boolean;
  /** The call's id: sent with it on the action channel, kept with its timeline frame. */
  actionId: string;
}

export type CallAuditor = (call: FinishedCall) => void;

export interface CallAuditorDeps {
  audit: AuditLog;
  log: Logger;
  metrics: GatewayMetrics;
  keepText: boolean;
}

export function createCallAuditor({ audit, log, metrics, keepText }: CallAuditorDeps): CallAuditor {
  return function auditCall(call) {
    // Redaction happens now, on the arguments as they were; the writes after the reply.
    const entry = toEntry(call, keepText);
    const line = { ...toEntry(call, false), at: undefined };
    const stored = call.sessionExists && entry.kind !== 'quota_exceeded';
    if (!stored) metrics.refusedCalls.inc({ reason: findTool(call.tool) ? (entry.kind ?? 'error') : 'unknown_tool' });
    setImmediate(() => write(entry, line, stored));
  };

  function write(entry: AuditEntry, line: object, stored: boolean): void {
    if (!stored) {
      log.info({ ...line, audited: false }, 'tool call');
      return;
    }
    log.info(line, 'tool call');
    audit.record(entry).catch((error: unknown) => {
      log.warn({ err: error, tenant: entry.tenant, session: entry.session, tool: entry.tool }, 'audit entry not recorded');
    });
  }
}

function toEntry({ scope, tool, args, result, ms, actionId }: FinishedCall, keepText: boolean): AuditEntry {
  return {
    actionId,
    tenant: scope.ref.tenant,
    session: scope.ref.name,
    // The name is the client's: an unknown one is recorded too, but not at any length.
    tool: tool.slice(0, 128),
    args: boundArgs(redactArgs(tool, args, { keepText })),
    outcome: result.isError ? 'error' : 'ok',
    kind: result.isError ? result.structuredContent?.error?.kind : undefined,
    ms: Math.round(ms * 10) / 10,
    keyId: scope.keyId,
    controller: scope.controller,
    at: Date.now(),
  };
}
