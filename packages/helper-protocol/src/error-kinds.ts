/**
 * Every error kind either helper answers, and the tool error kind the worker reports for it:
 * ONE table, instead of the rules spread over the worker's helper calls. It keeps what the
 * worker did before it existed (`viaHelper` and `guardRefusal` in
 * services/worker/src/executor/linux-executor.ts):
 *
 * - `bad_args` and `display_error` pass through, every other kind becomes the helper's
 *   fallback (`capture_failed` for the capture helper, `executor_failed` for the input
 *   runtime); only `bad_args` keeps the helper's message as it is, the others are prefixed
 *   with what was being done ("screen capture failed: …");
 * - `guard_failed` is `stale_screenshot` with the worker's own message (what was sent);
 * - new: `quota_exceeded` (launch at the desktop's process limit) passes through, as the
 *   worker's own launcher reports it.
 *
 * `vectors/*.json` list each helper's kinds; the tests check that every one is in this table.
 */
import type { ToolErrorKind } from '@deskgate/computer-use';
import { CAPTURE_ERROR_KINDS, type CaptureErrorKind } from './capture.ts';
import { INPUT_ERROR_KINDS, type InputErrorKind } from './input.ts';

/** How the worker words the tool error. */
export type HelperMessage =
  /** The helper's message as it is (it already speaks to the model: bad arguments). */
  | 'as_is'
  /** "<what was being done> failed: <the helper's message>". */
  | 'prefixed'
  /** The worker's own words (guard_failed: what was sent, take a new screenshot). */
  | 'worker';

export interface ToolErrorRule {
  kind: ToolErrorKind;
  message: HelperMessage;
}

/** Kinds the worker's helper client itself produces (helper-process.ts), for either helper. */
export const CLIENT_ERROR_KINDS = ['helper_died', 'helper_unavailable'] as const;
export type ClientErrorKind = (typeof CLIENT_ERROR_KINDS)[number];

export const CAPTURE_TOOL_ERRORS = {
  // The worker built the request: a refusal is a capture failure (the settle bounds are
  // checked by the worker first and reported as bad_args there).
  bad_request: { kind: 'capture_failed', message: 'prefixed' },
  capture_failed: { kind: 'capture_failed', message: 'prefixed' },
  // The kept frame is gone (the helper restarted, or the connection that kept it ended): for
  // the staleness check this means "changed" — check the helper kind before mapping.
  no_snapshot: { kind: 'capture_failed', message: 'prefixed' },
  display_error: { kind: 'display_error', message: 'prefixed' },
  helper_died: { kind: 'capture_failed', message: 'prefixed' },
  helper_unavailable: { kind: 'capture_failed', message: 'prefixed' },
} as const satisfies Record<CaptureErrorKind | ClientErrorKind, ToolErrorRule>;

export const INPUT_TOOL_ERRORS = {
  bad_args: { kind: 'bad_args', message: 'as_is' },
  x11_error: { kind: 'executor_failed', message: 'prefixed' },
  display_error: { kind: 'display_error', message: 'prefixed' },
  not_found: { kind: 'executor_failed', message: 'prefixed' },
  unsupported: { kind: 'executor_failed', message: 'prefixed' },
  guard_failed: { kind: 'stale_screenshot', message: 'worker' },
  quota_exceeded: { kind: 'quota_exceeded', message: 'as_is' },
  launch_failed: { kind: 'executor_failed', message: 'prefixed' },
  helper_died: { kind: 'executor_failed', message: 'prefixed' },
  helper_unavailable: { kind: 'executor_failed', message: 'prefixed' },
} as const satisfies Record<InputErrorKind | ClientErrorKind, ToolErrorRule>;

export type HelperName = 'capture' | 'input';

/** Kinds a helper of a newer protocol may answer that this table does not know yet get this. */
export const FALLBACK_TOOL_ERRORS: Record<HelperName, ToolErrorRule> = {
  capture: { kind: 'capture_failed', message: 'prefixed' },
  input: { kind: 'executor_failed', message: 'prefixed' },
};

/** The rule for an error kind `helper` answered (or the helper client produced). */
export function toolErrorRule(helper: HelperName, helperKind: string): ToolErrorRule {
  const table: Record<string, ToolErrorRule> = helper === 'capture' ? CAPTURE_TOOL_ERRORS : INPUT_TOOL_ERRORS;
  return Object.hasOwn(table, helperKind) ? table[helperKind]! : FALLBACK_TOOL_ERRORS[helper];
}

/**
 * The tool error's kind and message for a helper error, for every rule but 'worker'
 * (guard_failed, whose message the worker writes from what was sent): `what` is what was being
 * done ("screen capture", "click").
 */
export function toolErrorFor(helper: HelperName, helperKind: string, helperMessage: string, what: string): { kind: ToolErrorKind; message: string } {
  const rule = toolErrorRule(helper, helperKind);
  return { kind: rule.kind, message: rule.message === 'as_is' ? helperMessage : `${what} failed: ${helperMessage}` };
}

export { CAPTURE_ERROR_KINDS, INPUT_ERROR_KINDS };
