/**
 * Desktops as containers (DESKGATE_DESKTOP_PROVIDER=container), on the real stack and the real
 * Docker engine, tried the way an attacker with an agent key would: what the desktop container
 * is allowed (no capability, not root, a read-only root, no network); a fork bomb and a memory
 * hog typed into a session's terminal stay inside that session's container while another
 * session and the worker keep serving; egress only for a tenant whose policy allows it, and
 * even then never to this host; a worker killed with SIGKILL leaves containers that the next
 * worker with its id removes; an ended session's container is gone.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profilePolicy } from '@deskgate/computer-use';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { decodeImage } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection, type ToolResult } from '../support/mcp-clients.ts';
import { startWebPage, type WebPage } from '../support/web-page.ts';

const WORKER_ID = `e2e-containers-${process.pid}`;
const MEMORY_MB = 512;
const MAX_PROCESSES = 256;

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', timeout: 30_000 }).trim();
const dockerExec = (container: string, command: string) => docker('exec', container, 'sh', '-c', command);
const desktopContainers = () => docker('ps', '-aq', '--no-trunc', '--filter', `label=deskgate.worker=${WORKER_ID}`).split('\n').filter(Boolean).sort();
/** A container's memory cgroup file (cgroup v1, Docker's cgroupfs driver: this machine's). */
function memoryCgroup(container: string, file: 'max_usage_in_bytes' | 'oom_control'): string {
  const id = docker('inspect', '-f', '{{.Id}}', container);
  return readFileSync(`/sys/fs/cgroup/memory/docker/${id}/memory.${file}`, 'utf8');
}
const oomKills = (container: string) => Number(/^oom_kill (\d+)$/m.exec(memoryCgroup(container, 'oom_control'))?.[1] ?? 0);
const ok = (result: ToolResult) => (assert.ok(!result.isError, textOf(result)), result);

let stack: Stack;
let redis: Redis;
/** An agent key of the `online` tenant, whose policy allows egress. */
let onlineKey: string;
const sessions = new Map<string, McpConnection>();

async function session(name: string, key = stack.apiKey): Promise<McpConnection> {
  let connection = sessions.get(name);
  if (!connection) {
    connection = await connect('2026-07-28', `${stack.mcpUrl}/${name}`, key);
    sessions.set(name, connection);
  }
  return connection;
}

/** Types a command line into the session's xterm, opened for it, and presses Return. */
async function runInTerminal(mcp: McpConnection, line: string): Promise<void> {
  ok(await mcp.call('open_application', { app: 'xterm' }));
  // The terminal maps and takes the focus; the gates need a screenshot of it first.
  for (let attempt = 0; ; attempt++) {
    await sleep(500);
    ok(await mcp.call('screenshot'));
    const typed = await mcp.call('type', { text: line });
    if (!typed.isError) break;
    if (attempt > 10) assert.fail(`could not type into the terminal: ${textOf(typed)}`);
  }
  ok(await mcp.call('key', { text: 'Return' }));
}

before(async () => {
  // The sandbox's grants (its terminal at the full tier) for both tenants; egress for `online` only.
  const sandbox = profilePolicy('sandbox');
  const policyFile = join(mkdtempSync(join(tmpdir(), 'deskgate-containers-')), 'policy.json');
  writeFileSync(policyFile, JSON.stringify({ tenants: { containers: { ...sandbox, network: { egress: false } }, online: sandbox } }));
  stack = await startStack({
    env: {
      REDIS_URL: '',
      DESKGATE_PORT: '0',
      DESKGATE_DESKTOP_PROVIDER: 'container',
      DESKGATE_WORKER_ID: WORKER_ID,
      DESKGATE_MAX_DESKTOPS: '4',
      DESKGATE_WARM_DESKTOPS: '1',
      DESKGATE_DESKTOP_MEMORY_MB: String(MEMORY_MB),
      DESKGATE_DESKTOP_MAX_PROCESSES: String(MAX_PROCESSES),
      DESKGATE_POLICY_FILE: policyFile,
    },
    tenant: 'containers',
  });
  redis = new Redis(stack.redisUrl);
  onlineKey = execFileSync('node', ['--import', 'tsx', 'services/gateway/src/cli/keys.ts', 'create', 'online', 'egress test'], {
    cwd: new URL('../../', import.meta.url).pathname,
    env: { ...process.env, REDIS_URL: stack.redisUrl },
    encoding: 'utf8',
  }).match(/dg_[A-Za-z0-9_-]+/)![0];
});

after(async () => {
  for (const connection of sessions.values()) await connection.close().catch(() => undefined);
  redis?.disconnect();
  await stack?.stop();
  // Nothing of this suite may be left in the engine.
  assert.deepEqual(desktopContainers(), [], 'no desktop container is left once the worker stopped');
});

describe('a container desktop', () => {
  test('serves a session: the screenshot is the desktop, the record names the container', async () => {
    const mcp = await session('plain');
    const image = imageOf(ok(await mcp.call('screenshot')));
    const { width, height } = decodeImage(image.data);
    assert.equal(width, 1280);
    assert.equal(height, 800);
    const desktop = await desktopOf(redis, 'containers', 'plain');
    assert.equal(desktop.provider, 'container');
    assert.ok(desktop.container && desktopContainers().length >= 1);
  });

  test('runs with no capability, as uid 1000, on a read-only root, without a network', async () => {
    const { container } = await desktopOf(redis, 'containers', 'plain');
    const host = JSON.parse(docker('inspect', container!))[0].HostConfig;
    assert.deepEqual(host.CapDrop, ['ALL']);
    assert.equal(host.ReadonlyRootfs, true);
    assert.equal(host.NetworkMode, 'none');
    assert.ok(host.SecurityOpt.includes('no-new-privileges'));
    assert.equal(host.Init, true);
    assert.equal(host.Memory, MEMORY_MB * 1024 * 1024);
    assert.equal(host.PidsLimit, MAX_PROCESSES);
    // From inside, as the desktop's processes see it.
    assert.equal(dockerExec(container!, 'id -u'), '1000');
    const status = dockerExec(container!, 'cat /proc/1/status');
    assert.match(status, /^CapEff:\s+0{16}$/m);
    assert.match(status, /^CapBnd:\s+0{16}$/m);
    assert.match(status, /^NoNewPrivs:\s+1$/m);
    assert.equal(dockerExec(container!, 'touch /usr/evil 2>/dev/null && echo wrote || echo refused'), 'refused');
    const interfaces = dockerExec(container!, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '").split('\n');
    assert.deepEqual(interfaces, ['lo'], 'a tenant without egress gets no network');
  });
});

describe('an attacker inside one desktop', () => {
  test('a fork bomb stays in its container: the other session and the worker keep serving', async () => {
    const bystander = await session('bystander');
    ok(await bystander.call('screenshot'));
    const attacker = await session('forkbomb');
    ok(await attacker.call('screenshot'));
    const { container } = await desktopOf(redis, 'containers', 'forkbomb');
    await runInTerminal(attacker, 'b(){ b|b& };b');
    // The bomb reaches the pids limit within a second or two.
    let pids = 0;
    for (let i = 0; i < 40 && pids < MAX_PROCESSES - 8; i++) {
      await sleep(250);
      pids = Number(JSON.parse(docker('stats', '--no-stream', '--format', '{{json .PIDs}}', container!)));
    }
    assert.ok(pids >= MAX_PROCESSES - 8, `the bomb filled the container's pids (${pids})`);
    assert.ok(pids <= MAX_PROCESSES, `never beyond its limit (${pids})`);
    // The bystander's desktop works as before, at its usual speed.
    const started = performance.now();
    const image = imageOf(ok(await bystander.call('screenshot')));
    assert.equal(decodeImage(image.data).width, 1280);
    assert.ok(performance.now() - started < 5000);
    // The attacker's own session answers: the screen still, and a launch refused by its limit.
    ok(await attacker.call('screenshot'));
    // A full pids cgroup refuses the fork (quota_exceeded), or — when a bomb process exited
    // just then and the launch got its slot — the app cannot start its threads and never maps
    // a window (timeout, saying so). Either way a clear answer, never a hang.
    const launchedAt = performance.now();
    const launch = await attacker.call('open_application', { app: 'mousepad' });
    assert.ok(launch.isError, 'no app can start in a full container');
    assert.ok(['quota_exceeded', 'timeout'].includes(errorKind(launch) ?? ''), textOf(launch));
    assert.ok(performance.now() - launchedAt < 15_000);
    // Ending the session removes the container, bomb and all.
    const ended = await fetch(`${stack.mcpUrl.replace(/\/mcp$/, '')}/v1/sessions/forkbomb`, { method: 'DELETE', headers: { Authorization: `Bearer ${stack.apiKey}` } });
    assert.equal(ended.status, 200);
    const gone = () => !docker('ps', '-a', '--format', '{{.Names}}').split('\n').includes(container!);
    for (let i = 0; i < 50 && !gone(); i++) await sleep(100);
    assert.ok(gone(), 'the ended session\'s container is removed');
  });

  test('a memory hog is stopped at the memory limit; the other session keeps serving', async () => {
    const bystander = await session('bystander');
    const attacker = await session('hog');
    ok(await attacker.call('screenshot'));
    const { container } = await desktopOf(redis, 'containers', 'hog');
    // 4 GiB, touched 64 MiB at a time, in a container of 512 MiB.
    await runInTerminal(attacker, `python3 -c "a=[b'x'*(64<<20) for _ in range(64)]"; echo hog-ended`);
    let kills = 0;
    for (let i = 0; i < 60 && kills === 0; i++) {
      await sleep(250);
      kills = oomKills(container!);
    }
    assert.ok(kills > 0, 'the kernel stopped the hog at the container memory limit');
    assert.ok(Number(memoryCgroup(container!, 'max_usage_in_bytes')) <= MEMORY_MB * 1024 * 1024, 'and it never went beyond it');
    // The bystander is untouched.
    ok(await bystander.call('screenshot'));
    // The hog's session gets an answer: its desktop still works, or a clear desktop_failed.
    const next = await attacker.call('screenshot');
    assert.ok(!next.isError || errorKind(next) === 'desktop_failed', textOf(next));
  });
});

describe('egress', () => {
  let web: WebPage | undefined;
  let hostService: Server | undefined;
  after(async () => {
    await web?.stop();
    hostService?.close();
  });

  test('a tenant whose policy allows it reaches beyond this host, never this host itself', async () => {
    web = await startWebPage();
    // A service on every address of this host: what a desktop must never reach.
    hostService = createServer((socket) => socket.end('host service\n'));
    await new Promise<void>((resolve) => hostService!.listen(0, '0.0.0.0', resolve));
    const hostPort = (hostService.address() as { port: number }).port;

    const online = await session('online', onlineKey);
    ok(await online.call('screenshot'));
    const { container } = await desktopOf(redis, 'online', 'online');
    const interfaces = dockerExec(container!, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '").split('\n').sort();
    assert.deepEqual(interfaces, ['eth0', 'lo']);
    const fetchFrom = (url: string) =>
      dockerExec(container!, `python3 -c "import urllib.request as u; print(u.urlopen('${url}', timeout=3).status)" 2>&1 | tail -1`);
    assert.equal(fetchFrom(web.url), '200', 'the web beyond the host answers');
    // The server reports each request on its own output, a moment later.
    for (let i = 0; i < 20 && web.requests().length === 0; i++) await sleep(100);
    assert.ok(web.requests().length > 0, 'the request arrived at the server');
    const gateway = JSON.parse(docker('network', 'inspect', 'deskgate-egress'))[0].IPAM.Config[0].Gateway as string;
    const probeHost = dockerExec(container!, `python3 -c "import socket; s=socket.socket(); s.settimeout(3); print(s.connect_ex(('${gateway}', ${hostPort})))"`);
    assert.notEqual(probeHost, '0', 'this host\'s own services are out of reach');
  });

  test('a tenant without it has no network at all', async () => {
    const { container } = await desktopOf(redis, 'containers', 'plain');
    const interfaces = dockerExec(container!, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '").split('\n');
    assert.deepEqual(interfaces, ['lo']);
  });
});

describe('a worker killed with SIGKILL', () => {
  test('leaves its containers, which the next worker with its id removes', async () => {
    ok(await (await session('bystander')).call('screenshot'));
    const before = desktopContainers();
    assert.ok(before.length >= 1);
    stack.worker.process.kill('SIGKILL');
    await sleep(500);
    assert.deepEqual(desktopContainers(), before, 'a dead worker removes nothing');
    await stack.startWorker();
    const now = desktopContainers();
    assert.equal(now.filter((id) => before.includes(id)).length, 0, 'every container of the dead worker is gone');
    // The new worker serves: the session starts over on a fresh desktop.
    const fresh = await connect('2026-07-28', `${stack.mcpUrl}/after-kill`, stack.apiKey);
    try {
      ok(await fresh.call('screenshot'));
    } finally {
      await fresh.close();
    }
  });
});
