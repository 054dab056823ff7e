/**
 * Runs a deskgate service as a child in its own process group (so everything it starts —
 * Xvfb, helpers — can be stopped together) and waits for a pino log line that says it is up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ServiceProcess {
  name: string;
  process: ChildProcess;
  /** Its log file. */
  logFile: string;
  /** Resolves with the exit code (null when a signal ended it) once it has exited. */
  exited: Promise<number | null>;
  /** Stops it at once (SIGINT: no drain), then kills its process group. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  /** Resolves with the first log record for which this returns a value. */
  readyWhen: (record: Record<string, unknown>) => unknown;
  timeoutMs?: number;
  /** How long it has to exit after SIGINT before its process group is killed. */
  stopGraceMs?: number;
}

/** A worker stops in well under a second when idle, ~1–2 s with calls running and apps open. */
const STOP_GRACE_MS = 4000;

export async function startService<T>(options: ServiceOptions): Promise<{ service: ServiceProcess; ready: T }> {
  // DESKGATE_NODE_ARGS: extra Node flags for the services (e.g. --cpu-prof, which NODE_OPTIONS refuses).
  const nodeArgs = options.env.DESKGATE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', options.entry], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const log = createWriteStream(options.logFile, { flags: 'a' });
  child.stderr!.pipe(log, { end: false });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return killGroup(child, 'SIGKILL');
    // SIGINT: the service stops without draining (SIGTERM would let calls running finish,
    // up to DESKGATE_DRAIN_SECONDS) and tears its desktops down (a worker within ~1 s, its
    // calls answered); the group kill catches any leftover, and one that hangs.
    child.kill('SIGINT');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), options.stopGraceMs ?? STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    killGroup(child, 'SIGKILL');
  };
  const ready = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.name} did not start within ${(options.timeoutMs ?? 60_000) / 1000} s; see ${options.logFile}`)), options.timeoutMs ?? 60_000);
    child.once('exit', (code) => reject(new Error(`${options.name} exited with ${code} before it was ready; see ${options.logFile}`)));
    const lines = createInterface({ input: child.stdout! });
    let settled = false;
    lines.on('line', (line) => {
      log.write(`${line}\n`);
      if (settled) return;
      try {
        const value = options.readyWhen(JSON.parse(line) as Record<string, unknown>);
        if (value !== undefined && value !== false) {
          settled = true;
          clearTimeout(timer);
          resolve(value as T);
        }
      } catch {
        // not a JSON log line
      }
    });
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  return { service: { name: options.name, process: child, logFile: options.logFile, exited, stop }, ready };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
