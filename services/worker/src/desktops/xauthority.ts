/**
 * A display's X cookie. Each desktop gets a random MIT-MAGIC-COOKIE-1 in an Xauthority file of
 * its own; Xvfb is started with `-auth <file>` and refuses every client without the cookie.
 *
 * Xvfb picks its display number itself (-displayfd), so the number is unknown when the file is
 * written: it starts as one wildcard entry (FamilyWild, no address, no number), which the
 * server loads whatever its number and libXau clients match for any display. Once the number
 * is known, an entry for this host and display is added for clients that match only exact
 * entries (python-xlib). The file is per desktop: its cookie never reaches another display.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

const FAMILY_WILD = 0xffff;
const FAMILY_LOCAL = 256;
const COOKIE_NAME = 'MIT-MAGIC-COOKIE-1';

function field(data: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(data.length);
  return Buffer.concat([length, data]);
}

/** One Xauthority entry in the file format of libXau; without a display, a wildcard. */
export function xauthorityEntry(cookie: Buffer, display?: { host: string; number: string }): Buffer {
  const family = Buffer.alloc(2);
  family.writeUInt16BE(display ? FAMILY_LOCAL : FAMILY_WILD);
  const address = Buffer.from(display?.host ?? '');
  const number = Buffer.from(display?.number ?? '');
  return Buffer.concat([family, field(address), field(number), field(Buffer.from(COOKIE_NAME)), field(cookie)]);
}

/** Writes a fresh random cookie to a new file at `path` (mode 0600) and returns it. */
export function writeXauthority(path: string): Buffer {
  const cookie = randomBytes(16);
  writeFileSync(path, xauthorityEntry(cookie), { mode: 0o600, flag: 'wx' });
  return cookie;
}

/** Adds the entry for display `:number` of this host, once the server has picked it. */
export function addDisplayEntry(path: string, cookie: Buffer, display: string): void {
  appendFileSync(path, xauthorityEntry(cookie, { host: hostname(), number: display.replace(/^:/, '').split('.')[0]! }));
}
