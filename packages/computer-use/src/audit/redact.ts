/**
 * What the audit log keeps of a call's arguments. Typed text and clipboard contents may be
 * passwords or personal data, so by default they are replaced by their length; everything
 * else is kept as sent — key chords included, since an audit of a blocked combo needs them
 * and they are not secrets. Works on raw, unvalidated arguments (a refused call is audited
 * too) and never mutates its input.
 */

export interface RedactOptions {
  /** Keep typed text and clipboard contents verbatim (DESKGATE_AUDIT_TEXT=true). */
  keepText: boolean;
}

type Args = Record<string, unknown>;

const isObject = (value: unknown): value is Args => typeof value === 'object' && value !== null && !Array.isArray(value);

export function redactedText(value: unknown): string {
  return typeof value === 'string' ? `[redacted: ${[...value].length} characters]` : '[redacted]';
}

/** A copy of `args` with its `text` redacted, when it has one. */
function withoutText(args: Args): Args {
  return 'text' in args ? { ...args, text: redactedText(args.text) } : args;
}

/** Which calls carry secret text, by tool: a function from the call's arguments to their redacted copy. */
const REDACTORS: Record<string, (args: Args) => Args> = {
  type: withoutText,
  write_clipboard: withoutText,
  // Anthropic's computer tool: one tool, the action named in the arguments.
  computer: (args) => (args.action === 'type' ? withoutText(args) : args),
  computer_batch: (args) =>
    Array.isArray(args.actions)
      ? { ...args, actions: args.actions.map((action: unknown) => (isObject(action) && action.action === 'type' ? withoutText(action) : action)) }
      : args,
};

export function redactArgs(tool: string, args: unknown, { keepText }: RedactOptions): unknown {
  const redact = Object.hasOwn(REDACTORS, tool) ? REDACTORS[tool] : undefined;
  if (keepText || !redact || !isObject(args)) return args;
  return redact(args);
}

/**
 * Bounds what one audit entry (and its log line) holds: arguments whose JSON is longer than
 * `maxChars` are replaced by their size and the start of their JSON. Run after redactArgs.
 */
export function boundArgs(args: unknown, maxChars = 4096): unknown {
  const json = JSON.stringify(args) ?? 'undefined';
  if (json.length <= maxChars) return args;
  return { truncated: true, chars: json.length, start: json.slice(0, maxChars) };
}
