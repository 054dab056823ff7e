import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DesktopSlots, parseDesktopUsers, processesOf, tryLock } from './desktop-users.ts';

const passwd = [
  'root:x:0:0:root:/root:/bin/bash',
  'deskgate-desktop-10:x:990:990:deskgate desktop:/nonexistent:/usr/sbin/nologin',
  'deskgate-desktop-2:x:997:997:deskgate desktop:/nonexistent:/usr/sbin/nologin',
  'deskgate-desktopper:x:998:998::/nonexistent:/usr/sbin/nologin',
  'deskgate-desktop-x:x:996:996::/nonexistent:/usr/sbin/nologin',
].join('\n');
const group = 'root:x:0:\ndeskgate-desktop:x:995:deskgate-desktop-2,deskgate-desktop-10\n';

test('desktop users are <prefix>-N, in slot order, with the shared group', () => {
  assert.deepEqual(parseDesktopUsers(passwd, group, 'deskgate-desktop'), [
    { name: 'deskgate-desktop-2', uid: 997, gid: 997, groupGid: 995 },
    { name: 'deskgate-desktop-10', uid: 990, gid: 990, groupGid: 995 },
  ]);
  assert.deepEqual(parseDesktopUsers(passwd, 'root:x:0:\n', 'deskgate-desktop'), [], 'no shared group, no desktop users');
  assert.deepEqual(parseDesktopUsers('evil-0:x:0:0::/:/bin/sh', 'evil:x:5:\n', 'evil'), [], 'never uid 0');
});

// Uids nobody has: claiming sweeps their (absent) processes and temp files.
const fake = (n: number) => ({ name: `dg-test-${n}`, uid: 3_999_000 + n, gid: 3_999_000 + n, groupGid: 3_999_999 });

test('a slot is held by one worker at a time (flock); a dead holder\'s lock goes with it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-slots-'));
  const users = [fake(0), fake(1)];
  const mine = new DesktopSlots(users, dir, { workerId: 'w-test', pid: process.pid });
  const first = await mine.take();
  assert.equal(first?.name, 'dg-test-0');
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'dg-test-0'), 'utf8')), { workerId: 'w-test', pid: process.pid });
  // Another worker on the host (a process holding dg-test-1's lock; -o: not its child sleep) and this one's claim: nothing left.
  const other = spawn('flock', ['-x', '-o', join(dir, 'dg-test-1'), 'sleep', '30'], { stdio: 'ignore' });
  for (let i = 0; i < 100 && tryLockAndFree(join(dir, 'dg-test-1')); i++) await sleep(20);
  assert.equal(await new DesktopSlots(users, dir).take(), null, 'both slots are held');
  // Writing a pid into the file claims nothing: only the lock counts.
  writeFileSync(join(dir, 'dg-test-0'), '999999999');
  assert.equal(await new DesktopSlots(users, dir).take(), null);
  await mine.release(first!);
  assert.equal(readFileSync(join(dir, 'dg-test-0'), 'utf8'), '', 'a released slot names no holder');
  other.kill('SIGKILL'); // the other worker dies: the kernel drops its lock
  await new Promise((resolve) => other.once('exit', resolve));
  const next = new DesktopSlots(users, dir);
  assert.equal((await next.take())?.name, 'dg-test-0');
  assert.equal((await next.take())?.name, 'dg-test-1', 'taken over from the dead worker');
  assert.equal(await next.take(), null);
  assert.equal(tryLock(join(dir, 'dg-test-1')), null, 'held while this process keeps it');
});

function tryLockAndFree(path: string): boolean {
  const fd = tryLock(path);
  if (fd === null) return false;
  closeSync(fd);
  return true;
}

test('processes and threads are counted per real uid', () => {
  const { pids, tasks } = processesOf(process.getuid!());
  assert.ok(pids.includes(process.pid));
  assert.ok(tasks >= pids.length);
});
