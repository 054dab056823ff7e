/**
 * How a service process stops. SIGTERM drains: the service stops taking work at once and lets
 * what is in flight finish for up to its drain bound. SIGINT stops at once. Either way `stop`
 * runs once, and the process exits 0 after it — or 1 if it has not finished within the drain
 * bound plus `teardownMs` (a hung dependency never keeps a process alive).
 */
import type { Logger } from 'pino';

export type StopSignal = 'SIGTERM' | 'SIGINT';

export interface StopOptions {
  service: string;
  log: Logger;
  drainMs: number;
  /** What stopping may take beyond the drain before the process exits regardless. */
  teardownMs: number;
  /** Stops the service; `drainMs` is 0 for SIGINT. */
  stop(signal: StopSignal, drainMs: number): Promise<void>;
}

export function handleStopSignals(options: StopOptions): void {
  let stopping = false;
  const onSignal = (signal: StopSignal) => {
    if (stopping) return;
    stopping = true;
    const started = performance.now();
    const drainMs = signal === 'SIGTERM' ? options.drainMs : 0;
    setTimeout(() => {
      options.log.error({ ms: Math.round(performance.now() - started) }, `${options.service} did not stop within its bound; exiting`);
      process.exit(1);
    }, drainMs + options.teardownMs).unref();
    options.stop(signal, drainMs).then(
      () => process.exit(0),
      (error: unknown) => {
        options.log.error({ err: error }, `${options.service} failed while stopping`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}

/** `work`, or undefined once `ms` have passed (its failure ignored): for steps that talk to a dependency that may be gone. */
export function withinMs<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([work.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}
