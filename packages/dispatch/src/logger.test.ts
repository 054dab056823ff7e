import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Writable } from 'node:stream';
import { ReplyError } from 'ioredis';
import { createLogger } from './logger.ts';

const SECRET = 'hunter2-clipboard-secret';

/** A logger writing into an array of parsed lines. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger('test', 'debug', { worker: 'w-1' }, stream);
  return { log, text: () => lines.join(''), records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** What ioredis rejects with when Redis refuses a command: the command and its arguments attached. */
function replyError(message: string, name: string, args: unknown[]): Error {
  const error = new ReplyError(message) as Error & { command?: unknown };
  error.command = { name, args };
  return error;
}

test('an ioredis reply error keeps its message and command name, never the command\'s arguments', () => {
  const { log, text, records } = capture();
  const request = JSON.stringify({ tool: 'write_clipboard', args: { text: SECRET } });
  const error = replyError("OOM command not allowed when used memory > 'maxmemory'.", 'eval', ['return 1', '4', 'k1', 'k2', 'k3', 'k4', request]);
  log.error({ err: error, tool: 'write_clipboard' }, 'tool call failed inside the gateway');
  log.error(error);
  log.warn({ reason: error, error }, 'under other keys');
  log.warn({ err: new Error('wrapped', { cause: error }) }, 'as a cause');
  assert.ok(!text().includes(SECRET), text());
  const [first] = records();
  const err = first!.err as Record<string, unknown>;
  assert.match(err.message as string, /OOM command not allowed/);
  assert.equal(err.redisCommand, 'eval');
  assert.equal(err.type, 'ReplyError');
  assert.equal(err.command, undefined);
  assert.equal(first!.worker, 'w-1');
});

test('a failed MULTI keeps its queued commands\' messages, not their arguments', () => {
  const { log, text, records } = capture();
  const reply = JSON.stringify({ id: 'r1', result: { content: [{ type: 'text', text: SECRET }] } });
  const exec = new ReplyError('EXECABORT Transaction discarded because of previous errors.') as Error & Record<string, unknown>;
  exec.command = { name: 'exec', args: [] };
  exec.previousErrors = [replyError("OOM command not allowed when used memory > 'maxmemory'.", 'rpush', ['deskgate:replies:g', reply])];
  log.error({ err: exec, desktop: 'd1' }, 'action channel error');
  assert.ok(!text().includes(SECRET), text());
  const err = records()[0]!.err as Record<string, unknown>;
  assert.deepEqual(err.previousErrors, ["OOM command not allowed when used memory > 'maxmemory'."]);
});

test('the text of typing and clipboard calls is never logged; key chords and other arguments are', () => {
  const { log, text, records } = capture();
  log.info({ tool: 'type', args: { text: SECRET } }, 'tool call');
  log.info({ tool: 'write_clipboard', text: SECRET }, 'clipboard');
  log.info({ tool: 'computer', args: { action: 'type', text: SECRET } }, 'tool call');
  log.info({ request: { tool: 'computer_batch', args: { actions: [{ action: 'type', text: SECRET }, { action: 'key', text: 'ctrl+s' }] } } }, 'queued');
  log.info({ tool: 'key', args: { text: 'ctrl+shift+t' } }, 'tool call');
  log.info({ tool: 'type', args: { text: '[redacted: 7 characters]' } }, 'already redacted');
  assert.ok(!text().includes(SECRET), text());
  const lines = records();
  assert.deepEqual(lines[0]!.args, { text: `[redacted: ${SECRET.length} characters]` });
  assert.match(JSON.stringify(lines[3]), /ctrl\+s/);
  assert.deepEqual(lines[4]!.args, { text: 'ctrl+shift+t' });
  assert.deepEqual(lines[5]!.args, { text: '[redacted: 7 characters]' }, 'a redaction marker is not redacted again');
});
