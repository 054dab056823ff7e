/** Where the live view's own capture helper comes from, per kind of desktop. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { liveTransport } from './live-frames.ts';

test('a spawned helper: the live view spawns the same command once more', () => {
  const spawned = { command: '/usr/bin/deskgate-capture', args: ['--display', ':7'], env: {} };
  assert.deepEqual(liveTransport(spawned), spawned);
});

test('a helper behind a socket: live.sock in the same folder, when the desktop offers one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-live-transport-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const agents = { socket: join(dir, 'capture.sock') };
  assert.equal(liveTransport(agents), undefined, 'no live.sock: no live view (an older desktop image)');
  const server = createServer().listen(join(dir, 'live.sock'));
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => server.close());
  assert.deepEqual(liveTransport(agents), { socket: join(dir, 'live.sock') });
});
