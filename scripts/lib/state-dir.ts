/**
 * `.deskgate/`: the local state of the sandbox and the tests — the private Redis's data (every
 * session's calls, typed text included, and screenshots in its append-only file) and the
 * services' logs. Desktops of the process provider run as other users on this same
 * host, so the folder and what is made in it are the owner's alone (0700), whatever the umask.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const STATE_ROOT = fileURLToPath(new URL('../../.deskgate/', import.meta.url));

/** Makes `dir` (and any missing parent) readable by its owner only; returns it. */
export function privateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/** A folder under `.deskgate/`, with `.deskgate/` itself closed to other users. */
export function stateDir(...parts: string[]): string {
  privateDir(STATE_ROOT);
  return privateDir(`${STATE_ROOT}${parts.join('/')}`);
}
