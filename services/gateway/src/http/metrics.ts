/**
 * The gateway's Prometheus metrics (GET /metrics, operator keys). Every label has a bounded
 * set of values — tool names the gateway offers (others are `unknown`), error kinds, refusal
 * reasons — so no client can grow the registry.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createGatewayMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    toolCallSeconds: new Histogram({
      name: 'deskgate_gateway_tool_call_seconds',
      help: 'Time from an MCP tools/call reaching the gateway to its result, by tool and outcome',
      labelNames: ['tool', 'outcome'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30],
      registers: [registry],
    }),
    refusedCalls: new Counter({
      name: 'deskgate_gateway_refused_calls_total',
      help: 'Tool calls refused for a session that does not exist (counted and logged, never kept in an audit log), by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
