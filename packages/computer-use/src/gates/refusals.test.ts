import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultPolicy, tenantPolicySchema } from '../access/policy.ts';
import type { Grants } from '../access/grants.ts';
import type { AppInfo, WindowSurface } from '../executor.ts';
import { parseKeys } from '../keys/keysyms.ts';
import type { Facts } from './facts.ts';
import { judge } from './refusals.ts';

const app = (wmClass: [string, string], extra: Partial<AppInfo> = {}): AppInfo => ({ window: 10, title: wmClass[1], wmClass, pid: 100, exe: null, ...extra });
const XTERM = app(['xterm', 'XTerm'], { exe: '/usr/bin/xterm' });
const EDITOR = app(['mousepad', 'Mousepad'], { window: 20, exe: '/usr/bin/mousepad' });
const client = (a: AppInfo): WindowSurface => ({ kind: 'client', window: a.window, app: a });
const grants = (apps: Grants['apps'], systemKeyCombos = false): Grants => ({ apps, flags: { clipboardRead: false, clipboardWrite: false, systemKeyCombos } });
const G = grants([
  { app: 'xterm', tier: 'click', category: 'terminal' },
  { app: 'mousepad', tier: 'full', category: 'other' },
]);

function facts(over: Partial<Facts>): Facts {
  return {
    tool: 'left_click', kind: 'mouse', grants: G, policy: defaultPolicy(), targets: [], keyboard: false, focuses: false,
    focus: client(EDITOR), windows: [], cursor: { x: 0, y: 0 }, buttonsHeld: [], unchanged: true, chords: null, ...over,
  };
}
const click = (surface: WindowSurface, over: Partial<Facts> = {}) => facts({ targets: [{ point: { x: 5, y: 5 }, needs: 'mouse', surface }], ...over });
const keys = (text: string, over: Partial<Facts> = {}) => facts({ tool: 'key', kind: 'keyboard', keyboard: true, chords: { chords: parseKeys(text), together: false }, ...over });
const kindOf = (f: Facts) => judge(f)?.kind;

test('allowlist_empty: nothing granted yet', () => {
  assert.equal(kindOf(click(client(EDITOR), { grants: grants([]) })), 'allowlist_empty');
});

test('no_app_window: the background, a frame, an unknown window — never an input target', () => {
  for (const kind of ['root', 'decoration', 'unknown', 'none'] as const) {
    const refusal = judge(click({ kind, window: null, app: null }));
    assert.equal(refusal?.kind, 'no_app_window', kind);
    assert.match(refusal!.message, /Nothing was done/);
  }
  assert.match(judge(click({ kind: 'root', window: null, app: null }))!.message, /desktop background/);
});

test('app_not_granted: a window or popup of an app the session was not granted', () => {
  assert.equal(kindOf(click(client(app(['chromium', 'Chromium'])))), 'app_not_granted');
  assert.equal(kindOf(click({ kind: 'popup', window: 99, app: app(['openbox', 'Openbox']) })), 'app_not_granted');
  assert.equal(kindOf(click({ kind: 'popup', window: 99, app: null })), 'app_not_granted');
  assert.equal(kindOf(click({ kind: 'popup', window: 99, app: EDITOR })), undefined);
});

test('the window is judged by its identity: an interpreter executable never names it, the most restrictive grant wins', () => {
  const pythonXterm = app(['xterm', 'XTerm'], { exe: '/usr/bin/python3.11' });
  const withPython = grants([...G.apps, { app: 'python3.11', tier: 'full', category: 'other' }]);
  assert.equal(kindOf(keys('a', { focus: client(pythonXterm), grants: withPython })), 'tier_insufficient');
  const both = grants([{ app: 'XTerm', tier: 'click', category: 'terminal' }, { app: 'xterm', tier: 'full', category: 'terminal' }]);
  assert.equal(kindOf(keys('a', { focus: client(XTERM), grants: both })), 'tier_insufficient');
});

test('focus_not_granted: keys need a granted app holding the real focus', () => {
  for (const focus of [{ kind: 'none', window: null, app: null }, { kind: 'root', window: null, app: null }, { kind: 'decoration', window: 5, app: null }, client(app(['chromium', 'Chromium']))] as WindowSurface[]) {
    assert.equal(kindOf(keys('a', { focus })), 'focus_not_granted', focus.kind);
  }
  // A click into a granted popup leaves the focus where it is: it must be granted too.
  assert.equal(kindOf(click({ kind: 'popup', window: 99, app: EDITOR }, { focus: { kind: 'none', window: null, app: null } })), 'focus_not_granted');
  // A click on a granted client takes the focus itself.
  assert.equal(kindOf(click(client(EDITOR), { focus: { kind: 'none', window: null, app: null } })), undefined);
});

test('tier_insufficient: keys into a click-tier terminal, a drop on a click-tier app, with the anti-subversion hint', () => {
  const refusal = judge(keys('a', { focus: client(XTERM) }));
  assert.equal(refusal?.kind, 'tier_insufficient');
  assert.match(refusal!.message, /Do not try to work around/);
  assert.equal(kindOf(click(client(XTERM))), undefined);
  const drag = facts({ tool: 'left_click_drag', kind: 'mouse_full', targets: [
    { point: { x: 1, y: 1 }, needs: 'mouse', surface: client(EDITOR) },
    { point: { x: 9, y: 9 }, needs: 'mouse_full', surface: client(XTERM) },
  ] });
  assert.equal(kindOf(drag), 'tier_insufficient');
});

test('policy_denied: the deny list and denied categories judge the window at gate time, in every spelling', () => {
  const policy = tenantPolicySchema.parse({ apps: { deny: ['mousepad.desktop'] } });
  assert.equal(kindOf(click(client(EDITOR), { policy })), 'policy_denied');
  const spotify = app(['spotify', 'Spotify']);
  assert.equal(kindOf(click(client(spotify), { grants: grants([{ app: 'spotify', tier: 'full', category: 'other' }]) })), 'policy_denied');
});

test('stale_screenshot: the target changed since the last screenshot', () => {
  assert.equal(kindOf(click(client(EDITOR), { unchanged: false })), 'stale_screenshot');
});

test('blocked_key_combo: on keysyms, unless systemKeyCombos is granted', () => {
  assert.equal(kindOf(keys('ctrl+alt+L1')), 'blocked_key_combo');
  assert.equal(kindOf(keys('alt f4', { tool: 'hold_key', chords: { chords: parseKeys('alt f4'), together: true } })), 'blocked_key_combo');
  assert.equal(kindOf(keys('ctrl+alt+L1', { grants: grants(G.apps, true) })), undefined);
  assert.equal(kindOf(keys('ctrl+s')), undefined);
});
