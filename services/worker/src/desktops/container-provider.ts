/**
 * Desktops as containers: one hardened container of the desktop image per desktop, created
 * through the Docker Engine API and removed with the desktop (docs/containers.md). Inside it
 * the image's entry point runs Xvfb, openbox, the panel and both helpers as an unprivileged
 * user; the worker reaches the helpers over the Unix sockets they listen on in the container's
 * run folder, a host folder bind-mounted into that one container. Containers carry the
 * worker's id as a label, so a worker starting under the same id removes what a killed
 * predecessor left.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { Logger } from 'pino';
import { containerApps } from '../launch/desktop-apps.ts';
import { FailureSignal } from './failure-signal.ts';
import type { DesktopProvider, DisplayHandle } from './provider.ts';

/** The desktop image's user (docs/containers.md). */
const DESKTOP_UID = 1000;
const START_TIMEOUT_MS = 20_000;
const READY_POLL_MS = 20;
/** tmpfs sizes: what a session may write to its home and /tmp (counted in its memory limit). */
const HOME_TMPFS = 'rw,nosuid,nodev,size=512m,uid=1000,gid=1000,mode=0700';
const TMP_TMPFS = 'rw,nosuid,nodev,size=512m,mode=1777';

/**
 * The socket in a desktop's run folder the console's live view connects to: each connection
 * gets a capture helper of its own, started by the entry point and gone with the connection.
 */
export const LIVE_SOCKET = 'live.sock';

export const LABELS = { role: 'deskgate.role', worker: 'deskgate.worker' } as const;

/**
 * The network a desktop joins when its tenant's policy allows egress: a bridge whose members
 * cannot reach each other (no inter-container traffic) nor this host (its interface is
 * rejected on the host's INPUT chain), only what lies beyond the host.
 */
export const EGRESS = { network: 'deskgate-egress', bridge: 'dg-egress0' } as const;

export interface ContainerSettings {
  workerId: string;
  image: string;
  runDir: string;
  memoryBytes: number;
  cpus: number;
  /** The pids limit: processes and threads of everything in the container. */
  maxProcesses: number;
  panel: boolean;
}

/** What the image's entry point writes once the desktop is up (docs/containers.md). */
interface ReadyFile {
  display: string;
  width: number;
  height: number;
  monitors: number;
  pids: { xvfb: number; wm: number; panel: number };
}

export class ContainerDesktopProvider implements DesktopProvider {
  readonly kind = 'container' as const;
  private egress: Promise<void> | null = null;

  constructor(
    private readonly settings: ContainerSettings,
    private readonly log: Logger,
    private readonly docker: Docker = new Docker(),
  ) {}

  private get workerDir(): string {
    return join(this.settings.runDir, this.settings.workerId);
  }

  /** The engine answers, the image is there, and nothing of a dead worker with this id is left. */
  async prepare(): Promise<void> {
    await this.docker.ping().catch((error: Error) => {
      throw new Error(`the Docker engine does not answer (${error.message}): start dockerd, or set DOCKER_HOST; DESKGATE_DESKTOP_PROVIDER=container needs it`);
    });
    await this.docker
      .getImage(this.settings.image)
      .inspect()
      .catch(() => {
        throw new Error(`the desktop image ${this.settings.image} is not in the engine: build it with \`bash scripts/images.sh\` (or set DESKGATE_DESKTOP_IMAGE)`);
      });
    const removed = await this.reap();
    if (removed > 0) this.log.warn({ removed, worker: this.settings.workerId }, 'removed desktop containers a previous worker with this id left');
  }

  /** Removes every desktop container labelled with this worker's id, and their run folders. */
  async reap(): Promise<number> {
    const leftovers = await this.docker.listContainers({ all: true, filters: { label: [`${LABELS.role}=desktop`, `${LABELS.worker}=${this.settings.workerId}`] } });
    await Promise.all(leftovers.map((info) => this.docker.getContainer(info.Id).remove({ force: true }).catch(() => undefined)));
    rmSync(this.workerDir, { recursive: true, force: true });
    return leftovers.length;
  }

  /**
   * Creates and starts the desktop's container and waits for its entry point's ready.json.
   * A start that fails, or is given up because the worker stops (`stopping`), removes the
   * container by its name whatever state it reached (created, starting, running) and its run
   * folder, before it throws: no container outlives the worker that made it. A worker killed
   * mid-way leaves it to the next worker with its id (reap()).
   */
  async start({ width, height, monitors = 1 }: { width: number; height: number; monitors?: number }, stopping?: AbortSignal): Promise<DisplayHandle> {
    givenUp(stopping);
    const name = `deskgate-desktop-${this.settings.workerId}-${randomBytes(4).toString('hex')}`;
    const runDir = join(this.workerDir, name);
    const container = this.docker.getContainer(name);
    const remove = async () => {
      await container.remove({ force: true }).catch((error: Error & { statusCode?: number }) => {
        if (error.statusCode !== 404) this.log.error({ err: error, container: name }, 'desktop container not removed');
      });
      rmSync(runDir, { recursive: true, force: true });
    };
    // Once stop() has begun, the container's exit is no failure (a start given up logs none).
    const end = new FailureSignal((reason) => this.log.error({ container: name, reason }, 'desktop failed'));
    try {
      mkdirSync(runDir, { recursive: true, mode: 0o700 });
      chownSync(runDir, DESKTOP_UID, DESKTOP_UID);
      // Neither engine call is cut short: the container it made is then known, and removed.
      await this.create(name, runDir, width, height, monitors);
      givenUp(stopping);
      await container.start();
      givenUp(stopping);
      // The entry point exits when Xvfb or openbox stops; the engine says why (OOM, a signal).
      void container.wait().then(
        async () => end.fail(await this.exitReason(container, runDir)),
        () => end.fail('the desktop container could not be watched'),
      );
      const ready = await this.waitReady(runDir, () => end.failed, stopping);
      const { State } = await container.inspect();
      this.log.info({ container: name, display: ready.display, width: ready.width, height: ready.height, pid: State.Pid }, 'desktop container started');
      return this.handleOf(name, runDir, ready, State.Pid, end, remove);
    } catch (error) {
      await end.stop(remove);
      if (stopping?.aborted) this.log.info({ container: name }, 'desktop container being started removed: the worker is stopping');
      throw error;
    }
  }

  private create(name: string, runDir: string, width: number, height: number, monitors: number): Promise<Docker.Container> {
    return this.docker.createContainer({
      name,
      Image: this.settings.image,
      User: `${DESKTOP_UID}:${DESKTOP_UID}`,
      Env: [`DESKGATE_SCREEN=${width}x${height}`, `DESKGATE_MONITORS=${monitors}`, `DESKGATE_PANEL=${this.settings.panel ? 1 : 0}`],
      Labels: { [LABELS.role]: 'desktop', [LABELS.worker]: this.settings.workerId },
      NetworkDisabled: false,
      StopTimeout: 1,
      HostConfig: {
        Init: true,
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        NetworkMode: 'none',
        Memory: this.settings.memoryBytes,
        // No swap beyond the memory limit: a hog is stopped, not slowed.
        MemorySwap: this.settings.memoryBytes,
        NanoCpus: Math.round(this.settings.cpus * 1e9),
        PidsLimit: this.settings.maxProcesses,
        Tmpfs: { '/tmp': TMP_TMPFS, '/home/desktop': HOME_TMPFS },
        Binds: [`${runDir}:/run/deskgate`],
        ShmSize: 256 * 1024 * 1024,
      },
    });
  }

  private handleOf(name: string, runDir: string, ready: ReadyFile, hostPid: number, end: FailureSignal, remove: () => Promise<void>): DisplayHandle {
    return {
      display: ready.display,
      width: ready.width,
      height: ready.height,
      pids: ready.pids,
      helpers: { capture: { socket: join(runDir, 'capture.sock') }, input: { socket: join(runDir, 'input.sock') } },
      apps: (input) => containerApps(input),
      // hostPid: the container's init in the host's pid namespace (its network namespace is
      // /proc/<hostPid>/ns/net: how tests put a probe app on the display).
      allowEgress: async () => {
        await this.ensureEgress();
        await this.docker.getNetwork('none').disconnect({ Container: name });
        await this.docker.getNetwork(EGRESS.network).connect({ Container: name });
        this.log.info({ container: name }, 'desktop given egress');
      },
      where: () => ({ provider: 'container', container: name, hostPid, runDir, xauthority: join(runDir, 'xauthority') }),
      onFailure: (listener) => end.onFailure(listener),
      stop: () => end.stop(remove),
    };
  }

  /** The egress network and the host's guard against it, made once (by whichever worker is first). */
  private ensureEgress(): Promise<void> {
    this.egress ??= (async () => {
      const exists = await this.docker
        .getNetwork(EGRESS.network)
        .inspect()
        .then(() => true, () => false);
      if (!exists) {
        await this.docker
          .createNetwork({
            Name: EGRESS.network,
            Driver: 'bridge',
            Labels: { [LABELS.role]: 'egress' },
            Options: { 'com.docker.network.bridge.enable_icc': 'false', 'com.docker.network.bridge.name': EGRESS.bridge },
          })
          .catch((error: Error & { statusCode?: number }) => {
            if (error.statusCode !== 409) throw error;
          });
      }
      await rejectHostTraffic(EGRESS.bridge);
    })().catch((error: unknown) => {
      this.egress = null;
      throw error;
    });
    return this.egress;
  }

  /** ready.json once it is there; throws on `failed`, an exit, the start timeout, or `stopping`. */
  private async waitReady(runDir: string, failure: () => string | null, stopping?: AbortSignal): Promise<ReadyFile> {
    const until = Date.now() + START_TIMEOUT_MS;
    const readyPath = join(runDir, 'ready.json');
    for (;;) {
      givenUp(stopping);
      const failedText = readIfThere(join(runDir, 'failed'));
      if (failedText !== null) throw new Error(`the desktop container failed to start: ${failedText.trim() || 'no reason given'}`);
      const why = failure();
      if (why) throw new Error(`the desktop container stopped while starting: ${why}`);
      const text = readIfThere(readyPath);
      if (text !== null) return parseReady(text);
      if (Date.now() > until) throw new Error(`the desktop container was not ready within ${START_TIMEOUT_MS / 1000} s (no ${readyPath})`);
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
    }
  }

  private async exitReason(container: Docker.Container, runDir: string): Promise<string> {
    const said = readIfThere(join(runDir, 'failed'))?.trim();
    const state = await container.inspect().then(
      (info) => info.State,
      () => null,
    );
    if (state?.OOMKilled) return 'the desktop ran out of memory (its container was stopped by the memory limit)';
    if (said) return said;
    return state ? `the desktop container exited (${state.ExitCode})` : 'the desktop container is gone';
  }
}

const run = promisify(execFile);

/** Throws once the worker stops: a desktop still starting is of no use to it. */
function givenUp(stopping: AbortSignal | undefined): void {
  if (stopping?.aborted) throw new Error('the desktop container was not started: the worker is stopping');
}

/**
 * Drops whatever comes from `bridge` to this host itself (the gateway, Redis, the worker's
 * ports, the engine): traffic to the host arrives on INPUT, traffic beyond it is forwarded.
 */
async function rejectHostTraffic(bridge: string): Promise<void> {
  for (const tool of ['iptables', 'ip6tables']) {
    const rule = ['INPUT', '-i', bridge, '-j', 'REJECT'];
    const present = await run(tool, ['-w', '-C', ...rule]).then(() => true, () => false);
    if (!present) {
      await run(tool, ['-w', '-I', ...rule]).catch((error: Error) => {
        throw new Error(`cannot keep egress desktops off this host (${tool}: ${error.message.trim()}); egress is refused`);
      });
    }
  }
}

function readIfThere(path: string): string | null {
  if (!existsSync(path)) return null;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** ready.json, checked: it is written by the container, so nothing in it is taken on trust. */
export function parseReady(text: string): ReadyFile {
  const value = JSON.parse(text) as Partial<ReadyFile>;
  const int = (n: unknown, min: number, max: number) => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
  if (
    typeof value.display !== 'string' ||
    !/^:\d{1,4}$/.test(value.display) ||
    !int(value.width, 1, 32768) ||
    !int(value.height, 1, 32768) ||
    !int(value.monitors, 1, 16) ||
    !value.pids ||
    !int(value.pids.xvfb, 1, 2 ** 22) ||
    !int(value.pids.wm, 1, 2 ** 22) ||
    !int(value.pids.panel, 0, 2 ** 22)
  ) {
    throw new Error(`the desktop container wrote an invalid ready.json: ${text.slice(0, 200)}`);
  }
  return value as ReadyFile;
}
