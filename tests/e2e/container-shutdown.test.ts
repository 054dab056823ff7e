/**
 * A container worker that stops while a desktop is still starting leaves no container, on the
 * real stack and the real Docker engine. Desktops here come from a gated image: the desktop
 * image whose entry point waits for a `go` file in its run folder before it starts the desktop,
 * so the test decides which start finishes and which is still under way when the worker stops
 * (on a loaded machine a real start takes seconds; here it takes as long as the test wants).
 *  - SIGINT while a warm spare is starting: the worker gives the start up, removes the
 *    container and its run folder, and exits 0 by itself, within the stack's stop grace.
 *  - SIGKILL while a desktop is starting (nothing can be cleaned up then): the next worker with
 *    its id removes that container, and one created but never started, at start-up.
 *  - SIGTERM (drain) while a warm spare is starting: given up at once, the same way.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { profilePolicy } from '@deskgate/computer-use';
import { startStack, repoRoot, type Stack } from '../../scripts/lib/stack.ts';
import { startService, type ServiceProcess } from '../../scripts/lib/service-process.ts';
import { connect, textOf, type McpConnection } from '../support/mcp-clients.ts';

const WORKER_ID = `e2e-shutdown-${process.pid}`;
const BASE_IMAGE = process.env.DESKGATE_DESKTOP_IMAGE || 'deskgate/linux-desktop:dev';
const GATED_IMAGE = `deskgate/linux-desktop:gated-${process.pid}`;
/** The gated entry point: the image's own, once the test has put `go` in the run folder. */
const GATED_ENTRY = 'while [ ! -e /run/deskgate/go ]; do sleep 0.1; done; exec /opt/deskgate/bin/desktop-session';

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', timeout: 30_000 }).trim();
const desktopContainers = () => docker('ps', '-aq', '--no-trunc', '--filter', `label=deskgate.worker=${WORKER_ID}`).split('\n').filter(Boolean).sort();
/** The host folder mounted as the container's /run/deskgate. */
const runDirOf = (container: string) => docker('inspect', '-f', '{{range .Mounts}}{{if eq .Destination "/run/deskgate"}}{{.Source}}{{end}}{{end}}', container);
/** Lets a gated desktop start. */
const letStart = (container: string) => writeFileSync(join(runDirOf(container), 'go'), '');

/**
 * Whether the engine answers `docker inspect` for a container. One that `docker ps -a` lists
 * may not be inspectable yet: the engine lists a container while it is still being created
 * (seen on a fresh machine: listed, then "No such object", then there 30 ms later).
 */
function inspectable(container: string): boolean {
  try {
    execFileSync('docker', ['inspect', '-f', '{{.Id}}', container], { stdio: 'pipe', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** Polls until a container of this suite's worker that is not in `known` exists (and can be inspected); returns it. */
async function newContainer(known: string[], withinMs = 30_000): Promise<string> {
  const until = Date.now() + withinMs;
  for (;;) {
    const fresh = desktopContainers().find((id) => !known.includes(id) && inspectable(id));
    if (fresh) return fresh;
    if (Date.now() > until) assert.fail(`no new desktop container of ${WORKER_ID} within ${withinMs / 1000} s`);
    await sleep(100);
  }
}

/** Lets the next desktop that appears start (the worker's first warm spare, as it starts up). */
async function letNextStart(known: string[]): Promise<string> {
  const container = await newContainer(known);
  letStart(container);
  return container;
}

let stack: Stack;
let logDir: string;
/** A worker on the suite's Redis with the gated image, up to its health endpoint: its first spare is being started. */
async function startGatedWorker(name: string, workerId: string): Promise<ServiceProcess> {
  const { service } = await startService<true>({
    name,
    entry: `${repoRoot}services/worker/src/main.ts`,
    env: { ...process.env, REDIS_URL: stack.redisUrl, DESKGATE_DESKTOP_PROVIDER: 'container', DESKGATE_DESKTOP_IMAGE: GATED_IMAGE, DESKGATE_WORKER_ID: workerId, DESKGATE_MAX_DESKTOPS: '2', DESKGATE_WARM_DESKTOPS: '1', DESKGATE_WORKER_PORT: '0' },
    logFile: join(logDir, `${name}.log`),
    readyWhen: (record) => record.msg === 'worker health endpoint listening' || undefined,
  });
  extraWorkers.push(service);
  return service;
}

const connections: McpConnection[] = [];
const extraWorkers: ServiceProcess[] = [];

before(async () => {
  docker('image', 'inspect', BASE_IMAGE);
  execFileSync('docker', ['build', '-q', '-t', GATED_IMAGE, '-'], {
    input: `FROM ${BASE_IMAGE}\nENTRYPOINT ["/bin/sh", "-c", ${JSON.stringify(GATED_ENTRY)}]\n`,
    env: { ...process.env, DOCKER_BUILDKIT: '0' },
    // The legacy builder's deprecation notice stays out of the test output (a failure still carries it).
    stdio: ['pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 120_000,
  });
  logDir = mkdtempSync(join(tmpdir(), 'deskgate-shutdown-'));
  // The sandbox's grants: a session's screenshot is answered.
  const policyFile = join(logDir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify({ tenants: { shutdown: profilePolicy('sandbox') } }));
  const started = startStack({
    logDir,
    env: {
      REDIS_URL: '',
      DESKGATE_PORT: '0',
      DESKGATE_DESKTOP_PROVIDER: 'container',
      DESKGATE_DESKTOP_IMAGE: GATED_IMAGE,
      DESKGATE_WORKER_ID: WORKER_ID,
      DESKGATE_MAX_DESKTOPS: '2',
      DESKGATE_WARM_DESKTOPS: '1',
      DESKGATE_POLICY_FILE: policyFile,
    },
    tenant: 'shutdown',
  });
  // The worker is ready once its first spare is: that one may start.
  const [ready] = await Promise.all([started, letNextStart([])]);
  stack = ready;
});

after(async () => {
  for (const connection of connections) await connection.close().catch(() => undefined);
  for (const worker of extraWorkers) await worker.stop().catch(() => undefined);
  await stack?.stop();
  const left = desktopContainers();
  if (left.length > 0) docker('rm', '-f', ...left);
  docker('image', 'rm', '-f', GATED_IMAGE);
  assert.deepEqual(left, [], 'no desktop container is left once the workers stopped');
});

describe('a worker stopped (SIGINT) while a warm spare is starting', () => {
  test('gives the start up, removes its container and run folder, and exits 0 by itself', async () => {
    const spare = desktopContainers();
    assert.equal(spare.length, 1, 'the worker runs its one warm spare');
    // The session takes the spare; the worker starts the next spare at once, which stays gated.
    const mcp = await connect('2026-07-28', `${stack.mcpUrl}/first`, stack.apiKey);
    connections.push(mcp);
    const shot = await mcp.call('screenshot');
    assert.ok(!shot.isError, textOf(shot));
    const starting = await newContainer(spare);
    const startingRunDir = runDirOf(starting);
    assert.ok(existsSync(startingRunDir));

    await stack.worker.stop();
    assert.equal(await stack.worker.exited, 0, 'the worker exited by itself (not killed after the stop grace)');
    assert.deepEqual(desktopContainers(), [], 'neither the held desktop nor the spare being started is left');
    assert.equal(existsSync(startingRunDir), false, "the starting spare's run folder is removed");
    const log = readFileSync(join(logDir, 'worker.log'), 'utf8');
    assert.match(log, /"msg":"worker stopped"/);
    assert.doesNotMatch(log, /did not stop within its bound/);
  });
});

describe('a worker killed (SIGKILL) while a desktop is starting', () => {
  test('leaves it, and the next worker with its id removes it and one created but never started', async () => {
    assert.deepEqual(desktopContainers(), []);
    // A worker of the same id, up to its health endpoint: its first spare is being started.
    const killed = await startGatedWorker('worker-killed', WORKER_ID);
    const starting = await newContainer([]);
    killed.process.kill('SIGKILL');
    assert.equal(await killed.exited, null);
    // What a kill between `docker create` and its start leaves: a created container with the worker's labels.
    const created = docker('create', '--label', 'deskgate.role=desktop', '--label', `deskgate.worker=${WORKER_ID}`, GATED_IMAGE);
    await sleep(300);
    assert.deepEqual(desktopContainers(), [starting, created].sort(), 'a killed worker removes nothing');

    const next = stack.startWorker();
    await letNextStart([starting, created]);
    const worker = await next;
    const now = desktopContainers();
    assert.equal(now.length, 1, 'only the new worker\'s spare');
    assert.ok(!now.includes(starting) && !now.includes(created), 'the killed worker\'s containers are gone');
    assert.match(readFileSync(worker.logFile, 'utf8'), /"removed":2,.*"msg":"removed desktop containers a previous worker with this id left"/);
  });
});

describe('a worker drained (SIGTERM) while a warm spare is starting', () => {
  test('gives the start up at once, removes its container, and exits 0 by itself', async () => {
    // The worker that replaced the killed one: its spare is up; a session takes it.
    const worker = stack.workers[1]!;
    const spare = desktopContainers();
    assert.equal(spare.length, 1);
    const mcp = await connect('2026-07-28', `${stack.mcpUrl}/second`, stack.apiKey);
    connections.push(mcp);
    const shot = await mcp.call('screenshot');
    assert.ok(!shot.isError, textOf(shot));
    // The next spare is being started (gated).
    await newContainer(spare);

    worker.process.kill('SIGTERM');
    assert.equal(await worker.exited, 0, 'the worker exited by itself');
    assert.deepEqual(desktopContainers(), [], 'neither the held desktop nor the spare being started is left');
    assert.match(readFileSync(worker.logFile, 'utf8'), /"msg":"desktop container being started removed: the worker is stopping"/);
  });
});

describe('a worker stopped (SIGINT) before it is ready, while its first spare is starting', () => {
  test('gives the start up, leaves no container, never takes work, and exits 0 by itself', async () => {
    assert.deepEqual(desktopContainers(), []);
    const early = await startGatedWorker('worker-early', `${WORKER_ID}-early`);
    const earlyContainers = () => docker('ps', '-aq', '--no-trunc', '--filter', `label=deskgate.worker=${WORKER_ID}-early`).split('\n').filter(Boolean);
    for (const end = Date.now() + 30_000; earlyContainers().length === 0; await sleep(100)) {
      if (Date.now() > end) assert.fail('no spare of the early worker was being started within 30 s');
    }
    early.process.kill('SIGINT');
    assert.equal(await early.exited, 0, 'the worker exited by itself');
    assert.deepEqual(earlyContainers(), [], 'the spare being started is removed');
    const log = readFileSync(join(logDir, 'worker-early.log'), 'utf8');
    assert.match(log, /"msg":"worker stopped"/);
    assert.doesNotMatch(log, /"msg":"worker ready"/, 'it never announced itself ready');
  });
});
