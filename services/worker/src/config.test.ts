import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capacityFor, hostResources, loadConfig } from './config.ts';

const GiB = 1024 ** 3;
/** A host of 8 GiB and 4 cores: 7 desktops by memory, 16 by cores. */
const HOST = { memoryBytes: 8 * GiB, cores: 4 };

test('defaults make a worker with nothing configured', () => {
  const config = loadConfig({}, HOST);
  assert.deepEqual(config.desktopSize, { width: 1280, height: 800 });
  assert.equal(config.maxDesktops, 7);
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

test('capacity from the host: 1 GiB per desktop after 1 GiB reserved, 4 per core, the lower of the two, 1 to 64', () => {
  assert.equal(capacityFor({ memoryBytes: 8 * GiB, cores: 4 }).maxDesktops, 7, 'memory bound');
  assert.equal(capacityFor({ memoryBytes: 64 * GiB, cores: 2 }).maxDesktops, 8, 'core bound');
  assert.equal(capacityFor({ memoryBytes: 2 * GiB, cores: 8 }).maxDesktops, 1);
  assert.equal(capacityFor({ memoryBytes: 1.5 * GiB, cores: 8 }).maxDesktops, 1, 'never 0, even on a tiny host');
  assert.equal(capacityFor({ memoryBytes: 0.5 * GiB, cores: 1 }).maxDesktops, 1);
  assert.equal(capacityFor({ memoryBytes: 1024 * GiB, cores: 128 }).maxDesktops, 64, 'never more than the desktop users install.sh creates');
  assert.equal(capacityFor({ memoryBytes: 16.9 * GiB, cores: 8 }).maxDesktops, 15, 'whole GiB only');
});

test('the capacity says why: the figures it came from and which one bound it', () => {
  const { reason } = capacityFor({ memoryBytes: 64 * GiB, cores: 2 });
  assert.match(reason, /64\.0 GiB of memory .* fits 63 at 1 GiB each/);
  assert.match(reason, /2 cores fit 8 at 4 per core; 8, set by cores/);
  assert.match(capacityFor({ memoryBytes: 8 * GiB, cores: 4 }).reason, /; 7, set by memory$/);
  assert.match(capacityFor({ memoryBytes: 1024 * GiB, cores: 128 }).reason, /; 64, set by the cap of 64$/);
  assert.match(capacityFor({ memoryBytes: GiB / 2, cores: 1 }).reason, /; 1, set by the floor of 1$/);
});

test('an explicit DESKGATE_MAX_DESKTOPS wins over the host; empty means unset', () => {
  const set = loadConfig({ DESKGATE_MAX_DESKTOPS: '2' }, HOST);
  assert.equal(set.maxDesktops, 2);
  assert.equal(set.maxDesktopsReason, 'DESKGATE_MAX_DESKTOPS');
  assert.equal(loadConfig({ DESKGATE_MAX_DESKTOPS: '100' }, HOST).maxDesktops, 100, 'beyond the formula when the operator says so');
  assert.equal(loadConfig({ DESKGATE_MAX_DESKTOPS: '' }, HOST).maxDesktops, 7);
  assert.match(loadConfig({}, HOST).maxDesktopsReason, /^DESKGATE_MAX_DESKTOPS unset: 8\.0 GiB/);
  assert.throws(() => loadConfig({ DESKGATE_MAX_DESKTOPS: '257' }, HOST), /DESKGATE_MAX_DESKTOPS/);
  assert.equal(loadConfig({ DESKGATE_WARM_DESKTOPS: '9' }, { memoryBytes: 3 * GiB, cores: 4 }).warmDesktops, 2, 'spares within the host’s capacity');
});

test('this host’s resources are read (memory within a container limit, cores the process may use)', () => {
  const host = hostResources();
  assert.ok(host.memoryBytes > 0 && host.cores >= 1);
  const config = loadConfig({});
  assert.ok(config.maxDesktops >= 1 && config.maxDesktops <= 64);
});

test('idle sessions: 10 s at the least, 30 minutes by default', () => {
  assert.equal(loadConfig({}, HOST).sessionIdleMs, 1_800_000);
  assert.equal(loadConfig({ DESKGATE_SESSION_IDLE_SECONDS: '10' }, HOST).sessionIdleMs, 10_000);
  assert.throws(() => loadConfig({ DESKGATE_SESSION_IDLE_SECONDS: '9' }, HOST), /DESKGATE_SESSION_IDLE_SECONDS/);
});

test('the health server: loopback by default, any IP address when set; a name or a bad port stops the worker', () => {
  assert.deepEqual(loadConfig({}, HOST).health, { host: '127.0.0.1', port: 0 });
  assert.deepEqual(loadConfig({ DESKGATE_WORKER_HOST: '0.0.0.0', DESKGATE_WORKER_PORT: '7421' }, HOST).health, { host: '0.0.0.0', port: 7421 });
  assert.equal(loadConfig({ DESKGATE_WORKER_HOST: '::' }, HOST).health.host, '::');
  for (const host of ['localhost', 'worker.example', '', '0.0.0.0:7421', '256.1.1.1']) {
    assert.throws(() => loadConfig({ DESKGATE_WORKER_HOST: host }, HOST), /DESKGATE_WORKER_HOST: an IP address to listen on, e\.g\. 127\.0\.0\.1 or 0\.0\.0\.0/, host);
  }
  assert.throws(() => loadConfig({ DESKGATE_WORKER_PORT: '65536' }, HOST), /DESKGATE_WORKER_PORT/);
  assert.throws(() => loadConfig({ DESKGATE_WORKER_PORT: 'http' }, HOST), /DESKGATE_WORKER_PORT/);
});

test('its pod (Kubernetes downward API): off unless name and namespace are both set, both checked', () => {
  assert.equal(loadConfig({}, HOST).pod, null);
  assert.deepEqual(loadConfig({ DESKGATE_POD_NAME: 'deskgate-worker-6d9f-x2k4', DESKGATE_POD_NAMESPACE: 'deskgate-workers' }, HOST).pod, { name: 'deskgate-worker-6d9f-x2k4', namespace: 'deskgate-workers' });
  assert.throws(() => loadConfig({ DESKGATE_POD_NAME: 'deskgate-worker-1' }, HOST), /DESKGATE_POD_NAME: DESKGATE_POD_NAME and DESKGATE_POD_NAMESPACE are set together/);
  assert.throws(() => loadConfig({ DESKGATE_POD_NAMESPACE: 'deskgate-workers' }, HOST), /set together/);
  assert.throws(() => loadConfig({ DESKGATE_POD_NAME: '../etc', DESKGATE_POD_NAMESPACE: 'deskgate-workers' }, HOST), /DESKGATE_POD_NAME: a pod name/);
  assert.throws(() => loadConfig({ DESKGATE_POD_NAME: 'w', DESKGATE_POD_NAMESPACE: 'Bad_NS' }, HOST), /DESKGATE_POD_NAMESPACE: a namespace/);
});
