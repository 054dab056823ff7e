/**
 * LinuxExecutor's capture side: the MIME type follows the format the capture helper answered,
 * settle bounds are bad_args, and an aborted settle sends `cancel` so the helper's replies stay
 * matched to their calls (against a scripted helper process speaking the framed protocol).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { ToolError } from '@deskgate/computer-use';
import { CaptureClient } from '../helpers/capture-client.ts';
import type { InputClient } from '../helpers/input-client.ts';
import type { DesktopApps } from '../launch/desktop-apps.ts';
import { LinuxExecutor } from './linux-executor.ts';

/**
 * A stand-in helper: `capture` answers the format it is told to name; `settle` answers after
 * `quiet_ms` unless a `cancel` comes first (then the settle's cancelled answer, then the
 * cancel's); everything in request order, like deskgate-capture.
 */
const FAKE_HELPER = `
let buffer = Buffer.alloc(0);
let waiting = null;
const send = (header) => {
  const h = Buffer.from(JSON.stringify(header));
  const out = Buffer.alloc(8 + h.length);
  out.writeUInt32LE(h.length, 0); h.copy(out, 4); out.writeUInt32LE(0, 4 + h.length);
  process.stdout.write(out);
};
const settled = (req, cancelled) => ({ id: req.id, ok: true, settled: !cancelled, waited_ms: cancelled ? 1 : req.quiet_ms, damage_events: 0, cancelled });
process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  while (buffer.length >= 4 && buffer.length >= 4 + buffer.readUInt32LE(0)) {
    const req = JSON.parse(buffer.subarray(4, 4 + buffer.readUInt32LE(0)).toString());
    buffer = buffer.subarray(4 + buffer.readUInt32LE(0));
    if (req.op === 'settle') {
      const timer = setTimeout(() => { waiting = null; send(settled(req, false)); }, req.quiet_ms);
      waiting = { req, timer };
    } else if (req.op === 'cancel') {
      const hit = waiting !== null;
      if (waiting) { clearTimeout(waiting.timer); send(settled(waiting.req, true)); waiting = null; }
      send({ id: req.id, ok: true, cancelled: hit });
    } else if (req.op === 'capture') {
      send({ id: req.id, ok: true, width: 2, height: 1, format: req.format === 'auto' ? 'png' : req.format, backend: 'shm', capture_ms: 1, convert_ms: 0, scale_ms: 0, encode_ms: 1 });
    } else {
      send({ id: req.id, ok: true, op: req.op });
    }
  }
});
`;

function withHelper(): { executor: LinuxExecutor; capture: CaptureClient } {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-fake-capture-'));
  writeFileSync(join(dir, 'helper.cjs'), FAKE_HELPER);
  const capture = new CaptureClient({ command: process.execPath, args: [join(dir, 'helper.cjs')], env: {} }, pino({ level: 'silent' }));
  capture.start();
  return { executor: new LinuxExecutor(capture, {} as InputClient, {} as DesktopApps), capture };
}

const region = { x: 0, y: 0, width: 2, height: 1 };

test('capture reports the MIME type of the format the helper produced', async (t) => {
  const { executor, capture } = withHelper();
  t.after(() => capture.stop());
  const shot = (format: 'jpeg' | 'png' | 'webp' | 'auto') => executor.capture({ region, scaleTo: { width: 2, height: 1 }, format, quality: 75 });
  assert.equal((await shot('jpeg')).mimeType, 'image/jpeg');
  assert.equal((await shot('webp')).mimeType, 'image/webp');
  assert.equal((await shot('auto')).mimeType, 'image/png');
});

test('settle bounds are bad_args before the helper is asked', async () => {
  const executor = new LinuxExecutor({} as CaptureClient, {} as InputClient, {} as DesktopApps);
  const signal = new AbortController().signal;
  for (const request of [
    { quietMs: 5, maxMs: 100 },
    { quietMs: 2001, maxMs: 3000 },
    { quietMs: 100, maxMs: 50 },
    { quietMs: 100, maxMs: 30_001 },
    { quietMs: 80.5, maxMs: 2000 },
  ]) {
    await assert.rejects(executor.waitForSettle(request, signal), (error: unknown) => error instanceof ToolError && error.kind === 'bad_args', JSON.stringify(request));
  }
});

test('a settle answers with the helper’s figures; an aborted one cancels and later calls get their own replies', async (t) => {
  const { executor, capture } = withHelper();
  t.after(() => capture.stop());
  assert.deepEqual(await executor.waitForSettle({ quietMs: 20, maxMs: 2000 }, new AbortController().signal), { settled: true, waitedMs: 20 });

  const stop = new AbortController();
  const waiting = executor.waitForSettle({ quietMs: 2000, maxMs: 2000 }, stop.signal);
  setTimeout(() => stop.abort(new ToolError('timeout', 'stopped by the test')), 30);
  const started = performance.now();
  await assert.rejects(waiting, (error: unknown) => error instanceof ToolError && error.message === 'stopped by the test');
  assert.ok(performance.now() - started < 1000, 'the abort ends the wait at once');
  // The helper stopped waiting (without the cancel it would answer the capture after the 2 s
  // settle), and the cancelled settle's answer and the cancel's went to their own calls.
  const { header } = await capture.call({ op: 'capture', format: 'webp' });
  assert.deepEqual({ ok: header.ok, format: header.format }, { ok: true, format: 'webp' });
  assert.ok(performance.now() - started < 1500, 'the capture was not held behind the settle');
});
