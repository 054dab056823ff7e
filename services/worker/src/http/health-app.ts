/** The worker's own small HTTP face: liveness, readiness and Prometheus metrics. */
import { Hono } from 'hono';
import { metricsResponse } from '@deskgate/service-kit';
import type { WorkerMetrics } from './metrics.ts';

export function createHealthApp(metrics: WorkerMetrics, isReady: () => boolean) {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', (c) => (isReady() ? c.json({ ready: true }) : c.json({ ready: false }, 503)));
  app.get('/metrics', () => metricsResponse(metrics.registry));
  return app;
}
