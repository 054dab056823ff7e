/**
 * Wires the pod-deletion-cost keeper to this pod's service account (DESKGATE_POD_NAME and
 * DESKGATE_POD_NAMESPACE come from the downward API). Without the API server's address in the
 * environment the worker is not in a pod: it says so once and runs without (a scale-in then
 * picks pods by age alone).
 */
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../http/metrics.ts';
import { InClusterApi, apiServerFromEnv } from './in-cluster-api.ts';
import { PodDeletionCost, type PodRef } from './pod-deletion-cost.ts';

export function startPodDeletionCost(pod: PodRef, held: () => Promise<number>, metrics: WorkerMetrics, log: Logger, env: NodeJS.ProcessEnv = process.env): PodDeletionCost | null {
  const server = apiServerFromEnv(env);
  if (!server) {
    log.error({ pod: pod.name }, 'DESKGATE_POD_NAME is set but KUBERNETES_SERVICE_HOST is not: no pod deletion cost (is this a pod?)');
    return null;
  }
  const keeper = new PodDeletionCost({
    api: new InClusterApi({ server }),
    pod,
    held,
    log,
    onUpdate: (outcome, cost) => {
      metrics.podDeletionCostUpdates.inc({ outcome });
      if (outcome === 'ok') metrics.podDeletionCost.set(cost);
    },
  });
  keeper.start();
  log.info({ pod: pod.name, namespace: pod.namespace, api: `${server.host}:${server.port}` }, 'keeping the pod deletion cost at the desktops held');
  return keeper;
}
