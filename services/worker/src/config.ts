/**
 * Worker settings, from environment variables with defaults that make `npm start` work with
 * nothing set. A bad value stops the worker at start with the setting named.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { launchExtraSchema } from './launch/launch-rules.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const size = z
  .string()
  .regex(/^\d{2,5}x\d{2,5}$/, 'a size is WIDTHxHEIGHT, e.g. 1280x800')
  .transform((value) => {
    const [width, height] = value.split('x').map(Number) as [number, number];
    return { width, height };
  });

const flag = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => ['true', '1', 'yes'].includes(value));

const schema = z.object({
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  DESKGATE_WORKER_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/).default(() => `w-${randomUUID().slice(0, 8)}`),
  DESKGATE_DESKTOP_SIZE: size.default({ width: 1280, height: 800 }),
  DESKGATE_DESKTOP_MONITORS: z.coerce.number().int().min(1).max(4).default(1),
  DESKGATE_MAX_DESKTOPS: z.coerce.number().int().min(1).max(256).default(4),
  DESKGATE_WARM_DESKTOPS: z.coerce.number().int().min(0).max(64).default(1),
  DESKGATE_SESSION_IDLE_SECONDS: z.coerce.number().int().min(10).max(7 * 24 * 3600).default(1800),
  DESKGATE_WINDOW_MANAGER: z.string().default('openbox'),
  DESKGATE_DESKTOP_USER: z.string().regex(/^[a-z_][a-z0-9_-]{0,24}$/, 'a user name prefix, e.g. deskgate-desktop').default('deskgate-desktop'),
  DESKGATE_DESKTOP_MAX_PROCESSES: z.coerce.number().int().min(64).max(65536).default(512),
  DESKGATE_DESKTOP_DIR: z.string().default(`${repoRoot}desktop`),
  DESKGATE_DESKTOP_PANEL: flag.default(true),
  DESKGATE_LAUNCH_EXTRA: launchExtraSchema.default(new Map()),
  DESKGATE_CAPTURE_BIN: z.string().default(`${repoRoot}helpers/linux-capture/target/release/deskgate-capture`),
  DESKGATE_PYTHON: z.string().default('/usr/bin/python3'),
  DESKGATE_RUNTIME_DIR: z.string().default(`${repoRoot}runtime`),
  DESKGATE_POLICY_FILE: z.string().optional(),
  DESKGATE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type WorkerConfig = ReturnType<typeof loadConfig>;

function parse(env: NodeJS.ProcessEnv) {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid worker configuration — ${problems.join('; ')}`);
  }
  return parsed.data;
}

let launch: { desktopDir: string; launchExtra: Map<string, string[]> } | null = null;

/** What open_application's lookup needs, from this process's environment (read once). */
export function launchSettings() {
  if (!launch) {
    const c = parse(process.env);
    launch = { desktopDir: c.DESKGATE_DESKTOP_DIR, launchExtra: c.DESKGATE_LAUNCH_EXTRA };
  }
  return launch;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = parse(env);
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
    /** Desktops run as `<desktopUser>-N` (one per slot), created by scripts/install.sh. */
    desktopUser: c.DESKGATE_DESKTOP_USER,
    /** Processes and threads one desktop may run (its user's RLIMIT_NPROC; launches refused beyond). */
    desktopMaxProcesses: c.DESKGATE_DESKTOP_MAX_PROCESSES,
    /** deskgate's openbox, panel and .desktop files. */
    desktopDir: c.DESKGATE_DESKTOP_DIR,
    desktopPanel: c.DESKGATE_DESKTOP_PANEL,
    /** Commands open_application may start besides the desktop's apps, by app name. */
    launchExtra: c.DESKGATE_LAUNCH_EXTRA,
    captureBin: c.DESKGATE_CAPTURE_BIN,
    python: c.DESKGATE_PYTHON,
    runtimeDir: c.DESKGATE_RUNTIME_DIR,
    policyFile: c.DESKGATE_POLICY_FILE,
    logLevel: c.DESKGATE_LOG_LEVEL,
  };
}
