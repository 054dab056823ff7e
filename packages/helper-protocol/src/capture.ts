/**
 * The capture helper's protocol (docs/capture-helper.md): requests are a u32 LE length and
 * that many bytes of JSON; responses a u32 LE header length, the JSON header, a u32 LE
 * payload length and the payload. Schemas accept and refuse exactly what the Rust helper
 * does (`helpers/linux-capture/src/request.rs`) for everything that does not depend on the
 * live screen; `vectors/capture.json` pins both sides to that.
 */
import { z } from 'zod';
import {
  CAPTURE_MAX_MASK_COORD,
  CAPTURE_MAX_PAYLOAD_BYTES,
  CAPTURE_MAX_RADIUS,
  CAPTURE_MAX_REQUEST_BYTES,
  CAPTURE_MAX_RESPONSE_HEADER_BYTES,
  CAPTURE_MAX_SCALE,
  CAPTURE_MAX_SLOT_NAME_BYTES,
  CAPTURE_QUALITY_RANGE,
  SETTLE_MAX_MS_LIMIT,
  SETTLE_QUIET_RANGE,
} from './constants.ts';
import { ByteQueue, ProtocolStreamError, describeIssues, isPlainObject, parseJson, u32le, utf8 } from './frames.ts';

const U32_MAX = 0xffffffff;
const u32 = z.int().min(0).max(U32_MAX);
const i32 = z.int().min(-(2 ** 31)).max(2 ** 31 - 1);
/** A request id: any JSON value, echoed verbatim (missing = null). */
const requestId = z.json().optional();

const slotName = z.string().refine((s) => {
  const n = Buffer.byteLength(s);
  return n >= 1 && n <= CAPTURE_MAX_SLOT_NAME_BYTES;
}, `slot name must be 1-${CAPTURE_MAX_SLOT_NAME_BYTES} bytes`);

export const rectSchema = z.strictObject({ x: i32, y: i32, width: u32, height: u32 });
export const sizeSchema = z.strictObject({ width: u32, height: u32 });
export const captureFormatSchema = z.enum(['jpeg', 'png', 'webp', 'rgb', 'auto']);

const inMaskRange = (v: number) => v >= -CAPTURE_MAX_MASK_COORD && v <= CAPTURE_MAX_MASK_COORD;

export const pingRequestSchema = z.strictObject({ id: requestId, op: z.literal('ping') });
export const infoRequestSchema = z.strictObject({ id: requestId, op: z.literal('info') });
export const cancelRequestSchema = z.strictObject({ id: requestId, op: z.literal('cancel') });
export const captureRequestSchema = z.strictObject({
  id: requestId,
  op: z.literal('capture'),
  format: captureFormatSchema,
  region: rectSchema
    .refine((r) => r.x >= 0 && r.y >= 0, 'region origin must not be negative')
    .refine((r) => r.width >= 1 && r.height >= 1, 'region sides must be at least 1')
    .nullish(),
  scale_to: sizeSchema.refine((s) => s.width >= 1 && s.height >= 1 && s.width <= CAPTURE_MAX_SCALE && s.height <= CAPTURE_MAX_SCALE, `scale_to sides must be 1-${CAPTURE_MAX_SCALE}`).nullish(),
  quality: u32.min(CAPTURE_QUALITY_RANGE[0]).max(CAPTURE_QUALITY_RANGE[1]).nullish(),
  mask: z
    .array(rectSchema.refine((m) => m.width >= 1 && m.height >= 1 && inMaskRange(m.x) && inMaskRange(m.y) && inMaskRange(m.width) && inMaskRange(m.height), `mask sides >= 1, coordinates within ±${CAPTURE_MAX_MASK_COORD}`))
    .optional(),
  keep: slotName.nullish(),
});
export const compareRequestSchema = z.strictObject({
  id: requestId,
  op: z.literal('compare'),
  slot: slotName,
  x: i32,
  y: i32,
  radius: u32.max(CAPTURE_MAX_RADIUS).nullish(),
});
export const settleRequestSchema = z
  .strictObject({
    id: requestId,
    op: z.literal('settle'),
    quiet_ms: u32.min(SETTLE_QUIET_RANGE[0]).max(SETTLE_QUIET_RANGE[1]),
    max_ms: u32.max(SETTLE_MAX_MS_LIMIT),
    react_quiet_ms: u32.nullish(),
    since_ms: u32.max(SETTLE_MAX_MS_LIMIT).optional(),
  })
  .refine((r) => r.max_ms >= r.quiet_ms, { message: 'max_ms must be from quiet_ms to 30000', path: ['max_ms'] })
  .refine((r) => r.react_quiet_ms == null || (r.react_quiet_ms >= r.quiet_ms && r.react_quiet_ms <= r.max_ms), { message: 'react_quiet_ms must be from quiet_ms to max_ms', path: ['react_quiet_ms'] });

/** The live view's next frame: waits for damage past `after`, then the whole screen; `max_ms` 0 answers at once (docs/capture-helper.md). */
export const frameRequestSchema = z.strictObject({
  id: requestId,
  op: z.literal('frame'),
  after: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
  max_ms: u32.max(SETTLE_MAX_MS_LIMIT),
  format: captureFormatSchema,
  scale_to: sizeSchema.refine((s) => s.width >= 1 && s.height >= 1 && s.width <= CAPTURE_MAX_SCALE && s.height <= CAPTURE_MAX_SCALE, `scale_to sides must be 1-${CAPTURE_MAX_SCALE}`).nullish(),
  quality: u32.min(CAPTURE_QUALITY_RANGE[0]).max(CAPTURE_QUALITY_RANGE[1]).nullish(),
});

export const captureRequestSchemas = {
  ping: pingRequestSchema,
  info: infoRequestSchema,
  capture: captureRequestSchema,
  compare: compareRequestSchema,
  settle: settleRequestSchema,
  frame: frameRequestSchema,
  cancel: cancelRequestSchema,
} as const;

export type CaptureOp = keyof typeof captureRequestSchemas;
export const CAPTURE_OPS = Object.keys(captureRequestSchemas) as CaptureOp[];
export type CaptureRequestOf<Op extends CaptureOp> = z.input<(typeof captureRequestSchemas)[Op]>;
/** Any request the capture helper takes. */
export type CaptureRequest = { [Op in CaptureOp]: CaptureRequestOf<Op> }[CaptureOp];

// ---- Responses ----

export const CAPTURE_ERROR_KINDS = ['bad_request', 'capture_failed', 'no_snapshot', 'display_error'] as const;
export type CaptureErrorKind = (typeof CAPTURE_ERROR_KINDS)[number];

const responseId = z.json();
const ok = z.literal(true);

export const monitorSchema = z.object({ name: z.string(), x: z.int(), y: z.int(), width: z.int(), height: z.int(), primary: z.boolean() });
export const captureBackendSchema = z.enum(['shm', 'getimage', 'none']);
export const autoReasonSchema = z.enum(['palette', 'near_palette', 'colours', 'time', 'bytes']);

const captureReplyFields = {
  width: z.int(),
  height: z.int(),
  format: z.enum(['jpeg', 'png', 'webp', 'rgb']),
  auto_reason: autoReasonSchema.optional(),
  backend: captureBackendSchema,
  capture_ms: z.number(),
  convert_ms: z.number(),
  scale_ms: z.number(),
  encode_ms: z.number(),
};

export const captureResponseSchemas = {
  ping: z.object({ id: responseId, ok }),
  info: z.object({ id: responseId, ok, width: z.int(), height: z.int(), depth: z.int(), backend: captureBackendSchema, monitors: z.array(monitorSchema) }),
  capture: z.object({ id: responseId, ok, ...captureReplyFields }),
  compare: z.object({ id: responseId, ok, same: z.boolean(), differing: z.int(), compared: z.int() }),
  settle: z.object({ id: responseId, ok, settled: z.boolean(), waited_ms: z.number(), damage_events: z.int(), cancelled: z.boolean() }),
  // `changed`: a frame follows (with the capture's fields); otherwise the wait ended without damage.
  frame: z.union([
    z.object({ id: responseId, ok, changed: z.literal(true), damage_events: z.int(), waited_ms: z.number(), ...captureReplyFields }),
    z.object({ id: responseId, ok, changed: z.literal(false), damage_events: z.int(), waited_ms: z.number() }),
  ]),
  cancel: z.object({ id: responseId, ok, cancelled: z.boolean() }),
} as const;

export const captureErrorHeaderSchema = z.object({
  id: responseId,
  ok: z.literal(false),
  error: z.object({ kind: z.string(), message: z.string() }),
});

export type CaptureReplyOf<Op extends CaptureOp> = z.output<(typeof captureResponseSchemas)[Op]>;
export type CaptureErrorHeader = z.output<typeof captureErrorHeaderSchema>;

/** One response as it came off the stream: the JSON header (unchecked) and the payload. */
export interface CaptureFrame {
  header: unknown;
  payload: Buffer;
}

/**
 * A header checked against the answer `op` gets: `{ok: true, reply}` or `{ok: false, error}`
 * (the helper's error; `kind` is one of CAPTURE_ERROR_KINDS, or another string from a newer helper).
 * Throws ProtocolStreamError when the header fits neither (a helper of another protocol).
 */
export function parseCaptureHeader<Op extends CaptureOp>(
  op: Op,
  header: unknown,
): { ok: true; reply: CaptureReplyOf<Op> } | { ok: false; error: CaptureErrorHeader['error']; id: unknown } {
  if (isPlainObject(header) && header.ok === false) {
    const parsed = captureErrorHeaderSchema.safeParse(header);
    if (parsed.success) return { ok: false, error: parsed.data.error, id: parsed.data.id };
  }
  const parsed = captureResponseSchemas[op].safeParse(header);
  if (!parsed.success) throw new ProtocolStreamError(`capture helper answered ${op} with an unexpected header: ${describeIssues(parsed.error.issues)}`);
  return { ok: true, reply: parsed.data as CaptureReplyOf<Op> };
}

// ---- Codec ----

/** A request's frame: checked against its op's schema, then length-prefixed JSON. Throws on a request the helper would refuse. */
export function encodeCaptureRequest(request: CaptureRequest): Buffer {
  const op = (request as { op?: unknown }).op;
  const schema = typeof op === 'string' ? captureRequestSchemas[op as CaptureOp] : undefined;
  if (!schema) throw new TypeError(`not a capture op: ${String(op)}`);
  const parsed = schema.safeParse(request);
  if (!parsed.success) throw new TypeError(`bad capture ${op} request: ${describeIssues(parsed.error.issues)}`);
  return encodeCaptureFrame(Buffer.from(JSON.stringify(request)));
}

/** Any body as a request frame (no checks but the size limit). */
export function encodeCaptureFrame(body: Uint8Array): Buffer {
  if (body.length > CAPTURE_MAX_REQUEST_BYTES) throw new RangeError(`capture request of ${body.length} bytes exceeds the ${CAPTURE_MAX_REQUEST_BYTES}-byte limit`);
  return Buffer.concat([u32le(body.length), body]);
}

/** A response frame (for fake helpers in tests). */
export function encodeCaptureResponse(header: object, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const h = Buffer.from(JSON.stringify(header));
  return Buffer.concat([u32le(h.length), h, u32le(payload.length), payload]);
}

/**
 * Streaming decoder of responses: push() the bytes as they arrive, get the complete frames.
 * A header over CAPTURE_MAX_RESPONSE_HEADER_BYTES, a payload over CAPTURE_MAX_PAYLOAD_BYTES or a
 * header that is not a JSON object throws ProtocolStreamError: drop the connection (or restart
 * the helper) and reset() before using the decoder again.
 */
export class CaptureFrameDecoder {
  private readonly queue = new ByteQueue();
  private header: unknown = undefined;
  private state: 'header_length' | 'header' | 'payload_length' | 'payload' = 'header_length';
  private need = 4;
  private broken: string | null = null;

  constructor(
    private readonly limits = { headerBytes: CAPTURE_MAX_RESPONSE_HEADER_BYTES, payloadBytes: CAPTURE_MAX_PAYLOAD_BYTES },
  ) {}

  /** True between frames: nothing of a next frame received yet. */
  get idle(): boolean {
    return this.state === 'header_length' && this.queue.length === 0;
  }

  push(chunk: Uint8Array): CaptureFrame[] {
    if (this.broken) throw new ProtocolStreamError(this.broken);
    this.queue.push(chunk);
    const out: CaptureFrame[] = [];
    while (this.queue.length >= this.need) {
      const bytes = this.queue.take(this.need);
      switch (this.state) {
        case 'header_length':
          this.need = this.length(bytes.readUInt32LE(0), this.limits.headerBytes, 'header');
          this.state = 'header';
          break;
        case 'header': {
          const text = utf8(bytes);
          const header = text === null ? undefined : parseJson(text);
          if (!isPlainObject(header)) this.fail('capture helper sent a response header that is not a JSON object');
          this.header = header;
          this.need = 4;
          this.state = 'payload_length';
          break;
        }
        case 'payload_length':
          this.need = this.length(bytes.readUInt32LE(0), this.limits.payloadBytes, 'payload');
          this.state = 'payload';
          break;
        case 'payload':
          out.push({ header: this.header, payload: Buffer.from(bytes) });
          this.header = undefined;
          this.need = 4;
          this.state = 'header_length';
          break;
      }
    }
    return out;
  }

  /** Forget everything (a new connection or a restarted helper). */
  reset(): void {
    this.queue.clear();
    this.header = undefined;
    this.state = 'header_length';
    this.need = 4;
    this.broken = null;
  }

  private length(n: number, limit: number, what: string): number {
    if (n > limit) this.fail(`capture helper sent a ${what} of ${n} bytes, over the ${limit}-byte limit`);
    return n;
  }

  private fail(message: string): never {
    this.broken = message;
    throw new ProtocolStreamError(message);
  }
}

/** A request frame as the helper reads it: the body, or a body over the limit (skipped). */
export type CaptureRequestFrame = { type: 'frame'; body: Buffer } | { type: 'too_large'; length: number };

/** Streaming decoder of request frames, as the helper reads them (for fake helpers and tests). */
export class CaptureRequestDecoder {
  private readonly queue = new ByteQueue();
  private length: number | null = null;
  private skipping = 0;

  push(chunk: Uint8Array): CaptureRequestFrame[] {
    this.queue.push(chunk);
    const out: CaptureRequestFrame[] = [];
    for (;;) {
      if (this.skipping > 0) {
        this.skipping -= this.queue.skip(this.skipping);
        if (this.skipping > 0) return out;
        out.push({ type: 'too_large', length: this.length! });
        this.length = null;
      }
      if (this.length === null) {
        if (this.queue.length < 4) return out;
        this.length = this.queue.take(4).readUInt32LE(0);
        if (this.length > CAPTURE_MAX_REQUEST_BYTES) {
          this.skipping = this.length;
          continue;
        }
      }
      if (this.queue.length < this.length) return out;
      out.push({ type: 'frame', body: this.queue.take(this.length) });
      this.length = null;
    }
  }
}

/** What the helper makes of one request body: the checked request, or its `bad_request` answer. */
export type ParsedCaptureRequest = { ok: true; request: CaptureRequest } | { ok: false; id: unknown; kind: 'bad_request'; message: string };

/** Parses a request body the way the helper does (request.rs), including the id it recovers. */
export function parseCaptureRequest(body: Uint8Array): ParsedCaptureRequest {
  const fail = (id: unknown, message: string): ParsedCaptureRequest => ({ ok: false, id, kind: 'bad_request', message });
  const text = utf8(body);
  if (text === null) return fail(null, 'request is not valid UTF-8');
  const value = parseJson(text);
  if (value === undefined) return fail(null, 'request is not valid JSON');
  if (!isPlainObject(value)) return fail(null, 'request must be a JSON object');
  const id = value.id === undefined ? null : value.id;
  if (typeof value.op !== 'string') return fail(id, value.op === undefined ? 'missing "op"' : '"op" must be a string');
  const schema = Object.hasOwn(captureRequestSchemas, value.op) ? captureRequestSchemas[value.op as CaptureOp] : undefined;
  if (!schema) return fail(id, `unknown op ${JSON.stringify(value.op)}`);
  const parsed = schema.safeParse(value);
  if (!parsed.success) return fail(id, `bad ${value.op} request: ${describeIssues(parsed.error.issues)}`);
  return { ok: true, request: value as CaptureRequest };
}
