import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applicationDirs, findLauncher, parseDesktopEntry, splitExec } from './desktop-entries.ts';

test('Exec lines split per the spec, field codes dropped', () => {
  assert.deepEqual(splitExec('xterm'), ['xterm']);
  assert.deepEqual(splitExec('firefox-esr %u'), ['firefox-esr']);
  assert.deepEqual(splitExec('/usr/bin/code --unity-launch %F'), ['/usr/bin/code', '--unity-launch']);
  assert.deepEqual(splitExec('"/opt/My App/run" --title "a \\"b\\"" %i %c'), ['/opt/My App/run', '--title', 'a "b"']);
  assert.deepEqual(splitExec('printf 100%% --file=%f'), ['printf', '100%', '--file=']);
  assert.deepEqual(splitExec('sh -c "echo\\sx"'), ['sh', '-c', 'echo x']);
  assert.deepEqual(splitExec('app ""'), ['app', '']);
});

test('only launchable applications count', () => {
  const entry = (body: string) => parseDesktopEntry(`[Desktop Entry]\n${body}\n[Desktop Action new]\nExec=other --new\n`, '/x/debian-xterm.desktop');
  assert.deepEqual(entry('Type=Application\nExec=xterm\nStartupWMClass=XTerm'), { id: 'debian-xterm', path: '/x/debian-xterm.desktop', exec: ['xterm'], wmClass: 'XTerm' });
  assert.equal(entry('Type=Link\nExec=xterm'), null);
  assert.equal(entry('Type=Application\nExec=xterm\nHidden=true'), null);
  assert.equal(entry('Type=Application'), null);
});

test('XDG order: the user first, then the system', () => {
  assert.deepEqual(applicationDirs({ HOME: '/home/u' }), ['/home/u/.local/share/applications', '/usr/local/share/applications', '/usr/share/applications']);
});

test('lookup by file id, StartupWMClass, Exec basename, then PATH', async () => {
  const root = mkdtempSync(join(tmpdir(), 'deskgate-entries-'));
  const apps = join(root, 'applications');
  const bin = join(root, 'bin');
  mkdirSync(apps);
  mkdirSync(bin);
  writeFileSync(join(apps, 'org.example.Editor.desktop'), '[Desktop Entry]\nType=Application\nExec=/opt/editor/bin/edit %F\nStartupWMClass=ExampleEdit\n');
  writeFileSync(join(apps, 'debian-xterm.desktop'), '[Desktop Entry]\nType=Application\nExec=xterm\n');
  writeFileSync(join(bin, 'tool'), '#!/bin/sh\n');
  chmodSync(join(bin, 'tool'), 0o755);
  writeFileSync(join(bin, 'data'), '');
  const find = (app: string) => findLauncher(app, { dirs: [apps], path: bin });
  assert.deepEqual(await find('org.example.Editor'), { command: ['/opt/editor/bin/edit'], source: join(apps, 'org.example.Editor.desktop') });
  assert.deepEqual((await find('exampleedit'))?.command, ['/opt/editor/bin/edit']);
  assert.deepEqual((await find('edit'))?.command, ['/opt/editor/bin/edit']);
  assert.deepEqual(await find('xterm'), { command: ['xterm'], source: join(apps, 'debian-xterm.desktop') });
  assert.deepEqual(await find('tool'), { command: [join(bin, 'tool')], source: join(bin, 'tool') });
  assert.equal(await find('data'), null, 'not executable');
  assert.equal(await find('nothing-here'), null);
  assert.equal(await find(join(bin, 'tool')), null, 'a path is never an app');
});
