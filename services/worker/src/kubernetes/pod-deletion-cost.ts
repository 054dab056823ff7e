/**
 * A worker in Kubernetes keeps `controller.kubernetes.io/pod-deletion-cost` on its own pod
 * equal to the desktops its sessions hold, so that when the worker Deployment scales in, the
 * ReplicaSet removes the pod holding the fewest sessions first — an idle one when there is one
 * — instead of the newest (docs/kubernetes.md, "Scale-in"). Off outside Kubernetes.
 *
 * The count is read every `intervalMs` and the pod patched only when it changed, so a busy
 * worker sends at most one PATCH per interval; a failed PATCH is tried again with a growing
 * pause (up to MAX_RETRY_MS), so a refused or unreachable API server is not hammered.
 */
import type { Logger } from 'pino';

export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
/** How often the held count is compared with what the pod says: the rate limit of the PATCHes. */
export const DELETION_COST_INTERVAL_MS = 2000;
/** The longest pause between two tries after failures. */
export const MAX_RETRY_MS = 60_000;

export interface PodRef {
  name: string;
  namespace: string;
}

export interface PodAnnotator {
  annotatePod(namespace: string, pod: string, annotations: Record<string, string>): Promise<void>;
}

export interface PodDeletionCostOptions {
  api: PodAnnotator;
  pod: PodRef;
  /** Desktops held by sessions on this worker now. */
  held: () => number | Promise<number>;
  log: Logger;
  intervalMs?: number;
  /** Each PATCH's outcome, for the worker's metrics. */
  onUpdate?: (outcome: 'ok' | 'failed', cost: number) => void;
  now?: () => number;
}

export class PodDeletionCost {
  /** The cost the pod carries, as last set; undefined before the first success. */
  private current: number | undefined;
  private failures = 0;
  private retryAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | null = null;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: PodDeletionCostOptions) {
    this.intervalMs = options.intervalMs ?? DELETION_COST_INTERVAL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The cost the pod carries as far as this worker knows (undefined until first set). */
  get cost(): number | undefined {
    return this.current;
  }

  /** Sets the cost at once, then keeps it current. */
  start(): void {
    if (this.timer) return;
    void this.sync();
    this.timer = setInterval(() => void this.sync(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops updating (a draining worker's pod is going anyway). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.syncing;
  }

  /** One pass: the pod patched if the held count differs from its cost; one pass at a time. */
  sync(): Promise<void> {
    this.syncing ??= this.syncOnce().finally(() => (this.syncing = null));
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    if (this.now() < this.retryAt) return;
    const { api, pod, log } = this.options;
    let cost: number;
    try {
      cost = await this.options.held();
    } catch (error) {
      log.warn({ err: error }, 'pod deletion cost: the held desktops could not be counted');
      return;
    }
    if (cost === this.current) return;
    try {
      await api.annotatePod(pod.namespace, pod.name, { [POD_DELETION_COST]: String(cost) });
      if (this.failures > 0) log.info({ pod: pod.name, cost }, 'pod deletion cost set again after failures');
      else log.debug({ pod: pod.name, cost }, 'pod deletion cost set');
      this.current = cost;
      this.failures = 0;
      this.retryAt = 0;
      this.options.onUpdate?.('ok', cost);
    } catch (error) {
      this.failures++;
      const pauseMs = Math.min(MAX_RETRY_MS, this.intervalMs * 2 ** (this.failures - 1));
      this.retryAt = this.now() + pauseMs;
      // Once, then every tenth failure: a lasting refusal (RBAC, policy) is not a log flood.
      if (this.failures === 1 || this.failures % 10 === 0) {
        log.warn({ err: error, pod: pod.name, cost, failures: this.failures, retryInMs: pauseMs }, 'pod deletion cost not set: a scale-in may pick this pod before an idler one');
      }
      this.options.onUpdate?.('failed', cost);
    }
  }
}
