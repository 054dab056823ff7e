/**
 * The input runtime's protocol (docs/input-runtime.md): one JSON object per line each way, one
 * response line per request, in order. Schemas accept and refuse what the Python runtime does
 * (`runtime/deskgate_runtime`) for everything that does not depend on the screen or the
 * desktop's state (coordinates are checked against the screen there, not here); the vectors in
 * `vectors/input.json` pin both sides to that.
 */
import { z } from 'zod';
import {
  INPUT_MAX_CHORD_KEYS,
  INPUT_MAX_CHORDS,
  INPUT_MAX_CLICK_COUNT,
  INPUT_MAX_FACTS_TOKEN,
  INPUT_MAX_GATE_POINTS,
  INPUT_MAX_GUARD_POINTS,
  INPUT_MAX_KEYSYM,
  INPUT_MAX_LINE_BYTES,
  INPUT_MAX_REPEAT,
  INPUT_MAX_RESPONSE_LINE_BYTES,
  INPUT_MAX_SCROLL_AMOUNT,
  INPUT_MAX_TEXT_CHARS,
  INPUT_MAX_WINDOW_ID,
  LAUNCH_MAX_ARGS,
  LAUNCH_MAX_BYTES,
} from './constants.ts';
import { LineSplitter, ProtocolStreamError, describeIssues, isPlainObject, parseJson, utf8 } from './frames.ts';

/** Integer or string (never a boolean); missing or null is answered with id null. */
const requestId = z.union([z.int(), z.string()]).nullish();
const coord = z.int().min(0);
const point = z.tuple([coord, coord]);
const windowId = z.int().min(1).max(INPUT_MAX_WINDOW_ID);
export const SURFACE_KINDS = ['client', 'decoration', 'popup', 'root', 'none', 'unknown'] as const;
export const surfaceKindSchema = z.enum(SURFACE_KINDS);
export const mouseButtonSchema = z.enum(['left', 'middle', 'right']);
const modifiers = z.array(z.enum(['ctrl', 'alt', 'shift', 'meta'])).nullish();
const chords = z
  .array(z.array(z.int().min(1).max(INPUT_MAX_KEYSYM)).min(1).max(INPUT_MAX_CHORD_KEYS))
  .min(1)
  .max(INPUT_MAX_CHORDS);

/**
 * The input guard (docs/input-runtime.md, "Input guard"): what the gates judged, re-checked as
 * the input is sent. `facts`: the token of reported gate facts the gates judged on instead of
 * asking for them first; the runtime reads them again under the grab ("Judged on reported facts").
 */
export const inputGuardSchema = z
  .strictObject({
    focus: windowId.nullish(),
    facts: z.string().min(1).max(INPUT_MAX_FACTS_TOKEN).nullish(),
    at: z.array(z.tuple([coord, coord, surfaceKindSchema, windowId.nullable()])).max(INPUT_MAX_GUARD_POINTS).nullish(),
  })
  .refine((g) => g.focus != null || (g.at?.length ?? 0) > 0, "a guard must have 'focus', 'at' or both");
const guard = inputGuardSchema.nullish();

/** Code points, as Python counts them. */
const codePoints = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const op = <Op extends string, Shape extends z.ZodRawShape>(name: Op, shape: Shape) => z.strictObject({ id: requestId, op: z.literal(name), ...shape });

const launchBytes = (r: { argv: string[]; env?: Record<string, string> | null; cwd?: string | null }) =>
  r.argv.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0) +
  Object.entries(r.env ?? {}).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v) + 2, 0) +
  (r.cwd ? Buffer.byteLength(r.cwd) : 0);
const noNul = (s: string) => !s.includes('\0');

export const inputRequestSchemas = {
  ping: op('ping', {}),
  check: op('check', {}),
  move: op('move', { x: coord, y: coord, guard }),
  click: op('click', { x: coord, y: coord, button: mouseButtonSchema.nullish(), count: z.int().min(1).max(INPUT_MAX_CLICK_COUNT).nullish(), modifiers, guard }),
  mouse_down: op('mouse_down', { button: mouseButtonSchema.nullish(), x: coord.nullish(), y: coord.nullish(), guard }).refine((r) => (r.x == null) === (r.y == null), "give both 'x' and 'y', or neither"),
  mouse_up: op('mouse_up', { button: mouseButtonSchema.nullish(), x: coord.nullish(), y: coord.nullish(), guard }).refine((r) => (r.x == null) === (r.y == null), "give both 'x' and 'y', or neither"),
  drag: op('drag', { from: point.nullish(), to: point, button: mouseButtonSchema.nullish(), modifiers, guard }),
  scroll: op('scroll', { x: coord, y: coord, direction: z.enum(['up', 'down', 'left', 'right']), amount: z.int().min(0).max(INPUT_MAX_SCROLL_AMOUNT).nullish(), modifiers, guard }),
  key: op('key', { chords, repeat: z.int().min(1).max(INPUT_MAX_REPEAT).nullish(), guard }),
  key_down: op('key_down', { chords, guard }),
  /** key_up takes any guard and never checks it: releasing keys is always safe. */
  key_up: op('key_up', { chords, guard: z.unknown().optional() }),
  type: op('type', {
    text: z
      .string()
      .refine((t) => codePoints(t) <= INPUT_MAX_TEXT_CHARS, `text over ${INPUT_MAX_TEXT_CHARS} characters`)
      // Only \n, \r and \t of the control characters are typed (keyboard.py); no lone surrogates.
      .refine((t) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(t), 'control characters other than \\n, \\r and \\t')
      .refine((t) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(t), 'lone surrogates'),
    guard,
  }),
  cursor_position: op('cursor_position', {}),
  frontmost_app: op('frontmost_app', {}),
  window_at: op('window_at', { x: coord, y: coord }),
  list_windows: op('list_windows', {}),
  gate_facts: op('gate_facts', { points: z.array(point).max(INPUT_MAX_GATE_POINTS).nullish() }),
  iconify: op('iconify', { window: windowId }),
  activate: op('activate', { window: windowId }),
  release_all: op('release_all', {}),
  clipboard_write: op('clipboard_write', { text: z.string() }),
  clipboard_read: op('clipboard_read', {}),
  launch: op('launch', {
    argv: z
      .array(z.string().refine(noNul, 'no NUL bytes'))
      .min(1)
      .max(LAUNCH_MAX_ARGS)
      .refine((argv) => argv[0] !== '', 'argv[0] must not be empty'),
    env: z.record(z.string().refine((k) => k !== '' && !k.includes('=') && noNul(k), 'a variable name'), z.string().refine(noNul, 'no NUL bytes')).nullish(),
    cwd: z.string().min(1).refine(noNul, 'no NUL bytes').nullish(),
  }).refine((r) => launchBytes(r) <= LAUNCH_MAX_BYTES, `argv, env and cwd over ${LAUNCH_MAX_BYTES} bytes`),
  desktop_entries: op('desktop_entries', { user: z.boolean().nullish() }),
} as const;

export type InputOp = keyof typeof inputRequestSchemas;
export const INPUT_OPS = Object.keys(inputRequestSchemas) as InputOp[];
export type InputRequestOf<Op extends InputOp> = z.input<(typeof inputRequestSchemas)[Op]>;
export type InputRequest = { [Op in InputOp]: InputRequestOf<Op> }[InputOp];
/** A request's parameters (without id and op). */
export type InputParamsOf<Op extends InputOp> = Omit<InputRequestOf<Op>, 'id' | 'op'>;

// ---- Responses ----

export const INPUT_ERROR_KINDS = ['bad_args', 'x11_error', 'display_error', 'not_found', 'unsupported', 'guard_failed', 'quota_exceeded', 'launch_failed'] as const;
export type InputErrorKind = (typeof INPUT_ERROR_KINDS)[number];

const nullableInt = z.int().nullable();
export const appSchema = z.object({
  window: nullableInt,
  title: z.string().nullable(),
  wm_class: z.tuple([z.string(), z.string()]).nullable(),
  pid: nullableInt,
  exe: z.string().nullable(),
});
export const windowSchema = appSchema.omit({ window: true }).extend({ id: z.int(), x: z.int(), y: z.int(), width: z.int(), height: z.int(), mapped: z.boolean() });
export const surfaceSchema = z.object({ kind: surfaceKindSchema, window: nullableInt, app: appSchema.nullable() });
const empty = z.object({});

/** gate_facts' answer: what the gates judge an input action by, and the token it was reported under. */
export const gateFactsSchema = z.object({
  windows: z.array(windowSchema),
  focus: surfaceSchema,
  at: z.array(surfaceSchema),
  cursor: z.object({ x: z.int(), y: z.int() }),
  under_pointer: surfaceSchema,
  buttons: z.array(mouseButtonSchema),
  token: z.string().min(1).max(INPUT_MAX_FACTS_TOKEN),
});
export type GateFactsResult = z.output<typeof gateFactsSchema>;
/**
 * After an input op judged on reported facts: the facts now; only the pointer's parts under a
 * new token when nothing else changed (a move, a click); or only the token when nothing did.
 */
export const factsAfterSchema = z.union([
  gateFactsSchema,
  gateFactsSchema.pick({ token: true, cursor: true, under_pointer: true, buttons: true }).strict(),
  z.object({ token: gateFactsSchema.shape.token }).strict(),
]);
export type FactsAfter = z.output<typeof factsAfterSchema>;
/** An input op's answer: nothing, or (judged on reported facts) the facts after it. */
const sent = z.object({ facts: factsAfterSchema.optional() });

export const inputResultSchemas = {
  ping: empty,
  check: z.object({ xtest: z.boolean(), width: z.int(), height: z.int() }),
  move: sent,
  click: sent,
  mouse_down: sent,
  mouse_up: sent,
  drag: sent,
  scroll: sent,
  key: sent,
  key_down: sent,
  key_up: empty,
  type: sent.extend({ typed: z.int() }),
  cursor_position: z.object({ x: z.int(), y: z.int() }),
  frontmost_app: appSchema,
  window_at: appSchema,
  list_windows: z.object({ windows: z.array(windowSchema) }),
  gate_facts: gateFactsSchema,
  iconify: empty,
  activate: empty,
  release_all: empty,
  clipboard_write: empty,
  clipboard_read: z.object({ text: z.string().nullable() }),
  launch: z.object({ pid: z.int().min(1) }),
  desktop_entries: z.object({ files: z.array(z.object({ path: z.string(), text: z.string() })), truncated: z.boolean() }),
} as const satisfies Record<InputOp, z.ZodType>;

export type InputResultOf<Op extends InputOp> = z.output<(typeof inputResultSchemas)[Op]>;

const responseId = z.union([z.int(), z.string()]).nullable();
export const inputErrorSchema = z.looseObject({ kind: z.string(), message: z.string(), typed: z.int().optional() });
export const inputResponseSchema = z.union([
  z.object({ id: responseId, ok: z.literal(true), result: z.record(z.string(), z.unknown()) }),
  z.object({ id: responseId, ok: z.literal(false), error: inputErrorSchema }),
]);
export type InputResponse = z.output<typeof inputResponseSchema>;
export type InputError = z.output<typeof inputErrorSchema>;

/** A result checked against what `op` answers; throws ProtocolStreamError when it does not fit. */
export function parseInputResult<Op extends InputOp>(op: Op, result: unknown): InputResultOf<Op> {
  const parsed = inputResultSchemas[op].safeParse(result);
  if (!parsed.success) throw new ProtocolStreamError(`input runtime answered ${op} with an unexpected result: ${describeIssues(parsed.error.issues)}`);
  return parsed.data as InputResultOf<Op>;
}

// ---- Codec ----

/** A request's line: checked against its op's schema, then JSON and a newline. Throws on a request the runtime would refuse. */
export function encodeInputRequest(request: InputRequest): Buffer {
  const op = (request as { op?: unknown }).op;
  const schema = typeof op === 'string' && Object.hasOwn(inputRequestSchemas, op) ? inputRequestSchemas[op as InputOp] : undefined;
  if (!schema) throw new TypeError(`not an input op: ${String(op)}`);
  const parsed = schema.safeParse(request);
  if (!parsed.success) throw new TypeError(`bad input ${op} request: ${describeIssues(parsed.error.issues)}`);
  const line = Buffer.from(JSON.stringify(request));
  if (line.length > INPUT_MAX_LINE_BYTES) throw new RangeError(`input request of ${line.length} bytes exceeds the ${INPUT_MAX_LINE_BYTES}-byte line limit`);
  return Buffer.concat([line, Buffer.from('\n')]);
}

/**
 * Streaming decoder of response lines: push() the bytes as they arrive, get each complete
 * line's response. A line over the limit, or one that is not a response object, throws
 * ProtocolStreamError: drop the connection and reset() before using the decoder again.
 */
export class InputLineDecoder {
  private readonly lines: LineSplitter;
  private broken: string | null = null;

  constructor(private readonly maxLineBytes = INPUT_MAX_RESPONSE_LINE_BYTES) {
    this.lines = new LineSplitter(maxLineBytes);
  }

  /** True between lines: nothing of a next line received yet. */
  get idle(): boolean {
    return this.lines.idle;
  }

  push(chunk: Uint8Array): InputResponse[] {
    if (this.broken) throw new ProtocolStreamError(this.broken);
    const lines = this.lines.push(chunk);
    if (!lines) this.fail(`input runtime sent a line over ${this.maxLineBytes} bytes`);
    return lines.map((line) => {
      const text = utf8(line);
      const parsed = inputResponseSchema.safeParse(text === null ? undefined : parseJson(text));
      if (!parsed.success) this.fail(`input runtime sent a line that is not a response: ${describeIssues(parsed.error.issues)}`);
      return parsed.data;
    });
  }

  reset(): void {
    this.lines.clear();
    this.broken = null;
  }

  private fail(message: string): never {
    this.broken = message;
    throw new ProtocolStreamError(message);
  }
}

/** What the runtime makes of one request line: the checked request, or its `bad_args` answer. */
export type ParsedInputRequest = { ok: true; request: InputRequest } | { ok: false; id: string | number | null; kind: 'bad_args'; message: string };

/** Parses a request line (without its newline) the way the runtime does (protocol.py, ops.py), with the id it recovers. */
export function parseInputRequest(line: Uint8Array | string): ParsedInputRequest {
  const fail = (id: string | number | null, message: string): ParsedInputRequest => ({ ok: false, id, kind: 'bad_args', message });
  const bytes = typeof line === 'string' ? Buffer.from(line) : line;
  if (bytes.length > INPUT_MAX_LINE_BYTES) return fail(recoverId(bytes.subarray(0, 200)), `request line longer than ${INPUT_MAX_LINE_BYTES} bytes`);
  const text = typeof line === 'string' ? line : utf8(line);
  if (text === null) return fail(null, 'malformed JSON: not UTF-8');
  const value = parseJson(text);
  if (value === undefined) return fail(null, 'malformed JSON');
  if (!isPlainObject(value)) return fail(null, 'a request must be a JSON object');
  const id = value.id ?? null;
  if (id !== null && !(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return fail(null, "'id' must be an integer or a string");
  const rid = id as string | number | null;
  if (typeof value.op !== 'string') return fail(rid, "'op' must be a string");
  const schema = Object.hasOwn(inputRequestSchemas, value.op) ? inputRequestSchemas[value.op as InputOp] : undefined;
  if (!schema) return fail(rid, `unknown op ${JSON.stringify(value.op)}`);
  const parsed = schema.safeParse(value);
  if (!parsed.success) return fail(rid, `${value.op}: ${describeIssues(parsed.error.issues)}`);
  return { ok: true, request: value as InputRequest };
}

/** The id at the start of an oversized line, as the runtime recovers it (protocol.recover_id). */
function recoverId(prefix: Uint8Array): string | number | null {
  const m = /^\s*\{\s*"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,100}")/.exec(Buffer.from(prefix).toString('latin1'));
  return m ? (JSON.parse(Buffer.from(m[1]!, 'latin1').toString('utf8')) as string | number) : null;
}

/** A response line (for fake runtimes in tests). */
export function encodeInputResponse(response: InputResponse): Buffer {
  return Buffer.from(`${JSON.stringify(response)}\n`);
}
