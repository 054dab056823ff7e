/**
 * One Prometheus registry per process, with Node's default metrics, and the handler that
 * serves it. Metric names start with `deskgate_<service>_`; labels take bounded values only.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The registry as a response body, in Prometheus' text format. */
export async function metricsResponse(registry: Registry): Promise<Response> {
  return new Response(await registry.metrics(), { status: 200, headers: { 'content-type': registry.contentType } });
}
