import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bareMetalCapabilities, bareMetalSettings } from './bare-metal-provider.ts';
import { macEntries } from './bare-metal-apps.ts';

const sockets = { DESKGATE_BARE_METAL_CAPTURE_SOCKET: '/run/dg/capture.sock', DESKGATE_BARE_METAL_INPUT_SOCKET: '/run/dg/input.sock' };

test('bare-metal settings: sockets, or commands run as children with a plain environment', () => {
  const viaSockets = bareMetalSettings({ ...sockets, DESKGATE_PLATFORM: 'macos' });
  assert.equal(viaSockets.platform, 'macos');
  assert.deepEqual(viaSockets.helpers, { capture: { socket: '/run/dg/capture.sock' }, input: { socket: '/run/dg/input.sock' } });
  const viaCommands = bareMetalSettings({
    DESKGATE_BARE_METAL_DISPLAY: ':7',
    DESKGATE_BARE_METAL_CAPTURE_COMMAND: '["/opt/deskgate-capture","--display",":7"]',
    DESKGATE_BARE_METAL_INPUT_SOCKET: '/run/dg/input.sock',
    REDIS_URL: 'redis://secret@host:6379',
  });
  assert.equal(viaCommands.platform, 'linux', 'linux unless said');
  const capture = viaCommands.helpers.capture as { command: string; args: string[]; env: NodeJS.ProcessEnv };
  assert.equal(capture.command, '/opt/deskgate-capture');
  assert.deepEqual(capture.args, ['--display', ':7']);
  assert.equal(capture.env.DISPLAY, ':7');
  assert.equal(capture.env.REDIS_URL, undefined, 'the worker secrets never reach a helper');
});

test('bare-metal settings: every mistake is named, nothing is guessed', () => {
  assert.throws(() => bareMetalSettings({}), /DESKGATE_BARE_METAL_CAPTURE_SOCKET \(the socket the helper listens on\) or DESKGATE_BARE_METAL_CAPTURE_COMMAND is required/);
  assert.throws(() => bareMetalSettings({ ...sockets, DESKGATE_BARE_METAL_CAPTURE_COMMAND: '["x"]' }), /set DESKGATE_BARE_METAL_CAPTURE_SOCKET or DESKGATE_BARE_METAL_CAPTURE_COMMAND, not both/);
  assert.throws(() => bareMetalSettings({ ...sockets, DESKGATE_BARE_METAL_INPUT_SOCKET: 'input.sock' }), /DESKGATE_BARE_METAL_INPUT_SOCKET: an absolute path/);
  assert.throws(() => bareMetalSettings({ DESKGATE_BARE_METAL_CAPTURE_COMMAND: 'deskgate-capture --display :0', DESKGATE_BARE_METAL_INPUT_SOCKET: '/x' }), /a command is a JSON array of strings/);
  assert.throws(() => bareMetalSettings({ ...sockets, DESKGATE_PLATFORM: 'windows' }), /DESKGATE_PLATFORM/);
});

test('capabilities say bare metal and the platform own', () => {
  assert.ok(bareMetalCapabilities('macos').includes('screencapturekit'));
  assert.ok(bareMetalCapabilities('linux').includes('xtest'));
  for (const platform of ['linux', 'macos'] as const) assert.ok(bareMetalCapabilities(platform).includes('console_session'));
});

test('a Mac helper\'s app entries: only root-owned folders, bundle id as the file id', () => {
  const text = (name: string, id: string) => `[Desktop Entry]\nType=Application\nName=${name}\nExec=${id}\nStartupWMClass=${name}\n`;
  const entries = macEntries([
    { path: '/Applications/TextEdit.app/com.apple.TextEdit.desktop', text: text('TextEdit', 'com.apple.TextEdit') },
    { path: '/System/Applications/Calculator.app/com.apple.calculator.desktop', text: text('Calculator', 'com.apple.calculator') },
    { path: '/Users/me/Applications/Evil.app/com.evil.desktop', text: text('Evil', 'com.evil') },
    { path: '/Applications/../tmp/x.desktop', text: text('X', 'x') },
  ]);
  assert.deepEqual(entries.map((e) => [e.id, e.exec, e.wmClass]), [
    ['com.apple.TextEdit', ['com.apple.TextEdit'], 'TextEdit'],
    ['com.apple.calculator', ['com.apple.calculator'], 'Calculator'],
  ]);
});
