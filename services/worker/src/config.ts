/**
 * Worker settings, from environment variables with defaults that make `npm start` work with
 * nothing set. A bad value stops the worker at start with the setting named.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { envFlag as flag, parseEnv, serviceEnv } from '@deskgate/service-kit';
import { launchExtraSchema } from './launch/launch-rules.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const size = z
  .string()
  .regex(/^\d{2,5}x\d{2,5}$/, 'a size is WIDTHxHEIGHT, e.g. 1280x800')
  .transform((value) => {
    const [width, height] = value.split('x').map(Number) as [number, number];
    return { width, height };
  });

const GiB = 1024 ** 3;

/**
 * How many desktops a worker runs when DESKGATE_MAX_DESKTOPS is not set, from the host
 * (docs/desktop.md, "Capacity"): an idle desktop is ~60 MB, but a session is sized for what
 * an agent does with it — a browser, ~0.5–1 GB — so one GiB of memory per desktop, after 1 GiB
 * kept for the system, Redis and deskgate's own services; and at most 4 per core (an agent's
 * desktop is mostly idle between its calls, yet each screenshot costs a capture and an
 * encode). At least 1, at most 64 (the desktop users install.sh creates).
 */
export const CAPACITY = { bytesPerDesktop: GiB, reservedBytes: GiB, perCore: 4, min: 1, max: 64 } as const;

export interface HostResources {
  /** Memory this process may use: the host's, or its cgroup's limit when lower. */
  memoryBytes: number;
  cores: number;
}

export function hostResources(): HostResources {
  const total = totalmem();
  // A container's memory limit (cgroup); unlimited reads as a huge number.
  const limit = process.constrainedMemory?.() ?? 0;
  return { memoryBytes: limit > 0 && limit < total ? limit : total, cores: availableParallelism() };
}

/** The default capacity for a host, and why (the worker logs both). */
export function capacityFor(host: HostResources): { maxDesktops: number; reason: string } {
  const byMemory = Math.max(0, Math.floor((host.memoryBytes - CAPACITY.reservedBytes) / CAPACITY.bytesPerDesktop));
  const byCores = host.cores * CAPACITY.perCore;
  const lower = Math.min(byMemory, byCores);
  const maxDesktops = Math.min(CAPACITY.max, Math.max(CAPACITY.min, lower));
  const bound = maxDesktops === lower ? (byMemory <= byCores ? 'memory' : 'cores') : maxDesktops === CAPACITY.max ? `the cap of ${CAPACITY.max}` : `the floor of ${CAPACITY.min}`;
  const reason =
    `DESKGATE_MAX_DESKTOPS unset: ${(host.memoryBytes / GiB).toFixed(1)} GiB of memory less 1 GiB reserved fits ${byMemory} at 1 GiB each, ` +
    `${host.cores} cores fit ${byCores} at ${CAPACITY.perCore} per core; ${maxDesktops}, set by ${bound}`;
  return { maxDesktops, reason };
}

const schema = z.object({
  ...serviceEnv,
  DESKGATE_WORKER_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/).default(() => `w-${randomUUID().slice(0, 8)}`),
  DESKGATE_DESKTOP_SIZE: size.default({ width: 1280, height: 800 }),
  DESKGATE_DESKTOP_MONITORS: z.coerce.number().int().min(1).max(4).default(1),
  // Empty reads as unset: the host decides.
  DESKGATE_MAX_DESKTOPS: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().min(1).max(256).optional()),
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
  // bare-metal: the machine's own console through helpers already running (docs/macos.md).
  DESKGATE_DESKTOP_PROVIDER: z.enum(['process', 'container', 'bare-metal']).default('process'),
  DESKGATE_DESKTOP_IMAGE: z.string().min(1).default('deskgate/linux-desktop:dev'),
  DESKGATE_CONTAINER_RUN_DIR: z.string().regex(/^\/[^\0]*$/, 'an absolute path').default('/run/deskgate/desktops'),
  DESKGATE_DESKTOP_MEMORY_MB: z.coerce.number().int().min(256).max(65536).default(1024),
  DESKGATE_DESKTOP_CPUS: z.coerce.number().min(0.1).max(64).default(1),
  // The health and metrics server: loopback on a host; 0.0.0.0 in a pod, so that the kubelet's
  // probes and Prometheus reach it (docs/kubernetes.md). An address, never a name.
  DESKGATE_WORKER_HOST: z.union([z.ipv4(), z.ipv6()], { error: 'an IP address to listen on, e.g. 127.0.0.1 or 0.0.0.0' }).default('127.0.0.1'),
  DESKGATE_WORKER_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  // Kubernetes' downward API: set both and the worker keeps its pod's deletion cost (docs/kubernetes.md).
  DESKGATE_POD_NAME: z.string().regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'a pod name (metadata.name)').optional(),
  DESKGATE_POD_NAMESPACE: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a namespace (metadata.namespace)').optional(),
}).refine((c) => (c.DESKGATE_POD_NAME === undefined) === (c.DESKGATE_POD_NAMESPACE === undefined), {
  path: ['DESKGATE_POD_NAME'],
  message: 'DESKGATE_POD_NAME and DESKGATE_POD_NAMESPACE are set together (the downward API) or not at all',
});

export type WorkerConfig = ReturnType<typeof loadConfig>;

const parse = (env: NodeJS.ProcessEnv) => parseEnv('worker', schema, env);

let launch: { desktopDir: string; launchExtra: Map<string, string[]> } | null = null;

/** What open_application's lookup needs, from this process's environment (read once). */
export function launchSettings() {
  if (!launch) {
    const c = parse(process.env);
    launch = { desktopDir: c.DESKGATE_DESKTOP_DIR, launchExtra: c.DESKGATE_LAUNCH_EXTRA };
  }
  return launch;
}

/** `host`: the machine's memory and cores, which the default capacity comes from. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, host: HostResources = hostResources()) {
  const c = parse(env);
  const capacity = c.DESKGATE_MAX_DESKTOPS === undefined ? capacityFor(host) : { maxDesktops: c.DESKGATE_MAX_DESKTOPS, reason: 'DESKGATE_MAX_DESKTOPS' };
  return {
    redisUrl: c.REDIS_URL,
    workerId: c.DESKGATE_WORKER_ID,
    desktopSize: c.DESKGATE_DESKTOP_SIZE,
    /** Side-by-side monitors per desktop, each of desktopSize. */
    desktopMonitors: c.DESKGATE_DESKTOP_MONITORS,
    /** Desktops this worker runs at once (spares included). */
    maxDesktops: capacity.maxDesktops,
    /** Where maxDesktops comes from: the setting, or the host's memory and cores. */
    maxDesktopsReason: capacity.reason,
    warmDesktops: Math.min(c.DESKGATE_WARM_DESKTOPS, capacity.maxDesktops),
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
    /** Where desktops run: local processes, one container each (docs/containers.md), or the machine's own console (docs/macos.md). */
    desktopProvider: c.DESKGATE_DESKTOP_PROVIDER,
    /** The container provider's settings; its pids limit is desktopMaxProcesses. */
    container: {
      image: c.DESKGATE_DESKTOP_IMAGE,
      /** Host folder holding each container's run folder (its sockets and cookie); the same path inside a worker container. */
      runDir: c.DESKGATE_CONTAINER_RUN_DIR,
      memoryBytes: c.DESKGATE_DESKTOP_MEMORY_MB * 1024 * 1024,
      cpus: c.DESKGATE_DESKTOP_CPUS,
    },
    /** Where /healthz, /readyz and /metrics listen (port 0: any free port). */
    health: { host: c.DESKGATE_WORKER_HOST, port: c.DESKGATE_WORKER_PORT },
    /** This worker's pod, in Kubernetes: it keeps the pod's deletion cost; null elsewhere (off). */
    pod: c.DESKGATE_POD_NAME && c.DESKGATE_POD_NAMESPACE ? { name: c.DESKGATE_POD_NAME, namespace: c.DESKGATE_POD_NAMESPACE } : null,
    logLevel: c.DESKGATE_LOG_LEVEL,
    /** SIGTERM lets running calls finish for this long. */
    drainMs: c.DESKGATE_DRAIN_SECONDS * 1000,
  };
}
