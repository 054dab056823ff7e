/**
 * Settings from environment variables, parsed by a zod schema: every service reads its
 * environment the same way and stops at start with the same message naming each bad setting.
 * The settings every service has (Redis, log level, drain bound) are defined once here.
 */
import { z } from 'zod';

/** `true`/`false` and their usual spellings. */
export const envFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** A comma-separated list; blanks dropped. */
export const envList = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()).filter(Boolean))
  .optional();

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The longest drain a service accepts: SIGTERM lets work in flight finish for up to this. */
export const MAX_DRAIN_SECONDS = 600;

/** What every deskgate service process reads. */
export const serviceEnv = {
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  DESKGATE_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** How long a drain (SIGTERM) lets work in flight finish; empty reads as unset. */
  DESKGATE_DRAIN_SECONDS: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().min(0).max(MAX_DRAIN_SECONDS).default(10)),
};

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

/** Parses `env` with `schema`; a SettingsError names every bad setting, e.g. "Invalid gateway configuration — DESKGATE_PORT: …". */
export function parseEnv<Schema extends z.ZodType>(service: string, schema: Schema, env: NodeJS.ProcessEnv): z.output<Schema> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new SettingsError(`Invalid ${service} configuration — ${problems.join('; ')}`);
}
