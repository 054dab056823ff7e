/**
 * The README's start command as a user runs it: the sandbox prints an MCP endpoint and an API
 * key that work, and Ctrl-C (SIGINT) stops every process it started.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { repoRoot } from '../../scripts/lib/stack.ts';
import { connect, imageOf } from '../support/mcp-clients.ts';

function descendants(pid: number): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,pgid=,ppid=']).toString();
  const rows = out.trim().split('\n').map((line) => line.trim().split(/\s+/).map(Number) as [number, number, number]);
  const found = new Set<number>([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, , parent] of rows) {
      if (found.has(parent) && !found.has(child)) {
        found.add(child);
        grew = true;
      }
    }
  }
  found.delete(pid);
  return [...found];
}

/** Running, and not a zombie (in a container whose PID 1 never reaps, orphans stay zombies). */
const alive = (pid: number) => {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)]).toString().startsWith('Z');
  } catch {
    return false;
  }
};

test('npm start prints a working endpoint and key, and Ctrl-C leaves no process behind', async () => {
  const sandbox = spawn(process.execPath, ['--import', 'tsx', 'scripts/sandbox.ts'], {
    cwd: repoRoot,
    env: { ...process.env, REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const printed: Record<string, string> = {};
  const lines = createInterface({ input: sandbox.stdout! });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox printed no endpoint within 60 s: ${JSON.stringify(printed)}`)), 60_000);
    lines.on('line', (line) => {
      const match = /^(MCP endpoint|API key): (\S+)$/.exec(line);
      if (match) printed[match[1]!] = match[2]!;
      if (printed['MCP endpoint'] && printed['API key']) {
        clearTimeout(timer);
        resolve();
      }
    });
    sandbox.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  assert.match(printed['API key']!, /^dg_/);

  const client = await connect('2026-07-28', printed['MCP endpoint']!, printed['API key']!);
  await client.call('request_access', { apps: ['xterm'], reason: 'sandbox check' });
  assert.equal(imageOf(await client.call('screenshot')).mimeType, 'image/jpeg');
  await client.close();

  const started = descendants(sandbox.pid!);
  const names = execFileSync('ps', ['-o', 'comm=', '-p', started.join(',')]).toString();
  for (const name of ['redis-server', 'Xvfb', 'openbox', 'deskgate-captu', 'python3']) assert.ok(names.includes(name), `${name} runs under the sandbox: ${names}`);

  const exited = new Promise<number | null>((resolve) => sandbox.once('exit', resolve));
  sandbox.kill('SIGINT');
  assert.equal(await exited, 0);
  await sleep(300);
  const left = started.filter(alive);
  assert.deepEqual(left, [], `every process the sandbox started is gone: ${left.length ? execFileSync('ps', ['-o', 'pid=,stat=,args=', '-p', left.join(',')]).toString() : ''}`);
});
