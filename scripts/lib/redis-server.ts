/**
 * A private, throwaway redis-server on loopback (no persistence), for the sandbox and tests
 * when no REDIS_URL is given.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

const STOP_GRACE_MS = 1000;

export interface PrivateRedis {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  // A process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group) must not
  // stop Redis under the services still shutting down; the stack stops it last.
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
    stdio: 'ignore',
    detached: true,
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`cannot start redis-server: ${error.message} (install the redis-server package)`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  const url = `redis://127.0.0.1:${port}`;
  const until = Date.now() + 10_000;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    const ok = await Promise.race([client.connect().then(() => client.ping()).then(() => true, () => false), failed]);
    client.disconnect();
    if (ok) break;
    if (Date.now() > until) throw new Error('redis-server did not answer within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  failed.catch(() => undefined);
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // It persists nothing, so it exits at once; SIGKILL if it does not.
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
