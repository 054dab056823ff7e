import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyApp } from '../apps/classify.ts';
import { BLOCKED_COMBOS, COMBO_LISTS, blockedCombo, type DesktopPlatform } from './blocklist.ts';
import { parseKeys } from './keysyms.ts';

const combo = (text: string, platform: DesktopPlatform, together = false) => blockedCombo(parseKeys(text), together, platform)?.combo;

test('a macOS desktop is checked against the seed macOS list, exactly', () => {
  assert.deepEqual(COMBO_LISTS.macos, ['macos']);
  const seed = ['meta+q', 'shift+meta+q', 'alt+meta+escape', 'meta+tab', 'meta+space', 'ctrl+meta+q'];
  assert.deepEqual(BLOCKED_COMBOS.filter((entry) => entry.platform === 'macos').map((entry) => entry.combo), seed);
  for (const text of seed) assert.equal(combo(text, 'macos'), text, text);
  // The seed's spellings: Cmd, Command, Option; extra modifiers never make them safe.
  assert.equal(combo('cmd+q', 'macos'), 'meta+q');
  assert.equal(combo('Command+Shift+Q', 'macos'), 'shift+meta+q');
  assert.equal(combo('option+cmd+esc', 'macos'), 'alt+meta+escape');
  assert.equal(combo('cmd+space', 'macos'), 'meta+space');
  assert.equal(combo('ctrl+cmd+q', 'macos'), 'ctrl+meta+q');
  assert.equal(combo('cmd+shift+tab', 'macos'), 'meta+tab');
  assert.equal(combo('cmd+q+a', 'macos'), 'meta+q');
  assert.equal(combo('cmd q', 'macos', true), 'meta+q', 'held together (hold_key) counts as one chord');
});

test('on macOS the X session and Windows combos are app keys, not system shortcuts', () => {
  for (const text of ['meta+l', 'alt+tab', 'alt+f4', 'ctrl+alt+t', 'ctrl+alt+backspace', 'ctrl+alt+f1', 'alt+f2', 'meta+d', 'ctrl+alt+delete']) {
    assert.equal(combo(text, 'macos'), undefined, `${text} passes on macOS`);
    assert.ok(combo(text, 'linux'), `${text} is still blocked on linux`);
  }
  // cmd+c, cmd+v, cmd+w, cmd+l: everyday app keys on both.
  for (const text of ['cmd+c', 'cmd+v', 'cmd+w', 'cmd+a']) assert.equal(combo(text, 'macos'), undefined, text);
});

test('a linux desktop keeps every list (the default)', () => {
  assert.equal(blockedCombo(parseKeys('cmd+q'))?.combo, 'meta+q');
  assert.equal(combo('cmd+q', 'linux'), 'meta+q');
  assert.equal(combo('alt+f4', 'linux'), 'alt+f4');
});

test('apps as the macOS helper reports them (bundle id, name) classify by the seed bundle ids', () => {
  const cases: Array<[string, string, string, string | null]> = [
    ['com.apple.Safari', 'Safari', 'browser', 'read'],
    ['com.google.Chrome', 'Google Chrome', 'browser', 'read'],
    ['com.apple.Terminal', 'Terminal', 'terminal', 'click'],
    ['com.googlecode.iterm2', 'iTerm2', 'terminal', 'click'],
    ['com.apple.dt.Xcode', 'Xcode', 'terminal', 'click'],
    ['com.microsoft.VSCode', 'Code', 'terminal', 'click'],
    ['com.apple.ScriptEditor2', 'Script Editor', 'terminal', 'click'],
    ['com.ledger.live', 'Ledger Live', 'trading', 'read'],
    ['com.spotify.client', 'Spotify', 'denied', null],
    ['com.apple.Music', 'Music', 'denied', null],
    ['com.amazon.Kindle', 'Kindle', 'denied', null],
    ['com.apple.TextEdit', 'TextEdit', 'other', 'full'],
    ['com.apple.finder', 'Finder', 'browser', 'read'], // a file manager: a double-click runs a script
  ];
  for (const [bundleId, name, category, tier] of cases) {
    const found = classifyApp({ wmClass: [bundleId, name], exe: `/Applications/${name}.app/Contents/MacOS/${name}`, name });
    assert.equal(found.category, category, bundleId);
    assert.equal(found.tier, tier, bundleId);
  }
  assert.equal(classifyApp({ wmClass: ['com.apple.Terminal', 'Terminal'] }).matchedBy, 'wmClass "com.apple.Terminal"');
});
