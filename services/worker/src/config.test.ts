import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from './config.ts';

test('defaults make a worker with nothing configured', () => {
  const config = loadConfig({});
  assert.deepEqual(config.desktopSize, { width: 1280, height: 800 });
  assert.equal(config.maxDesktops, 4);
  assert.equal(config.warmDesktops, 1);
  assert.equal(config.python, '/usr/bin/python3');
  assert.equal(config.desktopMonitors, 1);
});

test('monitors per desktop: 1 to 4', () => {
  assert.equal(loadConfig({ DESKGATE_DESKTOP_MONITORS: '2' }).desktopMonitors, 2);
  assert.throws(() => loadConfig({ DESKGATE_DESKTOP_MONITORS: '5' }), /DESKGATE_DESKTOP_MONITORS/);
  assert.throws(() => loadConfig({ DESKGATE_DESKTOP_MONITORS: '0' }), /DESKGATE_DESKTOP_MONITORS/);
});

test('a bad setting stops the worker with the setting named', () => {
  assert.throws(() => loadConfig({ DESKGATE_DESKTOP_SIZE: 'big' }), /DESKGATE_DESKTOP_SIZE: a size is WIDTHxHEIGHT/);
  assert.throws(() => loadConfig({ DESKGATE_MAX_DESKTOPS: '0' }), /DESKGATE_MAX_DESKTOPS/);
  assert.throws(() => loadConfig({ REDIS_URL: 'not a url' }), /REDIS_URL/);
});

test('warm spares never exceed capacity', () => {
  assert.equal(loadConfig({ DESKGATE_MAX_DESKTOPS: '2', DESKGATE_WARM_DESKTOPS: '5' }).warmDesktops, 2);
});

test('desktops: their users, process cap, panel and the operator’s extra commands', () => {
  const config = loadConfig({});
  assert.equal(config.desktopUser, 'deskgate-desktop');
  assert.equal(config.desktopMaxProcesses, 512);
  assert.equal(config.desktopPanel, true);
  assert.match(config.desktopDir, /\/desktop$/);
  assert.deepEqual(config.launchExtra, new Map());
  const set = loadConfig({ DESKGATE_DESKTOP_PANEL: 'false', DESKGATE_DESKTOP_MAX_PROCESSES: '100', DESKGATE_LAUNCH_EXTRA: '{"Probe": "/usr/bin/python3 /opt/probe.py --x", "top": ["xterm", "-e", "top"]}' });
  assert.equal(set.desktopPanel, false);
  assert.equal(set.desktopMaxProcesses, 100);
  assert.deepEqual(set.launchExtra, new Map([['probe', ['/usr/bin/python3', '/opt/probe.py', '--x']], ['top', ['xterm', '-e', 'top']]]));
  assert.throws(() => loadConfig({ DESKGATE_LAUNCH_EXTRA: '{nope' }), /DESKGATE_LAUNCH_EXTRA: not JSON/);
  assert.throws(() => loadConfig({ DESKGATE_LAUNCH_EXTRA: '{"/bin/sh": "sh"}' }), /DESKGATE_LAUNCH_EXTRA/);
  assert.throws(() => loadConfig({ DESKGATE_DESKTOP_MAX_PROCESSES: '8' }), /DESKGATE_DESKTOP_MAX_PROCESSES/);
  assert.throws(() => loadConfig({ DESKGATE_DESKTOP_USER: 'Root;' }), /DESKGATE_DESKTOP_USER/);
});
