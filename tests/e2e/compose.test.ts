/**
 * `docker compose up` on the real engine with the repository's docker-compose.yml, driven
 * from outside as a user would: the stack comes up healthy under its own project name and
 * port (never clashing with a running sandbox or a `deskgate` project), the bootstrap prints
 * an agent key, the official MCP client drives a session through the published port and its
 * desktop is a container of the worker (outside the compose project); `docker compose down`
 * leaves no container of the project and no desktop container behind, within its bound; a
 * second start finds the keys in the Redis volume; `down -v` removes the volume too.
 *
 * The service image is rebuilt from the working tree first (cached layers: seconds); the
 * desktop image is built by `up` only when the engine lacks it (scripts/images.sh keeps it
 * current), with the host's capture helper when there is one.
 */
import assert from 'node:assert/strict';
import { execFile as execFileCallback } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { freePort } from '../../scripts/lib/free-port.ts';
import { decodeImage } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { actionReplies } from '../support/metrics.ts';

const execFile = promisify(execFileCallback);
const repoRoot = new URL('../../', import.meta.url).pathname;
const PROJECT = 'deskgate-e2e';
const WORKER_ID = `compose-${PROJECT}`;
const SIZE = { width: 1024, height: 768 };
/** `down` stops the gateway, the worker (which removes its desktops first) and Redis. */
const DOWN_BOUND_MS = 15_000;
const CAPTURE_BIN = `${repoRoot}helpers/linux-capture/target/release/deskgate-capture`;

/**
 * The CA certificates this host added to its own trust store (a TLS-intercepting proxy's), for
 * npm in the service image's build stages (docker-compose.yml: DESKGATE_BUILD_CA_CERTS).
 */
function hostExtraCaCerts(): string {
  if (process.env.DESKGATE_BUILD_CA_CERTS !== undefined) return process.env.DESKGATE_BUILD_CA_CERTS;
  const dir = '/usr/local/share/ca-certificates';
  if (!existsSync(dir)) return '';
  return readdirSync(dir)
    .filter((name) => name.endsWith('.crt'))
    .map((name) => readFileSync(`${dir}/${name}`, 'utf8').trim())
    .join('\n');
}

let port = 0;
const env = () => ({
  ...process.env,
  COMPOSE_BAKE: 'false',
  DESKGATE_PORT: String(port),
  DESKGATE_DESKTOP_SIZE: `${SIZE.width}x${SIZE.height}`,
  DESKGATE_CAPTURE_HELPER: existsSync(CAPTURE_BIN) ? 'prebuilt' : 'source',
  DESKGATE_BUILD_CA_CERTS: hostExtraCaCerts(),
  // Not the caller's: the test's stack mints its own keys and runs the sandbox profile.
  DESKGATE_API_KEY: '',
  DESKGATE_OPERATOR_KEY: '',
  DESKGATE_POLICY_PROFILE: 'sandbox',
  DESKGATE_WORKER_ID: '',
});

async function compose(args: string[], timeoutMs: number): Promise<string> {
  try {
    const { stdout, stderr } = await execFile('docker', ['compose', '-p', PROJECT, ...args], {
      cwd: repoRoot,
      env: env(),
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`docker compose ${args.join(' ')} failed: ${failed.message}\n${(failed.stdout ?? '').slice(-3000)}\n${(failed.stderr ?? '').slice(-3000)}`);
  }
}

async function docker(args: string[]): Promise<string> {
  const { stdout } = await execFile('docker', args, { timeout: 30_000 });
  return stdout.trim();
}
const lines = (text: string) => text.split('\n').filter(Boolean);
const projectContainers = async () => lines(await docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${PROJECT}`]));
const desktopContainers = async () => lines(await docker(['ps', '-aq', '--filter', 'label=deskgate.role=desktop', '--filter', `label=deskgate.worker=${WORKER_ID}`]));

let mcp: McpConnection | undefined;
let upMs = 0;
/** The agent key the first start printed. */
let firstKey = '';

before(async () => {
  port = await freePort();
  // What a previous run may have left (a crash between up and down).
  await compose(['down', '-v', '--remove-orphans', '-t', '5'], 60_000);
  await compose(['build', 'worker'], 15 * 60_000);
  const started = performance.now();
  await compose(['up', '-d', '--wait', '--wait-timeout', '180'], 20 * 60_000);
  upMs = performance.now() - started;
});

after(async () => {
  await mcp?.close().catch(() => undefined);
  // Whatever a failed test left; a passing run has taken it down already.
  if ((await projectContainers()).length > 0) await compose(['down', '-v', '-t', '5'], 60_000).catch(() => undefined);
});

test('the stack is up: healthy services, the gateway on 127.0.0.1 only, the desktop image not run', async () => {
  const ps = JSON.parse(`[${lines(await compose(['ps', '-a', '--format', 'json'], 30_000)).join(',')}]`) as { Service: string; State: string; Health: string; ExitCode: number; Publishers: { URL: string; PublishedPort: number }[] }[];
  const by = new Map(ps.map((entry) => [entry.Service, entry]));
  for (const service of ['redis', 'worker', 'gateway']) {
    assert.equal(by.get(service)?.State, 'running', `${service}: ${JSON.stringify(by.get(service))}`);
    assert.equal(by.get(service)?.Health, 'healthy', service);
  }
  assert.equal(by.get('bootstrap')?.State, 'exited');
  assert.equal(by.get('bootstrap')?.ExitCode, 0);
  assert.ok(!by.has('desktop-image'), 'the desktop image service makes no container');
  const published = by.get('gateway')!.Publishers.filter((publisher) => publisher.PublishedPort > 0);
  assert.deepEqual(published.map((publisher) => `${publisher.URL}:${publisher.PublishedPort}`), [`127.0.0.1:${port}`]);
  console.log(`compose up -d --wait: ${(upMs / 1000).toFixed(1)} s`);
});

test('the bootstrap prints the endpoint and keys; a session through the published port drives a container desktop', async () => {
  const printed = await compose(['logs', '--no-log-prefix', 'bootstrap'], 30_000);
  const endpoint = printed.match(/MCP endpoint: (\S+)/)?.[1];
  const apiKey = printed.match(/API key: (dg_\S+)/)?.[1];
  const operatorKey = printed.match(/Operator key: (dg_\S+)/)?.[1];
  assert.equal(endpoint, `http://127.0.0.1:${port}/mcp`, printed);
  assert.ok(apiKey && operatorKey, printed);
  firstKey = apiKey;
  assert.match(printed, new RegExp(`claude mcp add --transport http deskgate ${endpoint} --header "Authorization: Bearer ${apiKey}"`));

  mcp = await connect('2026-07-28', `${endpoint}/compose`, apiKey);
  const shot = await mcp.call('screenshot');
  assert.ok(!shot.isError, textOf(shot));
  const { data, mimeType } = imageOf(shot);
  assert.match(mimeType, /^image\/(png|jpeg)$/);
  const image = decodeImage(data);
  assert.deepEqual({ width: image.width, height: image.height }, SIZE, 'the screenshot is the desktop of DESKGATE_DESKTOP_SIZE');

  // The middle of an empty desktop is its background: the hit-test gate refuses the click.
  const click = await mcp.call('left_click', { coordinate: [Math.round(SIZE.width / 2), Math.round(SIZE.height / 2)] });
  assert.equal(errorKind(click), 'no_app_window', textOf(click));

  // The session's desktop is a container of the project's worker (its warm spare may be a
  // second one), and not part of the compose project.
  const desktops = await desktopContainers();
  assert.ok(desktops.length >= 1, 'a desktop container runs');
  for (const id of desktops) {
    const labels = JSON.parse(await docker(['inspect', '-f', '{{json .Config.Labels}}', id])) as Record<string, string>;
    assert.equal(labels['deskgate.role'], 'desktop');
    assert.equal(labels['com.docker.compose.project'], undefined, 'a desktop container is not part of the compose project');
  }

  // The operator key works on the control API through the same port; the agent key does not.
  const sessions = await fetch(`http://127.0.0.1:${port}/v1/sessions`, { headers: { Authorization: `Bearer ${operatorKey}` } });
  assert.equal(sessions.status, 200);
  assert.match(await sessions.text(), /compose/);

  // The worker container writes replies straight to the gateway container (7422 on the project
  // network) once the first request opened the connection: a call that changes no state goes so.
  assert.ok(!(await mcp.call('cursor_position')).isError);
  const { direct } = await actionReplies(`http://127.0.0.1:${port}`, operatorKey);
  assert.ok(direct >= 1, `replies straight from the worker container: ${direct}`);
});

async function down(args: string[]): Promise<number> {
  await mcp?.close().catch(() => undefined);
  mcp = undefined;
  const started = performance.now();
  await compose(['down', ...args], 120_000);
  const downMs = performance.now() - started;
  console.log(`compose down ${args.join(' ')}: ${(downMs / 1000).toFixed(1)} s`);
  assert.deepEqual(await projectContainers(), [], 'no container of the project is left');
  assert.deepEqual(await desktopContainers(), [], 'no desktop container is left');
  assert.ok(downMs < DOWN_BOUND_MS, `down took ${Math.round(downMs)} ms (bound ${DOWN_BOUND_MS} ms)`);
  return downMs;
}

test('docker compose down leaves no container of the project and no desktop container, within its bound', async () => {
  await down([]);
  assert.equal(lines(await docker(['volume', 'ls', '-q', '--filter', `label=com.docker.compose.project=${PROJECT}`])).length, 1, 'the Redis volume stays');
});

test('a second start finds the keys (kept in the Redis volume), prints none, and the first key still drives a desktop', async () => {
  const started = performance.now();
  await compose(['up', '-d', '--wait', '--wait-timeout', '180'], 10 * 60_000);
  console.log(`compose up -d --wait (second start): ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const printed = await compose(['logs', '--no-log-prefix', 'bootstrap'], 30_000);
  assert.match(printed, /has 2 keys already/, printed);
  assert.doesNotMatch(printed, /dg_/, 'no key is printed again');
  assert.match(printed, /docker compose exec gateway node --import tsx services\/gateway\/src\/cli\/keys\.ts create sandbox/);
  mcp = await connect('2026-07-28', `http://127.0.0.1:${port}/mcp/again`, firstKey);
  const shot = await mcp.call('screenshot');
  assert.ok(!shot.isError, textOf(shot));
});

test('docker compose down -v leaves nothing: no container, no desktop, no volume', async () => {
  await down(['-v']);
  assert.deepEqual(lines(await docker(['volume', 'ls', '-q', '--filter', `label=com.docker.compose.project=${PROJECT}`])), []);
});
