import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupAlive, ProcessLauncher, resolveExecutable } from './launcher.ts';

const env = { PATH: '/usr/bin:/bin', HOME: '/tmp' };

test('stopAll ends every process group it started, children included', async () => {
  const launcher = new ProcessLauncher(env);
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
  await assert.rejects(new ProcessLauncher(env).launch(['/nonexistent/app']), /cannot start \/nonexistent\/app: no such executable/);
  await assert.rejects(new ProcessLauncher(env).launch(['no-such-program-here']), /cannot start no-such-program-here/);
});

test('executables resolve on the given PATH only', async () => {
  assert.equal(await resolveExecutable('sh', '/bin'), '/bin/sh');
  assert.equal(await resolveExecutable('sh', '/nonexistent'), null);
});

test('no launch beyond the process cap', async () => {
  let tasks = 10;
  const launcher = new ProcessLauncher(env, { runAs: (command) => command, tasks: () => tasks, maxTasks: 10 });
  await assert.rejects(launcher.launch(['/bin/true']), /already runs 10 processes and threads, its limit is 10/);
  tasks = 9;
  const wrapped: string[][] = [];
  const wrapping = new ProcessLauncher(env, { runAs: (command) => (wrapped.push(command), ['/usr/bin/env', ...command]), tasks: () => tasks, maxTasks: 10 });
  await wrapping.launch(['true']);
  assert.deepEqual(wrapped, [['/usr/bin/true']]);
  await wrapping.stopAll();
});
