/**
 * Runs the actions popped from one desktop's queue through the core dispatcher. The worker
 * holding a session's desktop is the only writer of that session's tool state, so it keeps
 * the state in memory and, when a call changed it, writes it to Redis (with lastUsedAt) in
 * the same transaction that pushes the reply: no Redis round trip of its own on the action's
 * path, nothing lost on a restart. A call that changed nothing is answered at once, straight
 * to its gateway where it can (direct replies).
 *
 * The kill switch is enforced here too, not only by the gateway: before every action, and
 * while one runs (a batch, a wait, a held key) it is watched, and switching it on — or losing
 * sight of it — stops the call at once with `disabled`.
 */
import { ToolError, callTool, errorResult, findTool, toolContext, type ApprovalBroker, type SessionState, type TenantPolicy, type ToolCallResult, withSettledScreenshot } from '@deskgate/computer-use';
import type { ActionHandler, KillSwitch, SessionRef, SessionStore } from '@deskgate/dispatch';
import type { Logger } from 'pino';
import type { ChainableCommander } from 'ioredis';
import type { Desktop } from '../desktops/desktop.ts';
import type { WorkerMetrics } from '../http/metrics.ts';

/** How often a running call looks at the kill switch (its reads are cached for as long). */
export const KILL_SWITCH_WATCH_MS = 100;

/**
 * Tools whose one guarded input op is all they do to the desktop: their gates may judge on the
 * facts the input runtime reported last, one round trip per action (docs/input-runtime.md,
 * "Judged on reported facts"). When the runtime refuses because those facts changed, nothing
 * was sent, so the call is judged and run again on the fresh facts the refusal carried.
 */
const JUDGED_ON_REPORTS = new Set(['left_click', 'double_click', 'triple_click', 'right_click', 'middle_click', 'mouse_move', 'scroll', 'key']);
/** Runs on reported facts at most this often; then once more on facts read for the call (as before reports). */
const REPORTED_ATTEMPTS = 2;

async function judgedOnReports(executor: Desktop['executor'], tool: string, call: () => Promise<ToolCallResult>): Promise<ToolCallResult> {
  try {
    for (let attempt = 1; ; attempt++) {
      executor.judgeOnReportedFacts(JUDGED_ON_REPORTS.has(tool) && attempt <= REPORTED_ATTEMPTS);
      const result = await call();
      if (!executor.mayRunAgain()) return result;
    }
  } finally {
    executor.judgeOnReportedFacts(false);
  }
}

export function actionRunner(
  desktop: Desktop,
  owner: SessionRef,
  state: SessionState,
  access: { policy: TenantPolicy; approvals: ApprovalBroker; killSwitch: KillSwitch },
  sessions: SessionStore,
  metrics: WorkerMetrics,
  log: Logger,
): ActionHandler {
  return async (request) => {
    const started = performance.now();
    // Defence in depth: a desktop only ever runs the actions of the session that holds it.
    if (request.tenant !== owner.tenant || request.session !== owner.name) {
      log.warn({ desktop: desktop.id, tenant: request.tenant, session: request.session }, 'action for another session refused');
      return { result: errorResult('desktop_unavailable', 'This desktop belongs to another session.'), timings: {} };
    }
    // A session's coordinate mode was fixed when it was created; coordinates in another would land elsewhere.
    if (request.coordinateMode && request.coordinateMode !== state.coordinateMode) {
      const message = `This session uses coordinate mode ${state.coordinateMode}, fixed when it was created; this endpoint asked for ${request.coordinateMode}. Connect with ?coordinate_mode=${state.coordinateMode}, or use another session name. Nothing was done.`;
      return { result: errorResult('state_conflict', message), timings: {} };
    }
    const { killSwitch, ...toolAccess } = access;
    const stopped = await killSwitch.refusal(owner.tenant);
    if (stopped) return { result: errorResult(stopped.kind, stopped.message), timings: {} };
    const before = JSON.stringify(state);

    desktop.executor.takeTimings();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new ToolError('timeout', `${request.tool} ran out of time and was stopped.`)),
      Math.min(Math.max(0, request.deadline - Date.now()), 2 ** 31 - 1),
    );
    const watch = setInterval(() => {
      void killSwitch.refusal(owner.tenant).then((refusal) => refusal && controller.abort(refusal));
    }, KILL_SWITCH_WATCH_MS);
    const toolStarted = performance.now();
    const context = { executor: desktop.executor, state, signal: controller.signal, ...toolAccess };
    const result = await judgedOnReports(desktop.executor, request.tool, () => callTool(request.tool, request.args, context))
      // ?screenshot_after=settled on the caller's endpoint: a tool that acts also shows the settled screen.
      .then((answer) => (request.screenshotAfter ? withSettledScreenshot(findTool(request.tool), answer, toolContext(context), toolStarted) : answer))
      .finally(() => {
        clearTimeout(timer);
        clearInterval(watch);
      });
    const toolMs = performance.now() - toolStarted;

    const changed = JSON.stringify(state) !== before;
    const workerMs = performance.now() - started;
    const outcome = result.isError ? (result.structuredContent?.error?.kind ?? 'error') : 'ok';
    metrics.actionSeconds.observe({ tool: findTool(request.tool) ? request.tool : 'unknown', outcome }, workerMs / 1000);
    // The gateway logs every call (the audit line); this one adds the worker's side, for debugging.
    log.debug({ tenant: owner.tenant, session: owner.name, desktop: desktop.id, tool: request.tool, outcome, ms: Math.round(workerMs * 100) / 100 }, 'action');
    return {
      result,
      timings: { toolMs, workerMs, ...desktop.executor.takeTimings() },
      // Unchanged, the state needs no write before the caller's next call: the reply may go
      // straight to the gateway (the host keeps lastUsedAt).
      ...(changed ? { persist: (multi: ChainableCommander) => sessions.queueSave(multi, owner, desktop.id, state) } : { replyFirst: true }),
    };
  };
}
