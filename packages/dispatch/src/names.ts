import { z } from 'zod';

/** Tenant ids and session names: short, URL-safe, and free of Redis key separators. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const tenantId = z.string().regex(NAME_PATTERN, 'a tenant id is 1–64 characters of letters, digits, ".", "_" or "-"');
export const sessionName = z
  .string()
  .regex(NAME_PATTERN, 'a session name is 1–64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit');

/** The optional Deskgate-Controller header: tells apart several agents sharing one API key. */
export const controllerLabel = z
  .string()
  .regex(NAME_PATTERN, 'the Deskgate-Controller header is 1–64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit');

export const DEFAULT_SESSION = 'default';

export interface SessionRef {
  tenant: string;
  name: string;
}
