/**
 * The services' logger: pino, with what must never reach a log file taken out at the one
 * place every line passes through.
 *
 * - Errors: ioredis errors carry the failed command with its arguments (`command: {name,
 *   args}`; a failed MULTI carries each queued command's error in `previousErrors`), and those
 *   arguments are whatever was being written — an action request with the text to type, a
 *   reply with the clipboard's contents. Only the command's name is kept. Any error-valued
 *   field is serialized this way, whatever its key.
 * - Tool arguments: the `text` of typing and clipboard calls (`type`, `write_clipboard`, a
 *   `computer` call with action `type`, `type` actions of `computer_batch`) is replaced by its
 *   length, in a line's `args` (next to its `tool`) and in a top-level `text`, whatever
 *   DESKGATE_AUDIT_TEXT says (that setting is for the audit stream, not the logs).
 */
import { hostname } from 'node:os';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { redactedText } from '@deskgate/computer-use';

export type LogLevel = Level | 'silent';

/** Error fields that hold a Redis command's arguments, or errors that do. */
const COMMAND_FIELDS = new Set(['command', 'previousErrors', 'args', 'lastNodeError']);
const REDACTED = /^\[redacted(: \d+ characters)?\]$/;
const SECRET_TEXT_TOOLS = new Set(['type', 'write_clipboard', 'read_clipboard', 'computer', 'computer_batch']);

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const isErrorLike = (value: unknown): value is Error => value instanceof Error || (isObject(value) && typeof value.message === 'string' && typeof value.stack === 'string');

/** pino's error serializer, without the arguments of a failed Redis command. Anything else passes as is. */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return scrub(pino.stdSerializers.err(error) as unknown as Fields);
}

function scrub(serialized: Fields): Fields {
  const out: Fields = {};
  for (const [key, value] of Object.entries(serialized)) {
    if (!COMMAND_FIELDS.has(key)) out[key] = isErrorLike(value) ? scrub(value as unknown as Fields) : value;
  }
  const command = serialized.command;
  if (isObject(command) && typeof command.name === 'string') out.redisCommand = command.name;
  if (Array.isArray(serialized.previousErrors)) {
    out.previousErrors = serialized.previousErrors.map((error: unknown) => (isObject(error) && typeof error.message === 'string' ? error.message : '[error]'));
  }
  if (Array.isArray(serialized.aggregateErrors)) out.aggregateErrors = serialized.aggregateErrors.map((error: unknown) => (isObject(error) ? scrub(error) : error));
  return out;
}

const hide = (value: unknown) => (typeof value === 'string' && REDACTED.test(value) ? value : redactedText(value));
const withoutText = (args: Fields): Fields => ('text' in args ? { ...args, text: hide(args.text) } : args);

/** A tool call's arguments with any secret text replaced by its length (already-redacted text is kept). */
export function hideSecretText(tool: unknown, args: unknown): unknown {
  if (!isObject(args)) return args;
  if (tool === 'type' || tool === 'write_clipboard' || tool === 'read_clipboard') return withoutText(args);
  if (tool === 'computer') return args.action === 'type' ? withoutText(args) : args;
  if (tool === 'computer_batch' && Array.isArray(args.actions)) {
    return { ...args, actions: args.actions.map((action: unknown) => (isObject(action) && action.action === 'type' ? withoutText(action) : action)) };
  }
  return args;
}

/** Every line, before serializers: errors under any key, and secret text of tool calls. */
export function cleanLogFields(fields: Fields): Fields {
  const out: Fields = {};
  const secretTool = SECRET_TEXT_TOOLS.has(fields.tool as string);
  for (const [key, value] of Object.entries(fields)) {
    if (value instanceof Error) out[key] = serializeError(value);
    else if (secretTool && key === 'args') out[key] = hideSecretText(fields.tool, value);
    else if (secretTool && key === 'text') out[key] = hide(value);
    else if (isObject(value) && 'tool' in value && 'args' in value) out[key] = { ...value, args: hideSecretText(value.tool, value.args) };
    else out[key] = value;
  }
  return out;
}

/** The logger every deskgate service uses: `name`, pid, hostname and the `base` fields on each line. */
export function createLogger(name: string, level: LogLevel = 'info', base: Fields = {}, destination?: DestinationStream): Logger {
  const options = {
    name,
    level,
    base: { pid: process.pid, hostname: hostname(), ...base },
    serializers: { err: serializeError, error: serializeError },
    formatters: { log: cleanLogFields },
  };
  return destination ? pino(options, destination) : pino(options);
}
