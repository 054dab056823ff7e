/**
 * Starting Xvfb as the desktop's user, with the desktop's cookie. Xvfb picks a free display
 * number itself (-displayfd), so concurrent workers and test runs never collide; it listens on
 * its Unix socket only, and refuses every client without the cookie except local root (the
 * worker that supervises it, which can read every cookie anyway).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { execFileAsync, terminate } from './child-process.ts';

const START_TIMEOUT_MS = 10_000;
const SOCKET_DIR = '/tmp/.X11-unix';

/** The socket folder must exist, sticky and world-writable, before an unprivileged Xvfb starts. */
function ensureSocketDir(): void {
  try {
    mkdirSync(SOCKET_DIR, { mode: 0o1777 });
    chmodSync(SOCKET_DIR, 0o1777);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export interface StartedXvfb {
  process: ChildProcess;
  display: string;
}

export async function startXvfb(runAs: (command: string[]) => string[], env: Record<string, string>, xauthority: string, width: number, height: number): Promise<StartedXvfb> {
  ensureSocketDir();
  const [command, ...args] = runAs(['Xvfb', '-displayfd', '3', '-auth', xauthority, '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-noreset', '+extension', 'RANDR']);
  const xvfb = spawn(command!, args, { env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  xvfb.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const number = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb did not report a display within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(out.trim());
      }
    });
    xvfb.once('error', (error) => reject(new Error(`cannot start Xvfb: ${error.message} (is the xvfb package installed?)`)));
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}: ${stderr.trim()}`)));
  }).catch(async (error: Error) => {
    await terminate(xvfb);
    throw error;
  });
  const display = `:${number}`;
  try {
    // The worker (root) may connect without the cookie: it supervises the display.
    if (process.getuid?.() === 0) await execFileAsync('xhost', ['+si:localuser:root'], { env: { ...env, DISPLAY: display } });
  } catch (error) {
    await terminate(xvfb);
    throw new Error(`cannot set the access list of ${display} with xhost (is x11-xserver-utils installed?): ${(error as Error).message}`);
  }
  return { process: xvfb, display };
}

/** Removes the lock and socket a killed Xvfb of `uid` left behind. */
export function removeDisplayLeftovers(display: string, uid: number | undefined): void {
  const number = display.slice(1);
  for (const path of [`/tmp/.X${number}-lock`, `${SOCKET_DIR}/X${number}`]) {
    try {
      if (uid === undefined || lstatSync(path).uid === uid) rmSync(path, { force: true });
    } catch {
      // Not there.
    }
  }
}
