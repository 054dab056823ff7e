/**
 * A fresh MCP server per HTTP request (never shared between requests or clients), bound to
 * the authenticated tenant and the session named in the URL. tools/list and tools/call are
 * driven by the core registry; arguments are validated here before any desktop is touched,
 * and again by the worker, which trusts nothing.
 */
import { randomUUID } from 'node:crypto';
import { Server, type McpRequestContext } from '@modelcontextprotocol/server';
import { ToolError, describeTools, errorResult, findTool, isToolError, parseCall, toolErrorResult, toolsOf, type ToolCallResult, SETTLE_MAX_MS } from '@deskgate/computer-use';
import type { Logger } from 'pino';
import type { SessionRouter } from '../sessions/session-router.ts';
import type { GatewayMetrics } from '../http/metrics.ts';
import type { CallAuditor } from './call-auditor.ts';
import type { CallScope } from './call-scope.ts';

export type { CallScope };
import { SUPPORTED_PROTOCOL_VERSIONS } from './protocol-checks.ts';
import { isRedisUnavailable, unavailableToolError, type KillSwitch, type TenantQuotas } from '@deskgate/dispatch';

export const SERVER_INFO = { name: 'deskgate', version: '0.1.0' };

export interface ServerDeps {
  router: SessionRouter;
  metrics: GatewayMetrics;
  log: Logger;
  /** Every call, refused or not, is handed to it once its result is known. */
  auditCall: CallAuditor;
  killSwitch: KillSwitch;
  quotas: TenantQuotas;
}

/** The call, when this endpoint offers the tool and its arguments are valid; else `bad_args`. */
async function parseOffered(surface: CallScope['surface'], name: string, args: unknown): Promise<ReturnType<typeof parseCall>> {
  if (!toolsOf(surface).some((tool) => tool.name === name)) {
    const where = surface === 'computer' ? 'the /mcp endpoint' : 'the /computer endpoint';
    throw new ToolError('bad_args', findTool(name) ? `${name} is not offered here; it is served at ${where}.` : `Unknown tool "${name}". Call tools/list for the tools deskgate offers.`);
  }
  return parseCall(name, args);
}

export function createServerFactory({ router, metrics, log, auditCall, killSwitch, quotas }: ServerDeps) {
  return (ctx: McpRequestContext) => {
    const scope = ctx.authInfo?.extra?.scope as CallScope | undefined;
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      // A 2025-era initialize negotiates within the revisions deskgate serves (protocol-checks.ts).
      supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      instructions:
        scope?.coordinateMode === 'normalized_0_100'
          ? 'deskgate gives you a virtual desktop. Take a screenshot first; coordinates you send are percentages of the display (0–100), x from the left, y from the top.'
          : 'deskgate gives you a virtual desktop. Take a screenshot first; coordinates you send are read off the most recent screenshot.',
    });
    // The core's descriptors are plain JSON Schema objects; the SDK's type wants its own shape.
    // While the kill switch is on (or its state is unknown), the tenant is offered no tools at all.
    server.setRequestHandler('tools/list', async () => ({
      tools: (!scope || (await killSwitch.isOnOrUnknown(scope.ref.tenant)) ? [] : describeTools({ coordinateMode: scope.coordinateMode }, scope.surface)) as never,
    }));
    server.setRequestHandler('tools/call', async (request) => {
      if (!scope) return errorResult('permission_missing', 'Not authenticated.') as never;
      const started = performance.now();
      const { name, arguments: args } = request.params;
      let result: ToolCallResult;
      let timings: Record<string, number> = {};
      // One id per call: the action channel's, its audit entry's and its timeline frame's.
      const actionId = randomUUID();
      // Calls count against the tenant's call rate: one that goes to a desktop, in its enqueue's
      // round trip (session-router.ts); one refused here, on its own, first. (A call refused for
      // asking another platform than its session's is not counted: an in-memory check.)
      const caller = { controller: scope.controller, keyId: scope.keyId, screenshotAfter: scope.screenshotAfter, reachedSession: false, actionId, countsAgainstRate: true, ...(scope.platform ? { platform: scope.platform } : {}) };
      try {
        const switchedOff = await killSwitch.refusal(scope.ref.tenant);
        if (switchedOff) throw switchedOff;
        const call = await parseOffered(scope.surface, name, args).catch(async (error: unknown) => {
          await quotas.countCall(scope.ref.tenant);
          throw error;
        });
        const settleMs = scope.screenshotAfter && call.tool.effect === 'acts' ? SETTLE_MAX_MS : 0;
        const extraMs = (call.tool.extraSeconds?.(call.args as never) ?? 0) * 1000 + settleMs;
        const reply = await router.call(scope.ref, caller, name, call.args, extraMs, scope.coordinateMode);
        result = reply.result as ToolCallResult;
        timings = reply.timings;
        if (timings.queueMs !== undefined) metrics.actionQueueSeconds.observe({ tool: name }, timings.queueMs / 1000);
      } catch (error) {
        if (isToolError(error)) result = toolErrorResult(error);
        else if (isRedisUnavailable(error)) {
          const unavailable = unavailableToolError();
          result = errorResult(unavailable.kind, unavailable.message);
        } else {
          log.error({ err: error, tool: name, tenant: scope.ref.tenant }, 'tool call failed inside the gateway');
          result = errorResult('executor_failed', `deskgate could not run ${name}; the gateway logged the cause.`);
        }
      }
      const gatewayMs = performance.now() - started;
      const outcome = result.isError ? (result.structuredContent?.error?.kind ?? 'error') : 'ok';
      // Unknown names share one label, so a client cannot grow the metric without bound.
      metrics.toolCallSeconds.observe({ tool: findTool(name) ? name : 'unknown', outcome }, gatewayMs / 1000);
      // A call that reached a desktop had a session; one refused before may name none (see call-auditor.ts).
      const sessionExists = caller.reachedSession || (await router.exists(scope.ref).catch(() => false));
      auditCall({ scope, tool: name, args, result, ms: gatewayMs, sessionExists, actionId });
      return { ...result, _meta: { 'deskgate/timings': { ...timings, gatewayMs } } } as never;
    });
    return server;
  };
}
