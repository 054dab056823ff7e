import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createWorkerMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    actionSeconds: new Histogram({
      name: 'deskgate_worker_action_seconds',
      help: 'Time a worker spends on one action, by tool and outcome',
      labelNames: ['tool', 'outcome'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers: [registry],
    }),
    desktops: new Gauge({ name: 'deskgate_worker_desktops', help: 'Desktops on this worker by state', labelNames: ['state'] as const, registers: [registry] }),
    helperRestarts: new Counter({ name: 'deskgate_worker_helper_restarts_total', help: 'Helper processes restarted after they died', labelNames: ['helper'] as const, registers: [registry] }),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
