/**
 * The container provider beside the process provider, measured in one step of `npm run bench`
 * (docs/performance.md, "Container desktops"):
 *
 * - through the whole stack (MCP client over real HTTP, a stack per provider, calls
 *   interleaved between them so both share whatever else loads the machine): screenshot and
 *   left_click on a desktop showing the same xterm of text; a session's first call with no
 *   spare (cold) and with a warm spare ready (warm);
 * - on the providers directly, in this process (as the worker does it): `Desktop.start` cold,
 *   split into the provider's start and the helpers answering (for a container: create, start,
 *   until the entry point's ready.json); one `ping` round trip to the capture helper and to
 *   the input runtime over the container's Unix sockets against the process provider's pipes;
 *   memory and CPU of idle desktops, N of each started one after the other while the host's
 *   used memory is read after each, to check that it grows linearly at the measured rate.
 *
 * Skipped with a reason when the engine or the image is missing; BENCH_SKIP_CONTAINERS=1 skips it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import Docker from 'dockerode';
import { createLogger } from '@deskgate/dispatch';
import { loadConfig, type WorkerConfig } from '../services/worker/src/config.ts';
import { ContainerDesktopProvider } from '../services/worker/src/desktops/container-provider.ts';
import { Desktop } from '../services/worker/src/desktops/desktop.ts';
import { ProcessDesktopProvider } from '../services/worker/src/desktops/process-provider.ts';
import type { DesktopProvider } from '../services/worker/src/desktops/provider.ts';
import { onDisplay, type DesktopFacts } from '../tests/support/desktops.ts';
import { connectBench, type BenchClient, type Timings } from './client.ts';
import { memoryOf, sessionDesktop } from './desktop.ts';
import { fromSummary, ms, ratio, type Row } from './report.ts';
import { percentile, progress, sleep, summarize, type Summary } from './stats.ts';
import type { Stack } from '../scripts/lib/stack.ts';

export type Provider = 'process' | 'container';
export const PROVIDERS: readonly Provider[] = ['process', 'container'];
export const CONTAINER_SECTION = 'Container desktops';

export interface ContainerBenchOptions {
  size: { width: number; height: number };
  /** Scales an iteration count (BENCH_SCALE), with a floor. */
  count: (n: number, min?: number) => number;
  warmupSeconds: number;
  /** Brings up a stack with these extra variables (main.ts's bringUp), and takes it down. */
  bringUp: (extra: Record<string, string>, label: string) => Promise<Stack>;
  tearDown: (stack: Stack) => Promise<void>;
  onCleanup: (fn: () => unknown) => void;
  clickPoint: [number, number];
  /** Idle desktops of each provider started for the memory figures. */
  idleDesktops: number;
}

interface Call {
  ms: number;
  timings: Timings;
}

export interface DirectStart {
  total: number;
  provider: number;
  helpers: number;
  /** Container only: the engine's create and start calls, then waiting for ready.json. */
  create?: number;
  start?: number;
}

export interface IdleDesktop {
  /** The figure per desktop this report uses (MiB): PSS sum for a process desktop; cgroup usage less file cache for a container. */
  mib: number;
  rssMiB: number;
  pssMiB: number;
  cpuPercent: number;
  cgroup?: { usageMiB: number; rssMiB: number; shmemMiB: number; cacheMiB: number; fileMiB: number; kernelMiB: number };
  /** The container's containerd shim, outside its cgroup. */
  shim?: { rssMiB: number; pssMiB: number };
  byProcess: Record<string, { rssMiB: number; pssMiB: number }>;
}

export interface Growth {
  /** Host memory in use (MemTotal − MemAvailable, MiB) before any and after each desktop. */
  hostUsedMiB: number[];
  /** The per-desktop figure summed over the desktops running, after each start (MiB). */
  ownMiB: number[];
  slopeMiB: number;
  r2: number;
}

export interface ProviderFigures {
  e2e?: { screenshot: Call[]; click: Call[] };
  coldFirstCall: number[];
  warmFirstCall: number[];
  direct: DirectStart[];
  ping?: { capture: number[]; input: number[] };
  idle: IdleDesktop[];
  growth?: Growth;
}

export interface ContainerFigures {
  image: string;
  engine: string;
  machine: { memTotalMiB: number; memAvailableMiB: number; cores: number };
  desktopLimits: { memoryMiB: number; cpus: number };
  providers: Record<Provider, ProviderFigures>;
  errors: string[];
}

const MiB = 1024 * 1024;
const meminfo = (): Record<string, number> =>
  Object.fromEntries(
    readFileSync('/proc/meminfo', 'utf8')
      .split('\n')
      .map((line) => /^(\w+):\s+(\d+)/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, Number(m[2]) / 1024]),
  );
const hostUsedMiB = () => {
  const m = meminfo();
  return m.MemTotal! - m.MemAvailable!;
};

/** Why the container rows cannot run here, or null when they can. */
export async function containerPrerequisite(image: string, docker = new Docker()): Promise<string | null> {
  if (process.env.BENCH_SKIP_CONTAINERS === '1') return 'skipped on purpose (BENCH_SKIP_CONTAINERS=1)';
  try {
    await docker.ping();
  } catch (error) {
    return `no Docker engine answers (${error instanceof Error ? error.message : error}); start dockerd or run \`bash scripts/install-containers.sh\``;
  }
  try {
    await docker.getImage(image).inspect();
  } catch {
    return `the desktop image ${image} is not in the engine; build it with \`bash scripts/images.sh\``;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Through the stack

/** The bench's xterm of text on a session's desktop; on a container's display via its network namespace. */
function showContent(facts: DesktopFacts): ChildProcess {
  const { file, args, env } = onDisplay(facts, [
    'xterm', '-geometry', '110x42+0+0', '-fa', 'Monospace', '-fs', '9', '-e', 'sh', '-c', 'ls -l /usr/bin /usr/lib | head -400; cat /etc/services; exec sleep 100000',
  ]);
  const child = spawn(file, args, { env, stdio: 'ignore' });
  child.on('error', () => undefined);
  return child;
}

async function firstCall(stack: Stack, session: string): Promise<{ ms: number; client: BenchClient }> {
  const started = performance.now();
  const client = await connectBench(`${stack.mcpUrl}/${session}`, stack.apiKey);
  await client.ok('screenshot');
  return { ms: performance.now() - started, client };
}

async function throughStacks(options: ContainerBenchOptions, figures: ContainerFigures): Promise<void> {
  const { count } = options;
  const stacks: Partial<Record<Provider, Stack>> = {};
  try {
    for (const provider of PROVIDERS) {
      stacks[provider] = await options.bringUp({ DESKGATE_DESKTOP_PROVIDER: provider, DESKGATE_MAX_DESKTOPS: '8', DESKGATE_WARM_DESKTOPS: '0' }, `${provider}-cold`);
    }
    const trials = count(3, 3);
    progress(`containers: a session's first call, cold (no spare), ${trials} per provider, interleaved`);
    for (let i = 0; i < trials; i++) {
      for (const provider of i % 2 ? [...PROVIDERS].reverse() : PROVIDERS) {
        const { ms: took, client } = await firstCall(stacks[provider]!, `cold-${i}`);
        figures.providers[provider].coldFirstCall.push(took);
        progress(`  ${provider} cold ${i + 1}/${trials}: ${took.toFixed(0)} ms`);
        await client.close();
      }
    }

    const clients: Partial<Record<Provider, BenchClient>> = {};
    for (const provider of PROVIDERS) {
      const stack = stacks[provider]!;
      const client = await connectBench(`${stack.mcpUrl}/bench-${provider}`, stack.apiKey);
      await client.ok('screenshot');
      const xterm = showContent(await sessionDesktop(stack.redisUrl, stack.tenant, `bench-${provider}`));
      options.onCleanup(() => xterm.kill('SIGKILL'));
      clients[provider] = client;
    }
    // The xterm has drawn its text before the screenshot that click coordinates are read off.
    await sleep(2000);
    const both = PROVIDERS.map((provider) => clients[provider]!);
    for (const client of both) await client.ok('screenshot');
    /** A click the gates refuse because the screen under it changed since the last screenshot is retried after one (untimed). */
    const act = async (client: BenchClient, tool: string, args: Record<string, unknown>) => {
      for (let attempt = 0; ; attempt++) {
        const result = await client.call(tool, args);
        if (!result.isError) return result;
        if (attempt >= 3 || !/screen changed/i.test(result.text)) throw new Error(`${tool} failed: ${result.text.slice(0, 300)}`);
        await client.ok('screenshot');
      }
    };
    progress(`containers: ${options.warmupSeconds} s of mixed warm-up calls on both stacks`);
    const until = performance.now() + options.warmupSeconds * 1000;
    while (performance.now() < until) {
      for (const client of both) {
        for (let i = 0; i < 5; i++) await act(client, 'left_click', { coordinate: options.clickPoint });
        await client.ping();
        await client.ok('screenshot');
        await client.ok('key', { text: 'Escape' });
      }
    }
    const interleaved = async (tool: string, args: Record<string, unknown>, n: number, key: 'screenshot' | 'click') => {
      progress(`containers: ${tool} on both stacks, interleaved (${n}× each)`);
      for (const provider of PROVIDERS) figures.providers[provider].e2e ??= { screenshot: [], click: [] };
      for (let i = 0; i < n + 20; i++) {
        for (const provider of i % 2 ? [...PROVIDERS].reverse() : PROVIDERS) {
          const result = await act(clients[provider]!, tool, args);
          if (i >= 20) figures.providers[provider].e2e![key].push({ ms: result.ms, timings: result.timings });
        }
      }
    };
    await interleaved('screenshot', {}, count(300), 'screenshot');
    await interleaved('left_click', { coordinate: options.clickPoint }, count(600), 'click');
    for (const client of both) await client.close().catch(() => undefined);
  } finally {
    for (const stack of Object.values(stacks)) await options.tearDown(stack);
  }

  // Warm: one spare each; pauses long enough for the spare to be refilled between trials.
  const warmStacks: Partial<Record<Provider, Stack>> = {};
  try {
    for (const provider of PROVIDERS) {
      warmStacks[provider] = await options.bringUp({ DESKGATE_DESKTOP_PROVIDER: provider, DESKGATE_MAX_DESKTOPS: '6', DESKGATE_WARM_DESKTOPS: '1' }, `${provider}-warm`);
    }
    const trials = count(3, 3);
    progress(`containers: a session's first call with a warm spare ready, ${trials} per provider, 4 s apart`);
    for (let i = 0; i < trials; i++) {
      await sleep(4000);
      for (const provider of i % 2 ? [...PROVIDERS].reverse() : PROVIDERS) {
        const { ms: took, client } = await firstCall(warmStacks[provider]!, `warm-${i}`);
        figures.providers[provider].warmFirstCall.push(took);
        progress(`  ${provider} warm ${i + 1}/${trials}: ${took.toFixed(0)} ms`);
        await client.close();
      }
    }
  } finally {
    for (const stack of Object.values(warmStacks)) await options.tearDown(stack);
  }
}

// ---------------------------------------------------------------------------------------------
// On the providers directly

/** The provider's own start timed apart from the helpers answering (Desktop.start does both). */
class TimedProvider implements DesktopProvider {
  last = 0;
  constructor(private readonly inner: DesktopProvider) {}
  get kind() {
    return this.inner.kind;
  }
  prepare() {
    return this.inner.prepare();
  }
  async start(size: { width: number; height: number; monitors?: number }) {
    const started = performance.now();
    const handle = await this.inner.start(size);
    this.last = performance.now() - started;
    return handle;
  }
}

/** An engine client whose createContainer and Container.start record how long they took. */
function timedDocker(): { docker: Docker; last: { create: number; start: number } } {
  const docker = new Docker();
  const last = { create: 0, start: 0 };
  const create = docker.createContainer.bind(docker) as (options: Docker.ContainerCreateOptions) => Promise<Docker.Container>;
  (docker as unknown as { createContainer: typeof create }).createContainer = async (options) => {
    let started = performance.now();
    const container = await create(options);
    last.create = performance.now() - started;
    const start = container.start.bind(container) as () => Promise<unknown>;
    (container as unknown as { start: typeof start }).start = async () => {
      started = performance.now();
      const result = await start();
      last.start = performance.now() - started;
      return result;
    };
    return container;
  };
  return { docker, last };
}

const cgroupDir = (pid: number, controller: string): string | null => {
  for (const line of readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')) {
    const [, controllers, path] = line.split(':');
    if (controllers?.split(',').includes(controller)) return `/sys/fs/cgroup/${controllers}${path}`;
  }
  return null;
};
const readNumber = (path: string) => Number(readFileSync(path, 'utf8').trim());
const memoryStat = (dir: string): Record<string, number> =>
  Object.fromEntries(
    readFileSync(`${dir}/memory.stat`, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .map(([k, v]) => [k!, Number(v)]),
  );
const ticks = (pid: number): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
};
const parentOf = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
const commOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
};
const mib = (kib: number) => kib / 1024;

interface Measured {
  desktop: Desktop;
  /** Host pids of everything the desktop runs. */
  pids: () => Record<string, number>;
  /** CPU time so far (ms). */
  cpuMs: () => number;
  memory: () => IdleDesktop;
}

async function measuredContainer(desktop: Desktop, docker: Docker): Promise<Measured> {
  const where = desktop.handle.where();
  const info = await docker.getContainer(String(where.container)).inspect();
  const init = info.State.Pid;
  const memDir = cgroupDir(init, 'memory');
  const cpuDir = cgroupDir(init, 'cpuacct');
  if (!memDir || !cpuDir) throw new Error(`no memory/cpuacct cgroup (v1) for container ${where.container}`);
  const shim = parentOf(init);
  const pids = () =>
    Object.fromEntries(
      readFileSync(`${memDir}/cgroup.procs`, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((pid, i) => [`${commOf(Number(pid))}#${i}`, Number(pid)]),
    );
  return {
    desktop,
    pids,
    cpuMs: () => readNumber(`${cpuDir}/cpuacct.usage`) / 1e6,
    memory: () => {
      const usage = readNumber(`${memDir}/memory.usage_in_bytes`);
      const stat = memoryStat(memDir);
      const file = (stat.total_active_file ?? 0) + (stat.total_inactive_file ?? 0);
      const byProcess: IdleDesktop['byProcess'] = {};
      let rss = 0;
      let pss = 0;
      for (const [name, pid] of Object.entries(pids())) {
        const m = memoryOf(pid);
        const key = name.replace(/#\d+$/, '');
        byProcess[key] ??= { rssMiB: 0, pssMiB: 0 };
        byProcess[key].rssMiB += mib(m.rssKiB);
        byProcess[key].pssMiB += mib(m.pssKiB);
        rss += m.rssKiB;
        pss += m.pssKiB;
      }
      const shimMemory = commOf(shim).startsWith('containerd-shim') ? memoryOf(shim) : { rssKiB: 0, pssKiB: 0 };
      const rssMiB = (stat.total_rss ?? 0) / MiB;
      const shmemMiB = (stat.total_shmem ?? 0) / MiB;
      return {
        // Usage less file-backed page cache (the image's libraries and fonts, shared with every
        // other container of the image and reclaimable): anon memory, tmpfs/SysV shm, kernel.
        mib: (usage - file) / MiB,
        rssMiB: mib(rss),
        pssMiB: mib(pss),
        cpuPercent: 0,
        cgroup: {
          usageMiB: usage / MiB,
          rssMiB,
          shmemMiB,
          cacheMiB: (stat.total_cache ?? 0) / MiB,
          fileMiB: file / MiB,
          kernelMiB: Math.max(0, usage / MiB - rssMiB - (stat.total_cache ?? 0) / MiB),
        },
        shim: { rssMiB: mib(shimMemory.rssKiB), pssMiB: mib(shimMemory.pssKiB) },
        byProcess,
      };
    },
  };
}

function measuredProcess(desktop: Desktop): Measured {
  const pids = () => {
    const all: Record<string, number> = { xvfb: desktop.handle.pids.xvfb, openbox: desktop.handle.pids.wm, panel: desktop.handle.pids.panel };
    if (desktop.capture.pid) all.capture = desktop.capture.pid;
    if (desktop.input.pid) all.input = desktop.input.pid;
    return Object.fromEntries(Object.entries(all).filter(([, pid]) => pid > 0));
  };
  return {
    desktop,
    pids,
    cpuMs: () => Object.values(pids()).reduce((sum, pid) => sum + ticks(pid) * 10, 0),
    memory: () => {
      const byProcess: IdleDesktop['byProcess'] = {};
      let rss = 0;
      let pss = 0;
      for (const [name, pid] of Object.entries(pids())) {
        const m = memoryOf(pid);
        byProcess[name] = { rssMiB: mib(m.rssKiB), pssMiB: mib(m.pssKiB) };
        rss += m.rssKiB;
        pss += m.pssKiB;
      }
      return { mib: mib(pss), rssMiB: mib(rss), pssMiB: mib(pss), cpuPercent: 0, byProcess };
    },
  };
}

function linearFit(ys: number[]): { slope: number; r2: number } {
  const n = ys.length;
  const xs = ys.map((_, i) => i);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return { slope: sxy / sxx, r2: syy ? (sxy * sxy) / (sxx * syy) : 1 };
}

async function onProviders(options: ContainerBenchOptions, figures: ContainerFigures, config: WorkerConfig): Promise<void> {
  // Desktop warnings go to stderr with the progress lines: stdout carries the table.
  const log = createLogger('deskgate-bench', 'warn', {}, process.stderr);
  const { docker, last } = timedDocker();
  const workerId = `bench-${randomBytes(3).toString('hex')}`;
  const container = new ContainerDesktopProvider({ workerId, ...config.container, maxProcesses: config.desktopMaxProcesses, panel: config.desktopPanel }, log, docker);
  const timed: Record<Provider, TimedProvider> = { process: new TimedProvider(new ProcessDesktopProvider(config.windowManager, log)), container: new TimedProvider(container) };
  const running: Desktop[] = [];
  const stopAll = async () => {
    await Promise.all(running.splice(0).map((desktop) => desktop.stop().catch(() => undefined)));
  };
  options.onCleanup(async () => {
    await stopAll();
    await container.reap().catch(() => undefined);
  });
  try {
    for (const provider of PROVIDERS) await timed[provider].prepare();
    const start = async (provider: Provider): Promise<{ desktop: Desktop; timing: DirectStart }> => {
      // A reaper of a worker that just stopped (a bench stack's, or another one's on this host)
      // may hold the desktop users' slot locks while it sweeps them: the start is refused at
      // once (nothing started), and tried again, timed afresh.
      let started = performance.now();
      let desktop: Desktop;
      for (let waited = 0; ; waited += 500) {
        try {
          started = performance.now();
          desktop = await Desktop.start(timed[provider], config, log);
          break;
        } catch (error) {
          if (!String(error).includes('every desktop user is in use') || waited > 30_000) throw error;
          await sleep(500);
        }
      }
      const total = performance.now() - started;
      running.push(desktop);
      const providerMs = timed[provider].last;
      return { desktop, timing: { total, provider: providerMs, helpers: total - providerMs, ...(provider === 'container' ? { create: last.create, start: last.start } : {}) } };
    };
    const stop = async (desktop: Desktop) => {
      running.splice(running.indexOf(desktop), 1);
      await desktop.stop();
    };

    const trials = options.count(5, 3);
    progress(`containers: Desktop.start on each provider directly, ${trials}× each, interleaved (started, then stopped)`);
    for (let i = 0; i < trials; i++) {
      for (const provider of i % 2 ? [...PROVIDERS].reverse() : PROVIDERS) {
        const { desktop, timing } = await start(provider);
        figures.providers[provider].direct.push(timing);
        progress(`  ${provider} ${i + 1}/${trials}: ${timing.total.toFixed(0)} ms (provider ${timing.provider.toFixed(0)} + helpers ${timing.helpers.toFixed(0)})`);
        await stop(desktop);
        await sleep(300);
      }
    }

    // N idle desktops of one provider at a time; the host's used memory read after each.
    const n = options.idleDesktops;
    const first: Partial<Record<Provider, Desktop>> = {};
    for (const provider of PROVIDERS) {
      progress(`containers: ${n} idle ${provider} desktops, one after the other, host memory read after each`);
      const measured: Measured[] = [];
      await sleep(1500);
      const used = [hostUsedMiB()];
      const own = [0];
      const cost = (m: Measured) => {
        const memory = m.memory();
        return memory.mib + (memory.shim?.pssMiB ?? 0);
      };
      for (let i = 0; i < n; i++) {
        const { desktop } = await start(provider);
        measured.push(provider === 'container' ? await measuredContainer(desktop, docker) : measuredProcess(desktop));
        await sleep(1500);
        used.push(hostUsedMiB());
        own.push(measured.reduce((sum, m) => sum + cost(m), 0));
        progress(`  ${i + 1}/${n}: host used ${used.at(-1)!.toFixed(0)} MiB (+${(used.at(-1)! - used.at(-2)!).toFixed(0)})`);
      }
      const fit = linearFit(used);
      figures.providers[provider].growth = { hostUsedMiB: used, ownMiB: own, slopeMiB: fit.slope, r2: fit.r2 };
      progress(`  idle for 5 s, then memory and CPU of each`);
      const cpuBefore = measured.map((m) => m.cpuMs());
      const idleStarted = performance.now();
      await sleep(5000);
      const idleMs = performance.now() - idleStarted;
      measured.forEach((m, i) => {
        const memory = m.memory();
        memory.cpuPercent = ((m.cpuMs() - cpuBefore[i]!) / idleMs) * 100;
        figures.providers[provider].idle.push(memory);
      });
      // Keep one of each for the helper pings; stop the rest.
      first[provider] = measured[0]!.desktop;
      for (const m of measured.slice(1)) await stop(m.desktop);
    }

    const pings = options.count(1000, 100);
    progress(`containers: helper ping round trips, pipes (process) vs Unix sockets (container), ${pings}× each, interleaved`);
    for (const provider of PROVIDERS) figures.providers[provider].ping = { capture: [], input: [] };
    for (let i = 0; i < pings + 50; i++) {
      for (const provider of i % 2 ? [...PROVIDERS].reverse() : PROVIDERS) {
        const desktop = first[provider]!;
        let started = performance.now();
        await desktop.capture.call({ op: 'ping' });
        const capture = performance.now() - started;
        started = performance.now();
        await desktop.input.call('ping');
        const input = performance.now() - started;
        if (i >= 50) {
          figures.providers[provider].ping!.capture.push(capture);
          figures.providers[provider].ping!.input.push(input);
        }
      }
    }
  } finally {
    await stopAll();
    await container.reap().catch(() => undefined);
  }
}

export async function containerBench(options: ContainerBenchOptions): Promise<ContainerFigures> {
  // Desktop.start reads the worker's configuration from this process's environment, at the bench's size.
  const config: WorkerConfig = { ...loadConfig(), desktopSize: options.size, desktopMonitors: 1 };
  const docker = new Docker();
  const version = await docker.version().catch(() => null);
  const m = meminfo();
  const figures: ContainerFigures = {
    image: config.container.image,
    engine: version ? `Docker ${version.Version} (${version.Os}/${version.Arch}, cgroup ${readFileSync('/proc/self/mountinfo', 'utf8').includes(' - cgroup2 ') && !readFileSync('/proc/self/mountinfo', 'utf8').includes(' - cgroup ') ? 'v2' : 'v1'})` : '?',
    machine: { memTotalMiB: m.MemTotal ?? totalmem() / MiB, memAvailableMiB: m.MemAvailable ?? 0, cores: availableParallelism() },
    desktopLimits: { memoryMiB: config.container.memoryBytes / MiB, cpus: config.container.cpus },
    providers: {
      process: { coldFirstCall: [], warmFirstCall: [], direct: [], idle: [] },
      container: { coldFirstCall: [], warmFirstCall: [], direct: [], idle: [] },
    },
    errors: [],
  };
  const part = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (error) {
      const message = `containers, ${name}: ${error instanceof Error ? error.message : String(error)}`;
      figures.errors.push(message);
      progress(`\x1b[31mFAILED\x1b[0m ${message}`);
    }
  };
  await part('through the stack', () => throughStacks(options, figures));
  await part('on the providers', () => onProviders(options, figures, config));
  return figures;
}

// ---------------------------------------------------------------------------------------------
// Rows

const p95 = (samples: number[]) => percentile([...samples].sort((a, b) => a - b), 0.95);
const median = (samples: number[]) => summarize(samples).p50;
const list = (samples: number[]) => samples.map((v) => ms(v)).join(', ');

export function containerRows(figures: ContainerFigures | undefined, skipped: string | undefined, size: { width: number; height: number }): Row[] {
  const section = `${CONTAINER_SECTION}: process vs container provider (same run, interleaved)`;
  if (!figures) return [{ section, name: 'container rows not run', value: '—', compare: skipped ?? 'no figures' }];
  const rows: Row[] = [];
  const p = figures.providers.process;
  const c = figures.providers.container;
  const pair = (name: string, of: (f: ProviderFigures) => number[] | undefined, extra?: (provider: Provider, s: Summary) => string) => {
    const base = of(p);
    for (const provider of PROVIDERS) {
      const samples = of(figures.providers[provider]);
      if (!samples?.length) {
        rows.push({ section, name: `${name} — ${provider}`, value: 'failed' });
        continue;
      }
      const s = summarize(samples);
      const vs = provider === 'container' && base?.length ? `${ratio(s.p50 / summarize(base).p50)} process p50, ${ratio(s.p99 / summarize(base).p99)} at p99; ` : '';
      rows.push({ section, name: `${name} — ${provider}`, ...fromSummary(s), compare: `${vs}p95 ${ms(p95(samples))}${extra ? `; ${extra(provider, s)}` : ''}` });
    }
  };
  const timing = (calls: Call[] | undefined, key: string) => calls?.map((call) => call.timings[key] ?? Number.NaN).filter(Number.isFinite) ?? [];
  pair(`screenshot ${size.width}×${size.height}`, (f) => f.e2e?.screenshot.map((call) => call.ms), (provider) => `capture helper round trip p50 ${ms(median(timing(figures.providers[provider].e2e?.screenshot, 'helperRoundTripMs')))}`);
  pair('left_click', (f) => f.e2e?.click.map((call) => call.ms), (provider) => `input runtime p50 ${ms(median(timing(figures.providers[provider].e2e?.click, 'inputMs')))}`);
  pair('helper ping: capture helper', (f) => f.ping?.capture, (provider) => (provider === 'container' ? 'Unix socket in the run folder' : 'child stdin/stdout pipes'));
  pair('helper ping: input runtime', (f) => f.ping?.input, (provider) => (provider === 'container' ? 'Unix socket in the run folder' : 'child stdin/stdout pipes'));
  pair("desktop start, cold: session's first call", (f) => f.coldFirstCall, () => 'connect + request_access + first screenshot, no spare');
  pair('desktop start, cold: Desktop.start', (f) => f.direct.map((d) => d.total), (provider, s) => {
    const direct = figures.providers[provider].direct;
    const parts = `provider ${ms(median(direct.map((d) => d.provider)))} + helpers ${ms(median(direct.map((d) => d.helpers)))}`;
    return provider === 'container' ? `${parts} (create ${ms(median(direct.map((d) => d.create ?? 0)))}, start ${ms(median(direct.map((d) => d.start ?? 0)))}, then ready.json)` : parts;
  });
  pair("desktop start, warm spare: session's first call", (f) => f.warmFirstCall, () => 'one spare, refilled 4 s before each trial');

  const memSection = `${CONTAINER_SECTION}: memory and CPU of idle desktops, and how many fit`;
  const perDesktop: Partial<Record<Provider, number>> = {};
  for (const provider of PROVIDERS) {
    const idle = figures.providers[provider].idle;
    if (!idle.length) {
      rows.push({ section: memSection, name: `memory per idle desktop — ${provider}`, value: 'failed' });
      continue;
    }
    const figure = median(idle.map((d) => d.mib));
    const rss = median(idle.map((d) => d.rssMiB));
    const pss = median(idle.map((d) => d.pssMiB));
    const first = idle[0]!;
    const procs = Object.entries(first.byProcess)
      .sort((a, b) => b[1].pssMiB - a[1].pssMiB)
      .map(([name, m]) => `${name} ${m.pssMiB.toFixed(0)}`)
      .join(' + ');
    if (provider === 'container') {
      const g = (key: keyof NonNullable<IdleDesktop['cgroup']>) => median(idle.map((d) => d.cgroup?.[key] ?? 0));
      const shim = median(idle.map((d) => d.shim?.pssMiB ?? 0));
      perDesktop.container = figure + shim;
      rows.push({
        section: memSection,
        name: 'memory per idle desktop — container (cgroup usage − file cache)',
        n: idle.length,
        value: `${figure.toFixed(1)} MiB`,
        compare: `usage ${g('usageMiB').toFixed(1)} = rss ${g('rssMiB').toFixed(1)} + cache ${g('cacheMiB').toFixed(1)} (of which shmem ${g('shmemMiB').toFixed(1)}, file ${g('fileMiB').toFixed(1)}) + kernel ${g('kernelMiB').toFixed(1)}`,
      });
      rows.push({ section: memSection, name: '  its processes (RSS sum / PSS sum)', n: idle.length, value: `${rss.toFixed(1)} / ${pss.toFixed(1)} MiB`, compare: `PSS: ${procs}` });
      rows.push({ section: memSection, name: '  containerd shim, outside the cgroup (PSS)', n: idle.length, value: `${shim.toFixed(1)} MiB`, compare: `RSS ${median(idle.map((d) => d.shim?.rssMiB ?? 0)).toFixed(1)} MiB; counted in the per-desktop cost below` });
    } else {
      perDesktop.process = figure;
      rows.push({ section: memSection, name: 'memory per idle desktop — process (PSS sum)', n: idle.length, value: `${figure.toFixed(1)} MiB`, compare: `RSS sum ${rss.toFixed(1)} MiB; PSS: ${procs}` });
    }
    const cpu = summarize(idle.map((d) => d.cpuPercent));
    rows.push({ section: memSection, name: `  CPU of an idle desktop — ${provider}`, n: idle.length, value: `${cpu.p50.toFixed(2)} %`, compare: `of one core over 5 s idle; max ${cpu.max.toFixed(2)} %` });
  }
  const { memTotalMiB, cores } = figures.machine;
  const reserve = 1024;
  for (const provider of PROVIDERS) {
    const per = perDesktop[provider];
    const growth = figures.providers[provider].growth;
    if (growth) {
      const steps = growth.hostUsedMiB.slice(1).map((v, i) => v - growth.hostUsedMiB[i]!);
      rows.push({
        section: memSection,
        name: `host memory used, ${steps.length} ${provider} desktops started in turn`,
        n: steps.length,
        value: `${growth.slopeMiB.toFixed(1)} MiB/desktop`,
        compare: `least-squares slope of MemTotal − MemAvailable, R² ${growth.r2.toFixed(3)}; steps ${steps.map((s) => s.toFixed(0)).join(', ')} MiB${per ? `; measured per desktop ${per.toFixed(1)}` : ''}; the desktops' own sum after each: ${growth.ownMiB.slice(1).map((v) => v.toFixed(0)).join(', ')} MiB`,
      });
    }
    if (per) {
      const fit = Math.floor((memTotalMiB - reserve) / per);
      const byGrowth = growth && growth.slopeMiB > 0 ? Math.floor((memTotalMiB - reserve) / growth.slopeMiB) : undefined;
      rows.push({
        section: memSection,
        name: `idle desktops that fit in memory — ${provider}`,
        value: String(fit),
        compare: `⌊(MemTotal ${memTotalMiB.toFixed(0)} − ${reserve} reserved) MiB / ${per.toFixed(1)} MiB⌋${byGrowth ? `; by the host slope ${byGrowth}` : ''}${provider === 'container' ? `; each may grow to its ${figures.desktopLimits.memoryMiB} MiB limit` : ''}; the worker's default cap: ${cores} cores × 4 = ${cores * 4}`,
      });
    }
  }
  for (const error of figures.errors) rows.push({ section: memSection, name: error.slice(0, 120) });
  return rows;
}
