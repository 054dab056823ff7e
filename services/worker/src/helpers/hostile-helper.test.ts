/**
 * A helper is not trusted: a container's helpers run beside the agent's apps, and whatever runs
 * there can answer in their place. An answer that breaks the protocol's contract (a frame over
 * its limits, a header or result of the wrong shape, a line that is not a response) fails the
 * call with a clear error and drops the helper, which is started again; nothing of it is used.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { CaptureClient } from './capture-client.ts';
import { HelperError } from './helper-process.ts';
import { InputClient } from './input-client.ts';

const log = pino({ level: 'silent' });

function script(source: string): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-hostile-helper-'));
  writeFileSync(join(dir, 'helper.cjs'), source);
  return { command: process.execPath, args: [join(dir, 'helper.cjs')], env: {} };
}

/** A capture helper answering every request with `answer(request)`: [header, payload length]. */
const captureHelper = (answer: string) =>
  script(`
let buffer = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  while (buffer.length >= 4 && buffer.length >= 4 + buffer.readUInt32LE(0)) {
    const req = JSON.parse(buffer.subarray(4, 4 + buffer.readUInt32LE(0)).toString());
    buffer = buffer.subarray(4 + buffer.readUInt32LE(0));
    const [header, payloadLength] = (${answer})(req);
    const h = Buffer.from(JSON.stringify(header));
    const out = Buffer.alloc(8 + h.length);
    out.writeUInt32LE(h.length, 0); h.copy(out, 4); out.writeUInt32LE(payloadLength, 4 + h.length);
    process.stdout.write(out);
  }
});`);

test('a capture answer announcing a payload over the limit drops the helper; the call fails clearly', async (t) => {
  const client = new CaptureClient(captureHelper('(req) => [{ id: req.id, ok: true }, 0xffffffff]'), log);
  t.after(() => client.stop());
  client.start();
  const pid = client.pid;
  await assert.rejects(client.call({ op: 'ping' }), (error: unknown) => error instanceof HelperError && error.kind === 'helper_died');
  // Dropped and started again: a new process.
  for (let i = 0; i < 50 && (client.pid === pid || client.pid === undefined); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.notEqual(client.pid, pid);
  assert.equal(client.restartCount, 1);
});

test('a capture header of the wrong shape is not used: the call fails and the helper is dropped', async (t) => {
  const client = new CaptureClient(captureHelper("(req) => [{ id: req.id, ok: true, width: 'wide', height: -1, format: 'exe' }, 0]"), log);
  t.after(() => client.stop());
  client.start();
  await assert.rejects(client.call({ op: 'capture', format: 'png' }), (error: unknown) => error instanceof HelperError && error.kind === 'helper_died' && /unexpected header/.test(error.message));
});

test('a request the contract refuses is never sent', async (t) => {
  const client = new CaptureClient(captureHelper('(req) => [{ id: req.id, ok: true }, 0]'), log);
  t.after(() => client.stop());
  client.start();
  await assert.rejects(client.call({ op: 'capture', format: 'exe' }), (error: unknown) => error instanceof HelperError && error.kind === 'bad_request');
  // The helper is still there and in step: the next call gets its own answer.
  assert.equal((await client.call({ op: 'ping' })).header.ok, true);
  assert.equal(client.restartCount, 0);
});

test('an input runtime line that is not a response, or a result of the wrong shape, drops the runtime', async (t) => {
  const garbage = new InputClient(script(`process.stdin.on('data', () => process.stdout.write('{"hello": "world"}\\n'));`), log);
  const wrong = new InputClient(
    script(`process.stdin.on('data', (chunk) => { const req = JSON.parse(chunk.toString()); process.stdout.write(JSON.stringify({ id: req.id, ok: true, result: { pid: 'many' } }) + '\\n'); });`),
    log,
  );
  t.after(() => Promise.all([garbage.stop(), wrong.stop()]));
  garbage.start();
  wrong.start();
  await assert.rejects(garbage.call('ping'), (error: unknown) => error instanceof HelperError && error.kind === 'helper_died');
  await assert.rejects(wrong.call('launch', { argv: ['xterm'] }), (error: unknown) => error instanceof HelperError && error.kind === 'helper_died' && /unexpected result/.test(error.message));
});
