import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLOCKED_COMBOS, blockedCombo } from './blocklist.ts';
import { parseKeys } from './keysyms.ts';

const combo = (text: string, together = false) => blockedCombo(parseKeys(text), together)?.combo;

test('every listed combo is blocked as written, reporting its own platform or linux', () => {
  for (const entry of BLOCKED_COMBOS) {
    const found = blockedCombo(parseKeys(entry.combo));
    assert.equal(found?.combo, entry.combo, entry.combo);
    if (found !== entry) assert.equal(found?.platform, 'linux', `${entry.combo} is shadowed by a linux entry`);
  }
});

test('the lists of TOOLS.md, per platform', () => {
  const on = (platform: string) => BLOCKED_COMBOS.filter((entry) => entry.platform === platform).map((entry) => entry.combo);
  assert.deepEqual(on('macos'), ['meta+q', 'shift+meta+q', 'alt+meta+escape', 'meta+tab', 'meta+space', 'ctrl+meta+q']);
  assert.deepEqual(on('windows'), ['ctrl+alt+delete', 'alt+f4', 'alt+tab', 'meta+l', 'meta+d']);
  const linux = on('linux');
  for (const expected of ['ctrl+alt+backspace', 'ctrl+alt+f1', 'ctrl+alt+f12', 'alt+f2', 'ctrl+alt+t', 'meta+l', 'ctrl+alt+l', 'alt+tab', 'alt+f4']) {
    assert.ok(linux.includes(expected), expected);
  }
  assert.deepEqual(blockedCombo(parseKeys('alt+f4')), { combo: 'alt+f4', platform: 'linux', why: 'closes the focused window' });
});

test('modifier aliases fold: cmd/command/super/win/meta, control, option, in any order and case', () => {
  for (const text of ['cmd+q', 'Command+Q', 'super+q', 'win+q', 'META+q', 'q+cmd', 'Super_R+Q']) assert.equal(combo(text), 'meta+q', text);
  assert.equal(combo('control+option+Delete'), 'ctrl+alt+delete');
  assert.equal(combo('option+cmd+esc'), 'alt+meta+escape');
  assert.equal(combo('shift+cmd+q'), 'shift+meta+q');
  assert.equal(combo('ctrl+cmd+q'), 'ctrl+meta+q');
});

test('key names fold: esc, del, BackSpace, Tab, F4 and keysym spellings of the modifiers', () => {
  assert.equal(combo('ctrl+alt+del'), 'ctrl+alt+delete');
  assert.equal(combo('ctrl+alt+KP_Delete'), 'ctrl+alt+delete');
  assert.equal(combo('ctrl+alt+BackSpace'), 'ctrl+alt+backspace');
  assert.equal(combo('Control_L+Alt_R+BackSpace'), 'ctrl+alt+backspace');
  assert.equal(combo('alt+Tab'), 'alt+tab');
  assert.equal(combo('Alt_L+ISO_Left_Tab'), 'alt+tab');
  assert.equal(combo('ALT+F4'), 'alt+f4');
  assert.equal(combo('alt+KP_F4'), 'alt+f4');
  assert.equal(combo('Meta_L+F4'), 'alt+f4');
  assert.equal(combo('Super_L+l'), 'meta+l');
  assert.equal(combo('lctrl+ralt+t'), 'ctrl+alt+t');
  assert.equal(combo('cmd+spacebar'), 'meta+space');
});

test('keysym aliases resolve before the list: L1 is F11, vendor names and code points are caught', () => {
  assert.equal(combo('ctrl+alt+L1'), 'ctrl+alt+f11');
  assert.equal(combo('ctrl+alt+l2'), 'ctrl+alt+f12');
  assert.equal(combo('cmd+U+0071'), 'meta+q');
  assert.equal(combo('cmd+0x71'), 'meta+q');
  assert.equal(combo('cmd+0x51'), 'meta+q');
  assert.equal(combo('Terminate_Server'), 'terminate_server');
  assert.equal(combo('XF86Switch_VT_2'), 'xf86switch_vt_2');
  assert.equal(combo('XF86_Switch_VT_7'), 'xf86switch_vt_7');
  assert.equal(combo('xf86logoff'), 'xf86logoff');
  assert.equal(combo('ctrl+U+0041'), undefined);
});

test('every non-modifier key is checked with the modifiers: "cmd+q+a" is meta+q', () => {
  assert.equal(combo('cmd+q+a'), 'meta+q');
  assert.equal(combo('cmd+a+q'), 'meta+q');
});

test('several chords: any one blocked blocks the call; held together they count as one', () => {
  assert.equal(combo('ctrl+c alt+f4'), 'alt+f4');
  assert.equal(combo('ctrl+a  ctrl+c super+l'), 'meta+l');
  assert.equal(combo('ctrl+c ctrl+v'), undefined);
  assert.equal(combo('alt f4'), undefined);
  assert.equal(combo('alt f4', true), 'alt+f4');
  assert.equal(combo('shift alt+f4', true), 'alt+f4');
});

test('extra modifiers still block (superset rule); missing ones do not', () => {
  assert.equal(combo('ctrl+alt+shift+backspace'), 'ctrl+alt+backspace');
  assert.equal(combo('alt+shift+tab'), 'alt+tab');
  assert.equal(combo('ctrl+alt+shift+f3'), 'ctrl+alt+f3');
  assert.equal(combo('ctrl+alt+f2'), 'ctrl+alt+f2');
  assert.equal(combo('alt+backspace'), undefined);
  assert.equal(combo('ctrl+f1'), undefined);
});

test('harmless chords pass', () => {
  for (const text of ['ctrl+a', 'ctrl+c', 'ctrl+v', 'alt+f', 'shift+tab', 'ctrl+tab', 'ctrl+shift+tab', 'tab', 'Return',
    'escape', 'ctrl+l', 'ctrl+t', 'ctrl+w', 'ctrl+q', 'alt+q', 'meta', 'f4', 'f2', 'ctrl+alt', 'ctrl++', 'space', 'q']) {
    assert.equal(combo(text), undefined, text);
  }
});
