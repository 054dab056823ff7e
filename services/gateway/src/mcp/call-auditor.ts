/**
 * Records a finished tool call — in the session's audit stream and as one JSON log line —
 * without holding up the reply: both happen right after the reply is on its way (a Redis
 * write and a log write are a syscall each, worth a tenth of a millisecond apiece), and a
 * failure to write is logged, never turned into a failed call. Entries keep their order.
 * Arguments are redacted before either sees them.
 */
import { boundArgs, redactArgs, type ToolCallResult } from '@deskgate/computer-use';
import type { AuditEntry, AuditLog } from '@deskgate/dispatch';
import type { Logger } from 'pino';
import type { CallScope } from './server-factory.ts';

export interface FinishedCall {
  scope: CallScope;
  tool: string;
  /** The arguments as the client sent them (a refused call has no validated ones). */
  args: unknown;
  result: ToolCallResult;
  ms: number;
}

export type CallAuditor = (call: FinishedCall) => void;

export function createCallAuditor(audit: AuditLog, log: Logger, options: { keepText: boolean }): CallAuditor {
  return function auditCall(call) {
    // Redaction happens now, on the arguments as they were; the writes after the reply.
    const entry = toEntry(call);
    setImmediate(() => write(entry));
  };

  function toEntry({ scope, tool, args, result, ms }: FinishedCall): AuditEntry {
    return {
      tenant: scope.ref.tenant,
      session: scope.ref.name,
      // The name is the client's: an unknown one is recorded too, but not at any length.
      tool: tool.slice(0, 128),
      args: boundArgs(redactArgs(tool, args, options)),
      outcome: result.isError ? 'error' : 'ok',
      kind: result.isError ? result.structuredContent?.error?.kind : undefined,
      ms: Math.round(ms * 10) / 10,
      keyId: scope.keyId,
      controller: scope.controller,
      at: Date.now(),
    };
  }

  function write(entry: AuditEntry): void {
    const { at: _at, ...line } = entry;
    log.info(line, 'tool call');
    audit.record(entry).catch((error: unknown) => {
      log.warn({ err: error, tenant: entry.tenant, session: entry.session, tool: entry.tool }, 'audit entry not recorded');
    });
  }
}
