import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appNameForms, isInterpreter, matchesAny, normalizeAppName } from './app-names.ts';

test('names normalise: case, .desktop, reverse-DNS ids', () => {
  assert.equal(normalizeAppName(' XTerm.desktop '), 'xterm');
  assert.deepEqual(appNameForms('org.xfce.Mousepad.desktop'), ['org.xfce.mousepad', 'mousepad']);
  assert.deepEqual(appNameForms('firefox-esr'), ['firefox-esr']);
  assert.deepEqual(appNameForms('python3.11'), ['python3.11']);
});

test('a deny pattern catches every spelling of the app', () => {
  for (const name of ['xterm', 'XTerm', 'xterm.desktop', 'XTERM.DESKTOP', 'org.example.xterm', 'org.example.XTerm.desktop']) {
    assert.ok(matchesAny(name, ['xterm']), name);
  }
  assert.ok(matchesAny('xterm.desktop', ['XTerm.desktop']));
  assert.ok(!matchesAny('uxterm', ['xterm']));
  assert.ok(matchesAny('uxterm', ['*xterm']));
});

test('interpreters and shells are recognised by name or path, with versions', () => {
  for (const name of ['python3', 'python3.11', 'Python', '/usr/bin/python3.11', 'node', 'java', 'perl', 'perl5.36', 'ruby', 'sh', 'bash', '/bin/dash', 'env', 'busybox', 'sudo', 'php8.2']) {
    assert.ok(isInterpreter(name), name);
  }
  for (const name of ['xterm', 'mousepad', 'chromium', 'firefox-esr', 'pythonista-viewer', 'bashful', 'shotwell', 'org.gnome.Terminal']) {
    assert.ok(!isInterpreter(name), name);
  }
});
