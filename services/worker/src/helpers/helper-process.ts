/**
 * A long-lived helper spoken to with in-order request/response frames: a child process of the
 * worker (stdin/stdout), or a helper inside a desktop container reached over the Unix socket
 * it listens on (docs/containers.md). It is started (or connected) once per desktop, never per
 * action; when it dies or the connection drops, the calls in flight fail with a clear error and
 * it is started (or connected) again, so the next call works.
 */
import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import type { Logger } from 'pino';

export class HelperError extends Error {
  override readonly name = 'HelperError';
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

interface Waiter<R> {
  resolve: (response: R) => void;
  reject: (error: Error) => void;
}

/** A helper the worker runs itself, speaking on its stdin/stdout. */
export interface SpawnedHelper {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

/** A helper running elsewhere (a desktop container), listening on a Unix socket. */
export interface ListeningHelper {
  socket: string;
}

export type HelperTransport = SpawnedHelper | ListeningHelper;

export type HelperSpec = HelperTransport & { name: string };

/** One live connection to a helper: a child's pipes or a socket. */
interface Link {
  write(frame: Buffer): boolean;
  /** Ends the link; resolves once it is closed (a child: exited, killed after 1 s). */
  close(): Promise<void>;
  /** Cuts the link at once (a child is killed): it broke the protocol. */
  destroy(): void;
  readonly pid: number | undefined;
}

/** Between two failed connections to a listening helper (its supervisor restarts it). */
const RECONNECT_MS = 100;

export abstract class HelperProcess<Response> {
  private link: Link | null = null;
  private readonly waiters: Waiter<Response>[] = [];
  private stopped = false;
  private restarts = 0;
  private nextId = 1;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Told the new pid after every (re)start, so the desktop record can show it. */
  onStart: (pid: number | undefined) => void = () => undefined;

  constructor(
    protected readonly spec: HelperSpec,
    protected readonly log: Logger,
  ) {}

  /** The helper's pid: the worker's child's, or 0 for a helper reached over a socket. */
  get pid(): number | undefined {
    return this.link?.pid;
  }

  get restartCount(): number {
    return this.restarts;
  }

  start(): void {
    clearTimeout(this.restartTimer);
    this.resetDecoder();
    this.link = 'socket' in this.spec ? this.connect(this.spec.socket) : this.spawnChild(this.spec);
    this.onStart(this.link.pid);
  }

  private spawnChild(spec: SpawnedHelper): Link {
    const child = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const link: Link = {
      pid: child.pid,
      write: (frame) => child.stdin!.writable && child.stdin!.write(frame) !== undefined,
      close: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.stdin!.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 1000);
        await exited;
        clearTimeout(timer);
      },
      destroy: () => void child.kill('SIGKILL'),
    };
    child.stdout!.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.log.debug({ helper: this.spec.name, stderr: chunk.toString().trim() }));
    child.stdin!.on('error', () => undefined);
    child.on('error', (error) => this.log.error({ helper: this.spec.name, err: error }, 'helper failed to start'));
    child.on('exit', (code, signal) => this.onLost(link, signal ?? `exit ${code}`));
    return link;
  }

  private connect(path: string): Link {
    const socket = createConnection(path);
    socket.setNoDelay?.(true);
    let closed = false;
    const link: Link = {
      pid: 0,
      write: (frame) => !closed && socket.writable && socket.write(frame) !== undefined,
      close: async () => {
        if (closed) return;
        const gone = new Promise((resolve) => socket.once('close', resolve));
        socket.end();
        const timer = setTimeout(() => socket.destroy(), 1000);
        await gone;
        clearTimeout(timer);
      },
      destroy: () => void socket.destroy(),
    };
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.log.debug({ helper: this.spec.name, err: error }, 'helper connection error'));
    socket.on('close', () => {
      closed = true;
      this.onLost(link, 'its connection closed');
    });
    return link;
  }

  private onLost(link: Link, why: string): void {
    if (this.link !== link) return;
    this.link = null;
    const pending = this.waiters.splice(0);
    for (const waiter of pending) {
      waiter.reject(new HelperError('helper_died', `the ${this.spec.name} helper stopped (${why}) during the call; it is being restarted`));
    }
    if (this.stopped) return;
    this.restarts++;
    this.log.warn({ helper: this.spec.name, why, restarts: this.restarts }, 'helper lost; restarting');
    // Back off a little when a helper keeps dying, but restart at once the first times; a
    // listening helper is restarted by its supervisor, so its socket gets a moment first.
    const backOff = Math.min(50 * 2 ** Math.max(0, this.restarts - 3), 2000);
    this.restartTimer = setTimeout(() => !this.stopped && this.start(), 'socket' in this.spec ? Math.max(RECONNECT_MS, backOff) : backOff);
  }

  protected request(message: Record<string, unknown>): Promise<Response> {
    let frame: Buffer;
    try {
      // Checked against the protocol's contract before anything is sent.
      frame = this.encode({ id: this.nextId++, ...message });
    } catch (error) {
      return Promise.reject(new HelperError(this.refusedKind, error instanceof Error ? error.message : String(error)));
    }
    // A call that finds the helper dead starts it now instead of waiting for the back-off.
    if (!this.link && !this.stopped) this.start();
    const link = this.link;
    return new Promise<Response>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!link || !link.write(frame)) {
        this.waiters.pop();
        reject(new HelperError('helper_unavailable', `the ${this.spec.name} helper is restarting; try again`));
      }
    });
  }

  /**
   * The helper broke its protocol (a frame over its limits, an answer of the wrong shape): the
   * link is cut, the calls in flight fail, and the helper is started (or connected) again.
   * Nothing a helper sends is taken on trust: a container's helpers run beside the agent's apps.
   */
  protected abandon(reason: string): void {
    this.log.error({ helper: this.spec.name, reason }, 'helper broke its protocol; dropping it');
    this.link?.destroy();
  }

  /** Called by the subclass decoder for each complete response, in order. */
  protected deliver(response: Response): void {
    this.waiters.shift()?.resolve(response);
  }

  /** The helper's error kind for a request its contract refuses (nothing is sent). */
  protected abstract readonly refusedKind: string;
  /** The request's frame; throws on a request the helper would refuse. */
  protected abstract encode(message: Record<string, unknown>): Buffer;
  protected abstract onData(chunk: Buffer): void;
  protected abstract resetDecoder(): void;

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.link?.close();
  }
}
