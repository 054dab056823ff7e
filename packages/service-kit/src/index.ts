/** @deskgate/service-kit — what the gateway and the worker processes share. */
export { envFlag, envList, LOG_LEVELS, MAX_DRAIN_SECONDS, parseEnv, serviceEnv, SettingsError } from './env-settings.ts';
export { createMetricsRegistry, metricsResponse } from './metrics-registry.ts';
export { handleStopSignals, withinMs, type StopOptions, type StopSignal } from './stop-signals.ts';
export { runBlockingLoop, type BlockingLoop } from './blocking-loop.ts';
