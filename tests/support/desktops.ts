/** Looks behind the gateway, for assertions only: which desktop a session holds, and its helpers. */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';

/** How a test's own X client reaches a desktop's display. */
export interface XTarget {
  display: string;
  /** The display's cookie file (its X server refuses clients without it, local root aside). */
  xauthority?: string;
  /**
   * The argument vector prefix that runs a command where the display is: nothing for a process
   * desktop; for a container desktop, `nsenter` into its network namespace, where its X server's
   * abstract socket is (a root-only test convenience: the worker itself never does this).
   */
  enter: string[];
}

export interface DesktopFacts extends XTarget {
  id: string;
  workerId: string;
  provider: 'process' | 'container';
  /** The helpers' pids (0 for a container desktop's: they run inside it). */
  capturePid: number;
  inputPid: number;
  /** A container desktop's container name and the host pid of its init. */
  container?: string;
  hostPid?: number;
}

export async function desktopOf(redis: Redis, tenant: string, session: string): Promise<DesktopFacts> {
  const id = await redis.hget(keys.session(tenant, session), 'desktopId');
  if (!id) throw new Error(`session ${tenant}/${session} holds no desktop`);
  const record = await redis.hgetall(keys.desktop(id));
  const provider = record.provider === 'container' ? 'container' : 'process';
  const hostPid = Number(record.hostPid ?? 0);
  return {
    id,
    display: record.display!,
    workerId: record.workerId!,
    provider,
    capturePid: Number(record.capturePid),
    inputPid: Number(record.inputPid),
    ...(record.xauthority ? { xauthority: record.xauthority } : {}),
    enter: provider === 'container' ? ['nsenter', `--net=/proc/${hostPid}/ns/net`, '--'] : [],
    ...(provider === 'container' ? { container: record.container!, hostPid } : {}),
  };
}

/** A display given as a name alone is a process desktop's (or any X server on this host). */
export function xTarget(target: string | XTarget): XTarget {
  return typeof target === 'string' ? { display: target, enter: [] } : target;
}

/** `command` run against the target's display: the argv to spawn, and its environment. */
export function onDisplay(target: string | XTarget, command: string[]): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const { display, xauthority, enter } = xTarget(target);
  const [file, ...args] = [...enter, ...command];
  return { file: file!, args, env: { ...process.env, DISPLAY: display, ...(xauthority ? { XAUTHORITY: xauthority } : {}) } };
}

/** A process's environment, from /proc (a desktop's helpers carry its HOME, DISPLAY, cookie). */
export function environOf(pid: number): Map<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}
