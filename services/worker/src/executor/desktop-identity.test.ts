import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DesktopEntry } from '../launch/desktop-entries.ts';
import { DesktopIndex, desktopIdFor, indexDesktopEntries, loadDesktopEntries } from './desktop-identity.ts';

const entry = (id: string, wmClass: string | null = null): DesktopEntry => ({ id, path: `/apps/${id}.desktop`, exec: [id], wmClass });

test('StartupWMClass matches the WM_CLASS class first, case-insensitively', () => {
  const ids = indexDesktopEntries([entry('xterm'), entry('debian-xterm', 'XTerm'), entry('uxterm', 'UXTerm')]);
  assert.equal(desktopIdFor(ids, ['xterm', 'XTerm']), 'debian-xterm');
  assert.equal(desktopIdFor(ids, ['uxterm', 'uxterm']), 'uxterm');
});

test('else the desktop id equal to the instance, then the class, lowercased', () => {
  const ids = indexDesktopEntries([entry('mousepad'), entry('org.gnome.Terminal'), entry('thunar')]);
  assert.equal(desktopIdFor(ids, ['mousepad', 'Mousepad']), 'mousepad');
  assert.equal(desktopIdFor(ids, ['org.gnome.terminal', 'Gnome-terminal']), 'org.gnome.Terminal');
  assert.equal(desktopIdFor(ids, ['file_manager', 'Thunar']), 'thunar');
});

test('no WM_CLASS, or nothing installed by that name: no id', () => {
  const ids = indexDesktopEntries([entry('mousepad'), entry('firefox-esr', 'firefox-esr')]);
  assert.equal(desktopIdFor(ids, null), null);
  assert.equal(desktopIdFor(ids, ['deskgateProbe', 'DeskgateProbe']), null);
  assert.equal(desktopIdFor(ids, ['Navigator', 'firefox']), null);
});

test('the first entry in XDG order wins', () => {
  const ids = indexDesktopEntries([entry('my-editor', 'Editor'), entry('editor'), entry('system-editor', 'Editor'), entry('Editor')]);
  assert.equal(desktopIdFor(ids, ['editor', 'Editor']), 'my-editor');
  assert.equal(desktopIdFor(indexDesktopEntries([entry('editor'), entry('Editor')]), ['x', 'EDITOR']), 'editor');
});

test('entries are read from the application directories, user first', async () => {
  const base = mkdtempSync(join(tmpdir(), 'deskgate-identity-'));
  const [user, system] = [join(base, 'user'), join(base, 'system')];
  for (const dir of [user, system]) mkdirSync(dir);
  writeFileSync(join(user, 'mine.desktop'), '[Desktop Entry]\nType=Application\nExec=mine\nStartupWMClass=Shared\n');
  writeFileSync(join(system, 'theirs.desktop'), '[Desktop Entry]\nType=Application\nExec=theirs\nStartupWMClass=Shared\n');
  writeFileSync(join(system, 'link.desktop'), '[Desktop Entry]\nType=Link\nURL=x\n');
  const entries = await loadDesktopEntries([user, system, join(base, 'missing')]);
  assert.deepEqual(entries.map((e) => e.id), ['mine', 'theirs']);
  assert.equal(desktopIdFor(indexDesktopEntries(entries), ['x', 'shared']), 'mine');
});

test('the index reads once, answers from memory, and re-reads in the background when old', async () => {
  let loads = 0;
  let installed = [entry('mousepad')];
  const index = new DesktopIndex(async () => {
    loads++;
    return installed;
  }, 0);
  assert.equal(index.idFor(['mousepad', 'Mousepad']), null); // nothing read yet
  await index.ready();
  assert.equal(index.idFor(['mousepad', 'Mousepad']), 'mousepad');
  installed = [entry('mousepad'), entry('gedit')];
  await new Promise((resolve) => setTimeout(resolve, 1));
  await index.ready(); // old: answers at once, re-reads behind
  await new Promise((resolve) => setTimeout(resolve, 1));
  assert.equal(index.idFor(['gedit', 'Gedit']), 'gedit');
  assert.ok(loads >= 2);
  const failing = new DesktopIndex(async () => {
    throw new Error('unreadable');
  });
  await failing.ready();
  assert.equal(failing.idFor(['mousepad', 'Mousepad']), null);
});
