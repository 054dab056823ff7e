/**
 * The gateway's Prometheus metrics (GET /metrics, operator keys). Every label has a bounded
 * set of values — tool names the gateway offers (others are `unknown`), error kinds, refusal
 * reasons — so no client can grow the registry. The `deskgate_fleet_*` gauges are read from
 * Redis at scrape time and are the same on every gateway: what autoscalers scale workers on
 * (docs/autoscaling.md).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { FleetDemand } from '@deskgate/dispatch';
import { createMetricsRegistry } from '@deskgate/service-kit';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30];

/**
 * `fleet` reads the fleet's demand; absent (unit tests), the fleet gauges stay empty.
 * `replies` counts the action replies settled by each path (direct from a worker, or Redis).
 */
export function createGatewayMetrics(fleet?: () => Promise<FleetDemand>, replies?: () => { direct: number; redis: number }) {
  const registry = createMetricsRegistry();
  const registers = [registry];
  // One read of Redis per scrape, shared by the fleet gauges; a failed read leaves them empty.
  let reading: Promise<FleetDemand | null> | null = null;
  const demand = () => {
    reading ??= (fleet?.() ?? Promise.resolve(null)).catch(() => null).finally(() => setTimeout(() => (reading = null), 100).unref());
    return reading;
  };
  const fleetGauge = (name: string, help: string, read: (demand: FleetDemand, gauge: Gauge<'state'>) => void, labelNames: readonly 'state'[] = []) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        const now = await demand();
        if (now) read(now, this);
      },
    });
  return {
    registry,
    toolCallSeconds: new Histogram({
      name: 'deskgate_gateway_tool_call_seconds',
      help: 'Time from an MCP tools/call reaching the gateway to its result, by tool and outcome',
      labelNames: ['tool', 'outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    actionQueueSeconds: new Histogram({
      name: 'deskgate_gateway_action_queue_seconds',
      help: "Time an action waited in its desktop's queue before the worker took it, by tool",
      labelNames: ['tool'] as const,
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5],
      registers,
    }),
    desktopWaitSeconds: new Histogram({
      name: 'deskgate_gateway_desktop_wait_seconds',
      help: "A new session's wait for a desktop (allocation included), by outcome: ok, busy (every desktop in use), failed",
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 60],
      registers,
    }),
    actionReplies: new Counter({
      name: 'deskgate_gateway_action_replies_total',
      help: 'Action replies by the path they came: direct (a worker wrote it to this gateway) or redis (the reply list: a first reply, one that follows its writes, or a fallback)',
      labelNames: ['path'] as const,
      registers,
      collect() {
        if (!replies) return;
        this.reset();
        for (const [path, count] of Object.entries(replies())) this.inc({ path }, count);
      },
    }),
    refusedCalls: new Counter({
      name: 'deskgate_gateway_refused_calls_total',
      help: 'Tool calls refused for a session that does not exist (counted and logged, never kept in an audit log), by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    fleetWorkers: fleetGauge('deskgate_fleet_workers', 'Workers with a fresh capacity record', (now, gauge) => gauge.set(now.workers)),
    fleetDesktops: fleetGauge(
      'deskgate_fleet_desktops',
      'Desktops across the fleet by state: capacity, busy (held by sessions), warm (spares ready), free (sessions the fleet could take now)',
      (now, gauge) => {
        for (const [state, count] of Object.entries(now.desktops)) gauge.set({ state }, count);
      },
      ['state'],
    ),
    fleetSessionsWaiting: fleetGauge('deskgate_fleet_sessions_waiting', 'New sessions waiting for a desktop (allocations no worker has taken yet)', (now, gauge) => gauge.set(now.sessions.waiting)),
    fleetWantedDesktops: fleetGauge('deskgate_fleet_wanted_desktops', 'Desktops the fleet should have: busy + waiting + the warm target', (now, gauge) => gauge.set(now.wanted.desktops)),
    fleetWantedWorkers: fleetGauge('deskgate_fleet_wanted_workers', 'Workers the fleet should have: wanted desktops over desktops per worker, never fewer than hold a busy desktop', (now, gauge) => gauge.set(now.wanted.workers)),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
