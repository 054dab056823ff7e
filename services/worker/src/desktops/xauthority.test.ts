import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { addDisplayEntry, writeXauthority } from './xauthority.ts';
import { hostname } from 'node:os';

test('a fresh wildcard cookie per file, private, readable by xauth', () => {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-xauth-'));
  const cookie = writeXauthority(join(dir, 'a'));
  const other = writeXauthority(join(dir, 'b'));
  assert.equal(cookie.length, 16);
  assert.notDeepEqual(cookie, other);
  assert.equal(statSync(join(dir, 'a')).mode & 0o777, 0o600);
  const listed = execFileSync('xauth', ['-f', join(dir, 'a'), 'list'], { encoding: 'utf8' });
  assert.match(listed, new RegExp(`^#ffff#.*MIT-MAGIC-COOKIE-1\\s+${cookie.toString('hex')}\\s*$`));
  assert.throws(() => writeXauthority(join(dir, 'a')), /EEXIST/, 'never overwrites a file');
});

test('once the display is known, an exact entry for it joins the wildcard', () => {
  const dir = mkdtempSync(join(tmpdir(), 'deskgate-xauth-'));
  const path = join(dir, 'x');
  const cookie = writeXauthority(path);
  addDisplayEntry(path, cookie, ':42');
  const lines = execFileSync('xauth', ['-f', path, 'list'], { encoding: 'utf8' }).trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, new RegExp(`^${hostname()}/unix:42\\s+MIT-MAGIC-COOKIE-1\\s+${cookie.toString('hex')}$`));
});
