/**
 * A long-lived helper child process spoken to with in-order request/response frames. It is
 * started once per desktop, never per action; when it dies, the calls in flight fail with a
 * clear error and it is started again, so the next call works.
 */
import { spawn, type ChildProcess } from 'node:child_process';
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

export interface HelperSpec {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export abstract class HelperProcess<Response> {
  private child: ChildProcess | null = null;
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

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get restartCount(): number {
    return this.restarts;
  }

  start(): void {
    clearTimeout(this.restartTimer);
    const child = spawn(this.spec.command, this.spec.args, {
      env: this.spec.env,
      cwd: this.spec.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.resetDecoder();
    child.stdout!.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.log.debug({ helper: this.spec.name, stderr: chunk.toString().trim() }));
    child.stdin!.on('error', () => undefined);
    child.on('error', (error) => this.log.error({ helper: this.spec.name, err: error }, 'helper failed to start'));
    child.on('exit', (code, signal) => this.onExit(child, code, signal));
    this.onStart(child.pid);
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    const pending = this.waiters.splice(0);
    for (const waiter of pending) {
      waiter.reject(new HelperError('helper_died', `the ${this.spec.name} helper stopped (${signal ?? `exit ${code}`}) during the call; it is being restarted`));
    }
    if (this.stopped) return;
    this.restarts++;
    this.log.warn({ helper: this.spec.name, code, signal, restarts: this.restarts }, 'helper exited; restarting');
    // Back off a little when a helper keeps dying, but restart at once the first times.
    this.restartTimer = setTimeout(() => !this.stopped && this.start(), Math.min(50 * 2 ** Math.max(0, this.restarts - 3), 2000));
  }

  protected request(message: Record<string, unknown>): Promise<Response> {
    // A call that finds the helper dead starts it now instead of waiting for the back-off.
    if (!this.child && !this.stopped) this.start();
    const child = this.child;
    if (!child || !child.stdin!.writable) {
      return Promise.reject(new HelperError('helper_unavailable', `the ${this.spec.name} helper is restarting; try again`));
    }
    return new Promise<Response>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      child.stdin!.write(this.encode({ id: this.nextId++, ...message }));
    });
  }

  /** Called by the subclass decoder for each complete response, in order. */
  protected deliver(response: Response): void {
    this.waiters.shift()?.resolve(response);
  }

  protected abstract encode(message: Record<string, unknown>): Buffer;
  protected abstract onData(chunk: Buffer): void;
  protected abstract resetDecoder(): void;

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 1000);
    await exited;
    clearTimeout(timer);
  }
}
