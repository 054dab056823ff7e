/**
 * A fresh MCP server per HTTP request (never shared between requests or clients), bound to
 * the authenticated tenant and the session named in the URL. tools/list and tools/call are
 * driven by the core registry; arguments are validated here before any desktop is touched,
 * and again by the worker, which trusts nothing.
 */
import { Server, type McpRequestContext } from '@modelcontextprotocol/server';
import { describeTools, errorResult, isToolError, parseCall, type ToolCallResult } from '@deskgate/computer-use';
import type { SessionRef } from '@deskgate/dispatch';
import type { Logger } from 'pino';
import type { SessionRouter } from '../sessions/session-router.ts';
import type { GatewayMetrics } from '../http/metrics.ts';

export const SERVER_INFO = { name: 'deskgate', version: '0.1.0' };

export interface CallScope {
  ref: SessionRef;
}

export function createServerFactory(router: SessionRouter, metrics: GatewayMetrics, log: Logger) {
  return (ctx: McpRequestContext) => {
    const scope = ctx.authInfo?.extra?.scope as CallScope | undefined;
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions:
        'deskgate gives you a virtual desktop. Take a screenshot first; coordinates you send are read off the most recent screenshot.',
    });
    // The core's descriptors are plain JSON Schema objects; the SDK's type wants its own shape.
    server.setRequestHandler('tools/list', async () => ({ tools: describeTools({ coordinateMode: 'pixels' }) as never }));
    server.setRequestHandler('tools/call', async (request) => {
      if (!scope) return errorResult('permission_missing', 'Not authenticated.') as never;
      const started = performance.now();
      const { name, arguments: args } = request.params;
      let result: ToolCallResult;
      let timings: Record<string, number> = {};
      try {
        const call = parseCall(name, args);
        const extraMs = (call.tool.extraSeconds?.(call.args as never) ?? 0) * 1000;
        const reply = await router.call(scope.ref, name, call.args, extraMs);
        result = reply.result as ToolCallResult;
        timings = reply.timings;
      } catch (error) {
        if (isToolError(error)) result = errorResult(error.kind, error.message);
        else {
          log.error({ err: error, tool: name }, 'tool call failed inside the gateway');
          result = errorResult('executor_failed', `deskgate could not run ${name}; the gateway logged the cause.`);
        }
      }
      const gatewayMs = performance.now() - started;
      const outcome = result.isError ? (result.structuredContent?.error?.kind ?? 'error') : 'ok';
      metrics.toolCallSeconds.observe({ tool: name, outcome }, gatewayMs / 1000);
      log.debug({ tenant: scope.ref.tenant, session: scope.ref.name, tool: name, outcome, ms: gatewayMs }, 'tool call');
      return { ...result, _meta: { 'deskgate/timings': { ...timings, gatewayMs } } } as never;
    });
    return server;
  };
}
