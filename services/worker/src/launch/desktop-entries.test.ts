import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isToolError } from '@deskgate/computer-use';
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
  assert.deepEqual(entry('Type=Application\nExec=xterm\nStartupWMClass=XTerm'), {
    id: 'debian-xterm',
    path: '/x/debian-xterm.desktop',
    exec: ['xterm'],
    wmClass: 'XTerm',
    terminal: false,
    noDisplay: false,
  });
  assert.equal(entry('Type=Link\nExec=xterm'), null);
  assert.equal(entry('Type=Application\nExec=xterm\nHidden=true'), null);
  assert.equal(entry('Type=Application'), null);
  assert.equal(entry('Type=Application\nExec=vim\nTerminal=true')?.terminal, true);
});

test("deskgate's own entries first, then the system's; never a folder the desktop user can write", () => {
  assert.deepEqual(applicationDirs('/opt/deskgate/desktop'), ['/opt/deskgate/desktop/share/applications', '/usr/local/share/applications', '/usr/share/applications']);
});

const refusedWith = (pattern: RegExp) => (error: unknown) => isToolError(error) && error.kind === 'bad_args' && pattern.test(error.message);

test('lookup by file id, StartupWMClass and Exec basename; never PATH', async () => {
  const root = mkdtempSync(join(tmpdir(), 'deskgate-entries-'));
  const apps = join(root, 'applications');
  mkdirSync(apps);
  writeFileSync(join(apps, 'org.example.Editor.desktop'), '[Desktop Entry]\nType=Application\nExec=/opt/editor/bin/edit %F\nStartupWMClass=ExampleEdit\n');
  writeFileSync(join(apps, 'debian-xterm.desktop'), '[Desktop Entry]\nType=Application\nExec=xterm\n');
  const find = (app: string) => findLauncher(app, { dirs: [apps], extra: new Map() });
  assert.deepEqual(await find('org.example.Editor'), { command: ['/opt/editor/bin/edit'], source: 'org.example.Editor.desktop' });
  assert.deepEqual((await find('exampleedit')).command, ['/opt/editor/bin/edit']);
  assert.deepEqual((await find('edit')).command, ['/opt/editor/bin/edit']);
  assert.deepEqual(await find('xterm'), { command: ['xterm'], source: 'debian-xterm.desktop' });
  // Executables on PATH are not apps of the desktop.
  for (const app of ['yes', 'killall5', 'reboot', 'sh', 'python3']) {
    await assert.rejects(find(app), refusedWith(/no \.desktop entry or executable named "[^"]+" among this desktop's apps \(it offers debian-xterm, org\.example\.Editor\)/), app);
  }
  await assert.rejects(find('/usr/bin/xterm'), refusedWith(/a path/));
});

test('entries that run shells, interpreters, terminal programs, handlers or the desktop itself are refused', async () => {
  const root = mkdtempSync(join(tmpdir(), 'deskgate-entries-'));
  const write = (id: string, body: string) => writeFileSync(join(root, `${id}.desktop`), `[Desktop Entry]\nType=Application\n${body}\n`);
  write('shell', 'Exec=sh -c "yes > /dev/null"');
  write('py', 'Exec=/usr/bin/python3.11');
  write('envy', 'Exec=env FOO=1 xterm');
  write('vim', 'Exec=vim %F\nTerminal=true');
  write('handler', 'Exec=mousepad --preferences\nNoDisplay=true');
  write('wm', 'Exec=openbox');
  const find = (app: string) => findLauncher(app, { dirs: [root], extra: new Map() });
  await assert.rejects(find('shell'), refusedWith(/runs sh, a shell or interpreter.*DESKGATE_LAUNCH_EXTRA/));
  await assert.rejects(find('py'), refusedWith(/runs python3\.11/));
  await assert.rejects(find('python3.11'), refusedWith(/runs python3\.11/));
  await assert.rejects(find('envy'), refusedWith(/runs env/));
  await assert.rejects(find('vim'), refusedWith(/Terminal=true/));
  await assert.rejects(find('handler'), refusedWith(/NoDisplay=true/));
  await assert.rejects(find('openbox'), refusedWith(/part of the desktop/));
});

test("the operator's extra commands are found first, and may be anything", async () => {
  const extra = new Map([['probe', ['/usr/bin/python3', '/opt/probe.py']]]);
  assert.deepEqual(await findLauncher('Probe', { dirs: [], extra }), { command: ['/usr/bin/python3', '/opt/probe.py'], source: 'DESKGATE_LAUNCH_EXTRA' });
});

test("deskgate's desktop folder offers the browser, the editor, the file manager and the terminal", async () => {
  const dirs = applicationDirs(join(import.meta.dirname, '../../../../desktop')).slice(0, 1);
  for (const app of ['chromium', 'mousepad', 'pcmanfm', 'xterm']) {
    const spec = await findLauncher(app, { dirs, extra: new Map() });
    assert.equal(spec.source, `${app}.desktop`);
  }
});
