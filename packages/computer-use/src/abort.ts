/**
 * Stopping a running call: the worker aborts the call's signal when its deadline passes or the
 * kill switch goes on, with a ToolError as the reason. Waits end at once with that error, and
 * a batch stops before its next step.
 */
import { ToolError } from './errors.ts';

/** setTimeout's ceiling: a longer delay fires at once (a 1e10 ms wait would end immediately). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The error a stopped call ends with: the abort's reason, or a timeout. */
export function abortError(signal: AbortSignal): ToolError {
  return signal.reason instanceof ToolError ? signal.reason : new ToolError('timeout', 'The call ran out of time and was stopped.');
}

/** Throws the abort error if the call was stopped. */
export function throwIfStopped(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}

/** Sleeps `ms` (clamped to what a timer can hold), rejecting with the abort error when stopped. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
