import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyApp } from './classify.ts';
import type { AppCategory, AppIdentity } from './types.ts';

const category = (identity: AppIdentity) => classifyApp(identity).category;

test('macOS bundle ids match exactly, whatever the case', () => {
  const cases: Array<[string, AppCategory]> = [
    ['com.apple.Safari', 'browser'], ['com.google.Chrome', 'browser'], ['org.mozilla.firefox', 'browser'],
    ['company.thebrowser.Browser', 'browser'], ['com.apple.Terminal', 'terminal'], ['com.googlecode.iterm2', 'terminal'],
    ['com.microsoft.VSCode', 'terminal'], ['com.apple.dt.Xcode', 'terminal'], ['com.jetbrains.pycharm', 'terminal'],
    ['com.apple.ScriptEditor2', 'terminal'], ['com.tradingview.tradingviewapp.desktop', 'trading'],
    ['com.ledger.live', 'trading'], ['com.spotify.client', 'denied'], ['com.apple.Music', 'denied'],
    ['com.amazon.Kindle', 'denied'], ['COM.APPLE.SAFARI', 'browser'], ['com.apple.finder', 'browser'], ['com.apple.TextEdit', 'other'],
  ];
  for (const [id, expected] of cases) assert.equal(category({ id }), expected, id);
  assert.deepEqual(classifyApp({ id: 'com.apple.Safari', name: 'Safari' }), {
    category: 'browser', tier: 'read', matchedBy: 'id "com.apple.Safari"',
  });
});

test('Linux WM_CLASS instance or class matches exactly', () => {
  assert.deepEqual(classifyApp({ wmClass: ['Navigator', 'firefox-esr'] }), {
    category: 'browser', tier: 'read', matchedBy: 'wmClass "Navigator"',
  });
  const cases: Array<[[string, string], AppCategory]> = [
    [['chromium', 'Chromium'], 'browser'], [['google-chrome', 'Google-chrome'], 'browser'],
    [['xterm', 'XTerm'], 'terminal'], [['gnome-terminal-server', 'Gnome-terminal'], 'terminal'],
    [['konsole', 'konsole'], 'terminal'], [['Alacritty', 'Alacritty'], 'terminal'], [['kitty', 'kitty'], 'terminal'],
    [['org.wezfurlong.wezterm', 'org.wezfurlong.wezterm'], 'terminal'], [['code', 'Code'], 'terminal'],
    [['jetbrains-idea', 'jetbrains-idea'], 'terminal'], [['emacs', 'Emacs'], 'terminal'],
    [['electrum', 'Electrum'], 'trading'], [['spotify', 'Spotify'], 'denied'], [['calibre-gui', 'calibre-gui'], 'denied'],
    [['gedit', 'Gedit'], 'other'], [['mousepad', 'Mousepad'], 'other'],
    // File managers run what they are pointed at: read tier, as browsers.
    [['pcmanfm', 'Pcmanfm'], 'browser'], [['nautilus', 'Org.gnome.Nautilus'], 'browser'], [['Thunar', 'Thunar'], 'browser'],
    [['dolphin', 'dolphin'], 'browser'], [['nemo', 'Nemo'], 'browser'],
    [['rofi', 'Rofi'], 'terminal'], [['krunner', 'krunner'], 'terminal'],
  ];
  for (const [wmClass, expected] of cases) assert.equal(category({ wmClass }), expected, wmClass.join('/'));
});

test('Linux .desktop ids and executable paths match exactly', () => {
  const ids: Array<[string, AppCategory]> = [
    ['firefox-esr.desktop', 'browser'], ['chromium.desktop', 'browser'], ['org.gnome.Terminal.desktop', 'terminal'],
    ['org.gnome.Terminal', 'terminal'], ['code.desktop', 'terminal'], ['spotify.desktop', 'denied'],
    ['calibre-gui.desktop', 'denied'], ['xterm.desktop', 'terminal'] /* .desktop dropped: the exe name */,
    ['pcmanfm.desktop', 'browser'], ['org.gnome.Nautilus.desktop', 'browser'],
  ];
  for (const [id, expected] of ids) assert.equal(category({ id }), expected, id);
  const exes: Array<[string, AppCategory]> = [
    ['/usr/lib/firefox-esr/firefox-esr', 'browser'], ['chromium', 'browser'], ['/usr/bin/xterm', 'terminal'],
    ['gnome-terminal', 'terminal'], ['/usr/bin/konsole', 'terminal'], ['/usr/share/code/code', 'terminal'],
    ['/usr/bin/spotify', 'denied'], ['/usr/bin/calibre', 'denied'], ['C:\\Windows\\System32\\cmd.exe', 'terminal'],
    ['/usr/bin/gimp', 'other'],
  ];
  for (const [exe, expected] of exes) assert.equal(category({ exe }), expected, exe);
  assert.equal(classifyApp({ exe: '/usr/bin/xterm' }).matchedBy, 'exe "xterm"');
});

test('lowercase name substrings over name, title, id, WM_CLASS and exe', () => {
  assert.deepEqual(classifyApp({ name: 'Mozilla Firefox' }), {
    category: 'browser', tier: 'read', matchedBy: 'name contains "firefox"',
  });
  assert.equal(category({ name: 'Visual Studio Code' }), 'terminal');
  assert.equal(category({ name: 'PyCharm Professional Edition' }), 'terminal');
  assert.equal(category({ name: 'Coinbase Wallet' }), 'trading');
  assert.equal(category({ name: 'NETFLIX' }), 'denied');
  assert.equal(category({ id: 'com.google.Chrome.app.abcdef' }), 'browser'); // a Chrome web app
  assert.equal(category({ wmClass: ['jetbrains-fleet', 'jetbrains-fleet'] }), 'terminal');
  assert.equal(category({ exe: '/opt/xfce/bin/xfce4-terminal-next' }), 'terminal');
  assert.equal(classifyApp({ name: 'Text Editor' }).matchedBy, 'default');
});

test('trading names are tried first: "Bloomberg Terminal" is trading, not terminal', () => {
  assert.deepEqual(classifyApp({ name: 'Bloomberg Terminal' }), {
    category: 'trading', tier: 'read', matchedBy: 'name contains "bloomberg"',
  });
  assert.equal(category({ name: 'thinkorswim Desktop' }), 'trading');
  assert.equal(category({ name: 'Kraken Pro — Web Browser' }), 'trading');
  // An exact id keeps a git client out of trading although its name contains "kraken".
  assert.equal(category({ id: 'com.axosoft.gitkraken', name: 'GitKraken' }), 'terminal');
  assert.equal(category({ wmClass: ['gitkraken', 'GitKraken'] }), 'terminal');
});

test('denied names come before browser and terminal: a title naming both is denied', () => {
  assert.equal(category({ name: 'Spotify – Web Player — Mozilla Firefox' }), 'denied');
  // …but an exact id still decides first: this is the browser showing that page.
  assert.equal(category({ wmClass: ['Navigator', 'firefox-esr'], name: 'Spotify – Web Player — Mozilla Firefox' }), 'browser');
});

test('denied apps have no tier: they can never be granted', () => {
  for (const name of ['Netflix', 'Spotify', 'Apple Music', 'Kindle', 'calibre - E-book management', 'Audible', 'Disney+']) {
    assert.deepEqual(classifyApp({ name }).tier, null, name);
    assert.equal(category({ name }), 'denied', name);
  }
});

test('everything else is other, at the full tier', () => {
  assert.deepEqual(classifyApp({}), { category: 'other', tier: 'full', matchedBy: 'default' });
  assert.deepEqual(classifyApp({ id: 'org.gnome.gedit', wmClass: null, exe: null, name: null }).tier, 'full');
});

test('operator entries add apps to a category', () => {
  const extra = { trading: { ids: ['com.acme.desk'], names: ['acme trader'] }, denied: { names: ['StreamBox'] } };
  assert.deepEqual(classifyApp({ id: 'COM.ACME.DESK' }, extra), {
    category: 'trading', tier: 'read', matchedBy: 'operator id "COM.ACME.DESK"',
  });
  assert.equal(classifyApp({ name: 'ACME Trader 4' }, extra).category, 'trading');
  assert.equal(classifyApp({ name: 'streambox player' }, extra).tier, null);
  // The built-ins still apply.
  assert.equal(classifyApp({ id: 'com.apple.Safari' }, extra).category, 'browser');
});

test('operator entries win over the built-ins, and can move an app to another category', () => {
  const extra = { other: { ids: ['org.gnome.Terminal'] }, terminal: { names: ['firefox'] } };
  assert.deepEqual(classifyApp({ id: 'org.gnome.Terminal.desktop' }, extra), {
    category: 'other', tier: 'full', matchedBy: 'operator id "org.gnome.Terminal.desktop"',
  });
  // An operator name substring beats a built-in exact id.
  assert.equal(classifyApp({ wmClass: ['Navigator', 'firefox-esr'] }, extra).category, 'terminal');
  assert.equal(classifyApp({ id: 'org.gnome.Terminal' }).category, 'terminal'); // without the extension
});

test('an id an operator lists twice lands in the stricter-ordered category', () => {
  const extra = { other: { ids: ['acme'] }, trading: { ids: ['acme'] } };
  assert.equal(classifyApp({ exe: 'acme' }, extra).category, 'trading');
});
