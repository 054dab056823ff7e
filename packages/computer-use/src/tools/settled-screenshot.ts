/**
 * A screenshot of the screen after an action, once it has stopped changing: what Anthropic's
 * reference loop gets by sleeping a fixed 2 s before its screenshot, without the fixed wait.
 * The executor watches the screen's damage (XDamage) until it has been quiet for a moment; the
 * screenshot is then taken by the native screenshot tool, so it has the same size, masking and
 * geometry, and becomes the frame for the next coordinates. Used by every action of /computer
 * and, on request (`?screenshot_after=settled`), by the native tools that act.
 */
import { isToolError } from '../errors.ts';
import type { ToolContext, ToolDefinition } from './define-tool.ts';
import { textOf, type ToolCallResult } from './result.ts';

/**
 * The screen counts as settled after this long without damage. Longer than the gaps inside one
 * redraw (an app repaints within a few ms of its input event; a menu or a scroll animating at
 * 60 Hz damages every ~16 ms), so a half-drawn frame is not taken for a settled one; short
 * enough that a screen that does not change at all costs only this.
 */
export const SETTLE_QUIET_MS = 80;
/**
 * The longest wait for a settled screen: the reference loop's fixed delay, so a screen that
 * never settles (a spinner, a video, a blinking caret faster than the quiet time) costs no more
 * than there. The screenshot is taken anyway and the reply says it did not settle.
 */
export const SETTLE_MAX_MS = 2000;
/**
 * Once the screen changed after the action began — the app reacted — the wait needs this much
 * quiet instead: apps answer in steps (a pressed button at once, then a pause for work or the
 * network, then the redraw), and the pause must not pass for the end. A screen the action left
 * alone still costs only SETTLE_QUIET_MS; Bytebot sleeps 750 ms and the reference loop 2 s for both.
 */
export const SETTLE_REACT_QUIET_MS = 500;

/** What the wait found, reported in structuredContent.settle. */
export interface SettleReport {
  settled: boolean;
  waitedMs: number;
  /** Why the wait could not watch the screen (the screenshot is still taken). */
  error?: string;
}

/** The option a native endpoint can ask for, per call: a settled screenshot after every tool that acts. */
export const SCREENSHOT_AFTER = ['settled'] as const;
export type ScreenshotAfter = (typeof SCREENSHOT_AFTER)[number];

/**
 * Waits for the screen to settle, then takes a screenshot; the action has already run, so only a
 * stop (deadline, kill switch) ends this early. `actedAt` (performance.now() when the action
 * began) lets the screen's reaction to the action count.
 */
export async function settledScreenshot(context: ToolContext, actedAt?: number): Promise<{ screenshot: ToolCallResult; settle: SettleReport }> {
  const started = performance.now();
  let settle: SettleReport;
  try {
    const reaction = actedAt === undefined ? {} : { reactQuietMs: SETTLE_REACT_QUIET_MS, sinceMs: Math.round(started - actedAt) };
    const result = await context.executor.waitForSettle({ quietMs: SETTLE_QUIET_MS, maxMs: SETTLE_MAX_MS, ...reaction }, context.signal);
    settle = { settled: result.settled, waitedMs: Math.round(result.waitedMs) };
  } catch (error) {
    if (context.signal.aborted) throw error;
    // Not watching the screen is no reason to fail an action that already ran: report it and look anyway.
    settle = { settled: false, waitedMs: Math.round(performance.now() - started), error: isToolError(error) || error instanceof Error ? error.message : String(error) };
  }
  return { screenshot: await context.dispatcher.call('screenshot', {}, context), settle };
}

/**
 * A tool's result with the settled screenshot appended (and `structuredContent.settle`), for a
 * successful call of a tool that acts; any other result is returned as it is.
 */
export async function withSettledScreenshot(tool: ToolDefinition | undefined, result: ToolCallResult, context: ToolContext, actedAt?: number): Promise<ToolCallResult> {
  if (!tool || tool.effect !== 'acts' || result.isError) return result;
  let after: Awaited<ReturnType<typeof settledScreenshot>>;
  try {
    after = await settledScreenshot(context, actedAt);
  } catch (error) {
    // Stopped while waiting (deadline, kill switch): the action ran, so its result stands.
    const message = error instanceof Error ? error.message : String(error);
    return { ...result, structuredContent: { ...result.structuredContent, settle: { settled: false, waitedMs: 0, error: message } } };
  }
  const { screenshot, settle } = after;
  const note = screenshot.isError ? [{ type: 'text' as const, text: `No screenshot after the action: ${textOf(screenshot)}` }] : [];
  return {
    ...result,
    content: [...result.content, ...screenshot.content.filter((block) => block.type === 'image'), ...note],
    structuredContent: { ...result.structuredContent, settle },
  };
}

export { textOf };
