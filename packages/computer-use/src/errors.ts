/**
 * Every way a tool call can fail, as data. The kind is machine-readable and stable; the
 * message is for the model and says what to do next.
 */
export type ToolErrorKind =
  | 'bad_args'
  | 'allowlist_empty'
  | 'permission_missing'
  | 'lock_held'
  | 'stale_epoch'
  | 'app_not_granted'
  | 'policy_denied'
  | 'no_app_window'
  | 'focus_not_granted'
  | 'tier_insufficient'
  | 'grant_flag_required'
  | 'state_conflict'
  | 'stale_screenshot'
  | 'no_screenshot'
  | 'capture_failed'
  | 'executor_failed'
  | 'display_error'
  | 'desktop_unavailable'
  | 'desktop_failed'
  | 'worker_lost'
  | 'timeout'
  | 'disabled'
  | 'quota_exceeded'
  | 'blocked_key_combo'
  /** deskgate's state store (Redis) cannot be reached: nothing was done, retry in a few seconds. */
  | 'unavailable';

export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    readonly kind: ToolErrorKind,
    message: string,
    /** When the same call may succeed, for a refusal that knows (a rate, a lease, busy desktops). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export function isToolError(error: unknown): error is ToolError {
  return error instanceof ToolError;
}
