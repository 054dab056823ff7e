/** The worker's Prometheus metrics, served on its health port (GET /metrics). */
import { Counter, Gauge, Histogram } from 'prom-client';
import { createMetricsRegistry } from '@deskgate/service-kit';

export function createWorkerMetrics() {
  const registry = createMetricsRegistry();
  const registers = [registry];
  return {
    registry,
    actionSeconds: new Histogram({
      name: 'deskgate_worker_action_seconds',
      help: 'Time a worker spends on one action, by tool and outcome',
      labelNames: ['tool', 'outcome'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    }),
    desktops: new Gauge({ name: 'deskgate_worker_desktops', help: 'Desktops on this worker by state: spare (warm, no session), held (a session has it)', labelNames: ['state'] as const, registers }),
    desktopStartSeconds: new Histogram({
      name: 'deskgate_worker_desktop_start_seconds',
      help: 'Time to start a desktop until its helpers answer, by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    }),
    helperRestarts: new Counter({ name: 'deskgate_worker_helper_restarts_total', help: 'Helper processes restarted after they died', labelNames: ['helper'] as const, registers }),
    podDeletionCost: new Gauge({ name: 'deskgate_worker_pod_deletion_cost', help: "The pod-deletion-cost last set on this worker's pod (Kubernetes only)", registers }),
    podDeletionCostUpdates: new Counter({ name: 'deskgate_worker_pod_deletion_cost_updates_total', help: "PATCHes of this worker's pod-deletion-cost, by outcome", labelNames: ['outcome'] as const, registers }),
  };
}

/** Desktops a worker's sessions hold now, as its gauge says. */
export async function heldDesktops(metrics: WorkerMetrics): Promise<number> {
  const { values } = await metrics.desktops.get();
  return values.find((value) => value.labels.state === 'held')?.value ?? 0;
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
