import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DesktopSlots, parseDesktopUsers, processesOf } from './desktop-users.ts';

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

test('a slot is held by one worker at a time; a dead holder is taken over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-slots-'));
  const users = [fake(0), fake(1)];
  const mine = new DesktopSlots(users, dir);
  const first = await mine.take();
  assert.equal(first?.name, 'dg-test-0');
  assert.equal(readFileSync(join(dir, 'dg-test-0'), 'utf8'), String(process.pid));
  // Another worker on the host skips the claimed slot.
  writeFileSync(join(dir, 'dg-test-1'), '1'); // pid 1 is alive: a claim held elsewhere
  assert.equal(await new DesktopSlots(users, dir).take(), null);
  await mine.release(first!);
  writeFileSync(join(dir, 'dg-test-1'), '999999999'); // a worker that died
  const other = new DesktopSlots(users, dir);
  assert.equal((await other.take())?.name, 'dg-test-0');
  assert.equal((await other.take())?.name, 'dg-test-1', 'taken over from the dead worker');
  assert.equal(await other.take(), null);
});

test('processes and threads are counted per real uid', () => {
  const { pids, tasks } = processesOf(process.getuid!());
  assert.ok(pids.includes(process.pid));
  assert.ok(tasks >= pids.length);
});
