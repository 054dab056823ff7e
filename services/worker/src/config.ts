/**
 * Worker settings, from environment variables with defaults that make `npm start` work with
 * nothing set. A bad value stops the worker at start with the setting named.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const size = z
  .string()
  .regex(/^\d{2,5}x\d{2,5}$/, 'a size is WIDTHxHEIGHT, e.g. 1280x800')
  .transform((value) => {
    const [width, height] = value.split('x').map(Number) as [number, number];
    return { width, height };
  });

const schema = z.object({
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  DESKGATE_WORKER_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/).default(() => `w-${randomUUID().slice(0, 8)}`),
  DESKGATE_DESKTOP_SIZE: size.default({ width: 1280, height: 800 }),
  DESKGATE_DESKTOP_MONITORS: z.coerce.number().int().min(1).max(4).default(1),
  DESKGATE_MAX_DESKTOPS: z.coerce.number().int().min(1).max(256).default(4),
  DESKGATE_WARM_DESKTOPS: z.coerce.number().int().min(0).max(64).default(1),
  DESKGATE_SESSION_IDLE_SECONDS: z.coerce.number().int().min(10).max(7 * 24 * 3600).default(1800),
  DESKGATE_WINDOW_MANAGER: z.string().default('openbox'),
  DESKGATE_CAPTURE_BIN: z.string().default(`${repoRoot}helpers/linux-capture/target/release/deskgate-capture`),
  DESKGATE_PYTHON: z.string().default('/usr/bin/python3'),
  DESKGATE_RUNTIME_DIR: z.string().default(`${repoRoot}runtime`),
  DESKGATE_POLICY_FILE: z.string().optional(),
  DESKGATE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type WorkerConfig = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid worker configuration — ${problems.join('; ')}`);
  }
  const c = parsed.data;
  return {
    redisUrl: c.REDIS_URL,
    workerId: c.DESKGATE_WORKER_ID,
    desktopSize: c.DESKGATE_DESKTOP_SIZE,
    /** Side-by-side monitors per desktop, each of desktopSize. */
    desktopMonitors: c.DESKGATE_DESKTOP_MONITORS,
    maxDesktops: c.DESKGATE_MAX_DESKTOPS,
    warmDesktops: Math.min(c.DESKGATE_WARM_DESKTOPS, c.DESKGATE_MAX_DESKTOPS),
    sessionIdleMs: c.DESKGATE_SESSION_IDLE_SECONDS * 1000,
    windowManager: c.DESKGATE_WINDOW_MANAGER,
    captureBin: c.DESKGATE_CAPTURE_BIN,
    python: c.DESKGATE_PYTHON,
    runtimeDir: c.DESKGATE_RUNTIME_DIR,
    policyFile: c.DESKGATE_POLICY_FILE,
    logLevel: c.DESKGATE_LOG_LEVEL,
  };
}
