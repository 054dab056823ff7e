import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupAlive, launchEnv, ProcessLauncher } from './launcher.ts';

test('started apps see the display and the basics, never the worker secrets', () => {
  const env = launchEnv({ PATH: '/usr/bin', HOME: '/root', LANG: 'C.UTF-8', LC_ALL: 'C', REDIS_URL: 'redis://:secret@host', DESKGATE_API_KEY: 'dg_x' }, { DISPLAY: ':5' });
  assert.deepEqual(env, { PATH: '/usr/bin', HOME: '/root', LANG: 'C.UTF-8', LC_ALL: 'C', DISPLAY: ':5' });
});

test('stopAll ends every process group it started, children included', async () => {
  const launcher = new ProcessLauncher(launchEnv(process.env, {}));
  // A shell whose child ignores nothing: both are in the launched group.
  const { pid } = await launcher.launch(['/bin/sh', '-c', 'sleep 60 & sleep 60']);
  assert.ok(pid > 0);
  assert.deepEqual(launcher.running, [pid]);
  const started = Date.now();
  await launcher.stopAll(1000);
  assert.ok(Date.now() - started < 900, 'SIGTERM was enough');
  assert.equal(groupAlive(pid), false);
  assert.deepEqual(launcher.running, []);
});

test('a missing executable is a clear error', async () => {
  await assert.rejects(new ProcessLauncher({}).launch(['/nonexistent/app']), /cannot start \/nonexistent\/app/);
});
