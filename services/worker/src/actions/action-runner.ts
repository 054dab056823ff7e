/**
 * Runs one action popped from a desktop's queue: load the session's state from Redis, run the
 * core dispatcher against this desktop's executor, save the state back, report the timings.
 */
import { callTool, errorResult, findTool, type SessionState } from '@deskgate/computer-use';
import { initialSessionState } from '@deskgate/computer-use';
import type { ActionHandler, SessionRef, SessionStore } from '@deskgate/dispatch';
import type { Logger } from 'pino';
import type { Desktop } from '../desktops/desktop.ts';
import type { WorkerMetrics } from '../http/metrics.ts';

export function actionRunner(desktop: Desktop, owner: SessionRef, sessions: SessionStore, metrics: WorkerMetrics, log: Logger): ActionHandler {
  return async (request) => {
    const started = performance.now();
    // Defence in depth: a desktop only ever runs the actions of the session that holds it.
    if (request.tenant !== owner.tenant || request.session !== owner.name) {
      log.warn({ desktop: desktop.id, tenant: request.tenant, session: request.session }, 'action for another session refused');
      return { result: errorResult('desktop_unavailable', 'This desktop belongs to another session.'), timings: {} };
    }
    const record = await sessions.get(owner);
    const state: SessionState = record?.state ?? initialSessionState();
    const before = JSON.stringify(state);
    const stateMs = performance.now() - started;

    desktop.executor.takeTimings();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(0, request.deadline - Date.now()));
    const toolStarted = performance.now();
    const result = await callTool(request.tool, request.args, { executor: desktop.executor, state, signal: controller.signal });
    clearTimeout(timer);
    const toolMs = performance.now() - toolStarted;

    if (JSON.stringify(state) !== before) await sessions.saveState(owner, state);
    else await sessions.touch(owner);

    const workerMs = performance.now() - started;
    const outcome = result.isError ? (result.structuredContent?.error.kind ?? 'error') : 'ok';
    metrics.actionSeconds.observe({ tool: findTool(request.tool) ? request.tool : 'unknown', outcome }, workerMs / 1000);
    log.info({ tenant: owner.tenant, session: owner.name, desktop: desktop.id, tool: request.tool, outcome, ms: Math.round(workerMs * 100) / 100 }, 'action');
    return { result, timings: { stateMs, toolMs, workerMs, ...desktop.executor.takeTimings() } };
  };
}
