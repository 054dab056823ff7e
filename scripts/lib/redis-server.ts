/**
 * A private redis-server on loopback for the sandbox and tests when no REDIS_URL is given.
 *
 * It persists like a production Redis should (docs/redis.md): an append-only file, fsynced
 * every second, in a data directory of its own (`.deskgate/redis/<port>` by default). So it
 * can be stopped and started again on the same port and data (`stopServer()`, `startAgain()`,
 * `restart()`) and keeps every key, session and kill switch. `stop()` stops it for good and
 * removes the data directory unless it was given one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { privateDir, stateDir } from './state-dir.ts';

const STOP_GRACE_MS = 2000;
const START_TIMEOUT_MS = 10_000;

export interface PrivateRedisOptions {
  /** Where the append-only file lives; kept by stop(). Default: `.deskgate/redis/<port>`, removed by stop(). */
  dataDir?: string;
}

export interface PrivateRedis {
  url: string;
  port: number;
  dataDir: string;
  /** The running redis-server (the latest one after startAgain()). */
  readonly process: ChildProcess;
  /** Stops it for good (and removes its data directory unless one was given). */
  stop(): Promise<void>;
  /**
   * Stops the server and keeps its data, as an outage would: SIGTERM (the default) flushes the
   * append-only file first; SIGKILL is a crash, which may lose the last second of writes.
   */
  stopServer(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts it again on the same port with the same data; resolves once it answers PING. */
  startAgain(): Promise<void>;
  /** stopServer() then startAgain(). */
  restart(): Promise<void>;
}

export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const dataDir = options.dataDir ?? `${stateDir('redis')}/${port}`;
  const ownsDataDir = options.dataDir === undefined;
  if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
  // Its append-only file holds every call and screenshot: no other user may read it.
  privateDir(dataDir);
  const url = `redis://127.0.0.1:${port}`;
  let child = await launch(port, dataDir, url);

  const stopServer = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    const running = child;
    if (running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    // With little data it flushes and exits at once; SIGKILL if it does not.
    const timer = setTimeout(() => running.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  const startAgain = async () => {
    if (child.exitCode === null && child.signalCode === null) return;
    child = await launch(port, dataDir, url);
  };
  return {
    url,
    port,
    dataDir,
    get process() {
      return child;
    },
    async stop() {
      await stopServer();
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    stopServer,
    startAgain,
    async restart() {
      await stopServer();
      await startAgain();
    },
  };
}

async function launch(port: number, dataDir: string, url: string): Promise<ChildProcess> {
  // A process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group) must not
  // stop Redis under the services still shutting down; the stack stops it last.
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--protected-mode', 'yes',
    '--dir', dataDir,
    '--save', '',
    '--appendonly', 'yes',
    '--appendfsync', 'everysec',
    '--maxmemory-policy', 'noeviction',
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore', detached: true });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`cannot start redis-server: ${error.message} (install the redis-server package)`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  failed.catch(() => undefined);
  const until = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableReadyCheck: true });
    client.on('error', () => undefined);
    // Ready only once the append-only file is loaded (PING answers LOADING before).
    const ok = await Promise.race([client.connect().then(() => client.ping()).then(() => true, () => false), failed]);
    client.disconnect();
    if (ok) return child;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer within ${START_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
