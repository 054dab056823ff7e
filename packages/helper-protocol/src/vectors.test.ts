/**
 * The shared vectors (../vectors/*.json) against this package: the codecs produce and decode
 * exactly the vectors' bytes, the schemas accept and refuse exactly what the helpers do, the
 * constants and error kinds are the helpers'. The same files are checked against the Rust
 * helper (helpers/linux-capture/tests/it/vectors.rs) and the Python runtime
 * (runtime/tests/test_vectors.py).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  CAPTURE_CONSTANTS,
  CAPTURE_ERROR_KINDS,
  CAPTURE_TOOL_ERRORS,
  CaptureFrameDecoder,
  CaptureRequestDecoder,
  INPUT_CONSTANTS,
  INPUT_ERROR_KINDS,
  INPUT_TOOL_ERRORS,
  InputLineDecoder,
  encodeCaptureRequest,
  encodeCaptureResponse,
  encodeInputRequest,
  encodeInputResponse,
  parseCaptureHeader,
  parseCaptureRequest,
  parseInputRequest,
  parseInputResult,
  type CaptureOp,
  type CaptureRequest,
  type InputOp,
  type InputRequest,
  type InputResponse,
} from './index.ts';

const load = (name: string) => JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url), 'utf8'));
const capture = load('capture.json');
const input = load('input.json');
const fromHex = (h: string) => Buffer.from(h, 'hex');

/** Feeds `bytes` to a decoder one small piece at a time (frames split anywhere). */
function drip<T>(push: (chunk: Buffer) => T[], bytes: Buffer, step = 3): T[] {
  const out: T[] = [];
  for (let i = 0; i < bytes.length; i += step) out.push(...push(bytes.subarray(i, i + step)));
  return out;
}

test('capture constants and error kinds are the vectors\'', () => {
  assert.deepEqual({ ...CAPTURE_CONSTANTS }, capture.constants);
  assert.deepEqual([...CAPTURE_ERROR_KINDS], capture.error_kinds);
  for (const kind of capture.error_kinds) assert.ok(Object.hasOwn(CAPTURE_TOOL_ERRORS, kind), `${kind} has a tool error`);
});

test('capture requests: encoded to the vectors\' bytes, decoded and accepted', () => {
  for (const v of capture.requests) {
    assert.equal(encodeCaptureRequest(v.request as CaptureRequest).toString('hex'), v.frame_hex, v.name);
    const decoder = new CaptureRequestDecoder();
    const [frame, ...rest] = drip((c) => decoder.push(c), fromHex(v.frame_hex));
    assert.equal(rest.length, 0, v.name);
    assert.equal(frame?.type, 'frame', v.name);
    const parsed = parseCaptureRequest(frame.type === 'frame' ? frame.body : Buffer.alloc(0));
    assert.ok(parsed.ok, `${v.name}: ${JSON.stringify(parsed)}`);
    assert.deepEqual(parsed.request, v.request, v.name);
  }
});

test('capture invalid frames: refused with the id and kind the helper answers', () => {
  for (const v of capture.invalid) {
    const bytes = v.oversized !== undefined ? Buffer.concat([Buffer.from(new Uint32Array([v.oversized]).buffer), Buffer.alloc(v.oversized, 0x20)]) : fromHex(v.frame_hex);
    const decoder = new CaptureRequestDecoder();
    const frames = drip((c) => decoder.push(c), bytes, 4096);
    assert.equal(frames.length, 1, v.name);
    const frame = frames[0]!;
    const answer = frame.type === 'too_large' ? { ok: false, id: null, kind: 'bad_request' } : parseCaptureRequest(frame.body);
    assert.equal(answer.ok, false, v.name);
    if (answer.ok) continue;
    assert.deepEqual({ id: answer.id, kind: answer.kind }, { id: v.id, kind: v.kind }, v.name);
    // What the worker would send is refused before it is sent.
    if (frame.type === 'frame') {
      const text = frame.body.toString('utf8');
      let object: unknown;
      try {
        object = JSON.parse(text);
      } catch {
        continue;
      }
      assert.throws(() => encodeCaptureRequest(object as CaptureRequest), TypeError, v.name);
    }
  }
  // And the encoder refuses a frame over the limit.
  assert.throws(() => encodeCaptureRequest({ id: 1, op: 'capture', format: 'png', keep: 'k', mask: Array(3000).fill({ x: 1, y: 1, width: 1, height: 1 }) }), RangeError);
});

test('capture responses: decoded from the vectors\' bytes, headers fit their op', () => {
  const all = Buffer.concat(capture.responses.map((v: { frame_hex: string }) => fromHex(v.frame_hex)));
  const decoder = new CaptureFrameDecoder();
  const frames = drip((c) => decoder.push(c), all, 5);
  assert.ok(decoder.idle);
  assert.equal(frames.length, capture.responses.length);
  capture.responses.forEach((v: { name: string; op: CaptureOp; header: Record<string, unknown>; payload_hex: string; frame_hex: string }, i: number) => {
    const frame = frames[i]!;
    assert.deepEqual(frame.header, v.header, v.name);
    assert.equal(frame.payload.toString('hex'), v.payload_hex, v.name);
    // The helper writes whole-number floats as 0.0 (serde_json): equal as JSON, not as bytes.
    assert.deepEqual(new CaptureFrameDecoder().push(encodeCaptureResponse(v.header, fromHex(v.payload_hex))), [frame], v.name);
    const parsed = parseCaptureHeader(v.op, frame.header);
    assert.equal(parsed.ok, v.header.ok, v.name);
    if (!parsed.ok) assert.ok((CAPTURE_ERROR_KINDS as readonly string[]).includes(parsed.error.kind), v.name);
  });
});

test('capture decoder: limits break the stream, reset() recovers', () => {
  const decoder = new CaptureFrameDecoder({ headerBytes: 20, payloadBytes: 4 });
  assert.throws(() => decoder.push(encodeCaptureResponse({ id: 1, ok: true, width: 1 })), /over the 20-byte limit/);
  assert.throws(() => decoder.push(Buffer.alloc(1)), /over the 20-byte limit/);
  decoder.reset();
  assert.throws(() => decoder.push(encodeCaptureResponse({ id: 1, ok: true }, Buffer.alloc(5))), /payload of 5 bytes/);
  decoder.reset();
  assert.deepEqual(decoder.push(encodeCaptureResponse({ id: 1, ok: true })), [{ header: { id: 1, ok: true }, payload: Buffer.alloc(0) }]);
  decoder.reset();
  assert.throws(() => decoder.push(Buffer.from('0300000031323300000000', 'hex')), /not a JSON object/);
  // A half frame is kept until the rest arrives.
  decoder.reset();
  const frame = encodeCaptureResponse({ id: 2, ok: true }, Buffer.from('ab'));
  assert.deepEqual(decoder.push(frame.subarray(0, 7)), []);
  assert.ok(!decoder.idle);
  assert.equal(decoder.push(frame.subarray(7)).length, 1);
  assert.throws(() => parseCaptureHeader('info', { id: 1, ok: true }), /unexpected header/);
});

test('input constants and error kinds are the vectors\'', () => {
  assert.deepEqual({ ...INPUT_CONSTANTS }, input.constants);
  assert.deepEqual([...INPUT_ERROR_KINDS], input.error_kinds);
  for (const kind of input.error_kinds) assert.ok(Object.hasOwn(INPUT_TOOL_ERRORS, kind), `${kind} has a tool error`);
});

test('input requests: encoded to the vectors\' lines and accepted', () => {
  for (const v of input.requests) {
    assert.equal(encodeInputRequest(v.request as InputRequest).toString(), `${v.line}\n`, v.name);
    const parsed = parseInputRequest(v.line);
    assert.ok(parsed.ok, `${v.name}: ${JSON.stringify(parsed)}`);
    assert.deepEqual(parsed.request, v.request, v.name);
  }
});

test('input invalid lines: refused with the id the runtime answers', () => {
  for (const v of input.invalid) {
    const line = v.oversized ? v.oversized.prefix + 'a'.repeat(v.oversized.length - v.oversized.prefix.length) : v.line;
    const parsed = parseInputRequest(Buffer.from(line));
    assert.equal(parsed.ok, false, v.name);
    if (parsed.ok) continue;
    assert.deepEqual({ id: parsed.id, kind: parsed.kind }, { id: v.id, kind: v.kind }, v.name);
    let object: unknown;
    try {
      object = JSON.parse(line);
    } catch {
      continue;
    }
    assert.throws(() => encodeInputRequest(object as InputRequest), v.name);
  }
});

test('input responses: decoded from the vectors\' lines, results fit their op', () => {
  const decoder = new InputLineDecoder();
  const all = Buffer.from(input.responses.map((v: { line: string }) => v.line).join(''));
  const responses = drip((c) => decoder.push(c), all, 7);
  assert.ok(decoder.idle);
  assert.equal(responses.length, input.responses.length);
  input.responses.forEach((v: { name: string; op: InputOp; response: InputResponse; line: string }, i: number) => {
    const r = responses[i]!;
    assert.deepEqual(r, v.response, v.name);
    assert.equal(encodeInputResponse(v.response).toString(), v.line, v.name);
    if (r.ok) parseInputResult(v.op, r.result);
    else assert.ok((INPUT_ERROR_KINDS as readonly string[]).includes(r.error.kind), v.name);
  });
});

test('input decoder: an over-long line or a non-response breaks the stream', () => {
  const decoder = new InputLineDecoder(10);
  assert.throws(() => decoder.push(Buffer.from('{"id": 1, "ok": true')), /over 10 bytes/);
  assert.throws(() => decoder.push(Buffer.from('\n')), /over 10 bytes/);
  decoder.reset();
  assert.throws(() => new InputLineDecoder().push(Buffer.from('[1]\n')), /not a response/);
  assert.throws(() => parseInputResult('launch', { pid: 'x' }), /unexpected result/);
});
