import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { desktopFiles, reachableByOthers } from './desktop-files.ts';

function checkout(mode: number) {
  const root = mkdtempSync(join(tmpdir(), 'deskgate-files-'));
  chmodSync(root, 0o755);
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'runtime/pkg'), { recursive: true });
  mkdirSync(join(repo, 'desktop/openbox'), { recursive: true });
  writeFileSync(join(repo, 'capture'), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(join(repo, 'runtime/pkg/__init__.py'), 'x = 1\n', { mode: 0o644 });
  writeFileSync(join(repo, 'desktop/openbox/rc.xml'), '<openbox_config/>\n', { mode: 0o644 });
  chmodSync(repo, mode);
  return { root, files: { captureBin: join(repo, 'capture'), runtimeDir: join(repo, 'runtime'), desktopDir: join(repo, 'desktop') } };
}

test('a checkout others can read is used as it is', () => {
  const { root, files } = checkout(0o755);
  assert.deepEqual(desktopFiles(files, join(root, 'staged')), { ...files, staged: null });
});

test('a checkout under a private folder is staged as a world-readable copy, once per content', () => {
  const { root, files } = checkout(0o700);
  assert.equal(reachableByOthers(files.runtimeDir), false);
  const staging = join(root, 'staged');
  const staged = desktopFiles(files, staging);
  assert.ok(staged.staged?.startsWith(staging));
  assert.equal(reachableByOthers(staged.captureBin, true), true);
  assert.equal(reachableByOthers(staged.runtimeDir), true);
  assert.equal(readFileSync(join(staged.desktopDir, 'openbox/rc.xml'), 'utf8'), '<openbox_config/>\n');
  assert.equal(statSync(join(staged.runtimeDir, 'pkg/__init__.py')).mode & 0o777, 0o644);
  assert.equal(desktopFiles(files, staging).staged, staged.staged, 'the same files, the same copy');
  writeFileSync(files.captureBin, '#!/bin/sh\nexit 1\n');
  assert.notEqual(desktopFiles(files, staging).staged, staged.staged, 'a rebuilt helper, a new copy');
});
