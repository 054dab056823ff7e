/**
 * Brings up a whole deskgate stack on this machine — Redis (private unless REDIS_URL is
 * given), workers with their desktops, gateways (one of each unless `workers`/`gateways` ask
 * for more; they share nothing but Redis) — and two API keys for one tenant: an agent
 * key (MCP) and an operator key (the control API: kill switch, sessions, audit, approvals,
 * metrics). The sandbox (`npm start`) and the end-to-end tests both use it.
 */
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { ApiKeyStore, hashKey, keyRecord } from '../../services/gateway/src/auth/api-keys.ts';
import { keys } from '@deskgate/dispatch';
import { startPrivateRedis, type PrivateRedis } from './redis-server.ts';
import { startService, type ServiceProcess } from './service-process.ts';
import { privateDir, stateDir } from './state-dir.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface StackOptions {
  env?: NodeJS.ProcessEnv;
  tenant?: string;
  /** Use this agent API key instead of minting one (only its hash is stored). */
  apiKey?: string;
  /** Use this operator API key instead of minting one. */
  operatorKey?: string;
  logDir?: string;
  /** Gateways to start (default 1). With DESKGATE_PORT set (not 0), gateway i listens on DESKGATE_PORT + i. */
  gateways?: number;
  /** Workers to start (default 1). */
  workers?: number;
}

export interface Stack {
  /** The first gateway's MCP endpoint. */
  mcpUrl: string;
  /** Every gateway's MCP endpoint, in the order of `gateways`. */
  mcpUrls: string[];
  /** The agent key: drives desktops over MCP. */
  apiKey: string;
  /** The operator key of the same tenant: the control API (kill switch, sessions, audit, approvals, metrics). */
  operatorKey: string;
  tenant: string;
  redisUrl: string;
  logDir: string;
  /** The first gateway and worker. */
  gateway: ServiceProcess;
  worker: ServiceProcess;
  /** Every gateway and worker started (startWorker/startGateway add to these). */
  gateways: ServiceProcess[];
  workers: ServiceProcess[];
  /** Starts one more worker on the same Redis (e.g. after killing one); stopped with the stack. */
  startWorker(): Promise<ServiceProcess>;
  /** Starts one more gateway on the same Redis; resolves with it and its MCP endpoint. */
  startGateway(): Promise<{ gateway: ServiceProcess; mcpUrl: string }>;
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const env = { ...process.env, ...options.env };
  // The services' logs name tenants, sessions and key ids: the owner's alone.
  const logDir = options.logDir ? privateDir(options.logDir) : stateDir('logs');
  const started: { stop(): Promise<void> }[] = [];
  let privateRedis: PrivateRedis | undefined;
  // The services at once (each tears its own part down), then Redis, which they use until they exit.
  const stopAll = async () => {
    await Promise.all(started.splice(0).map((item) => item.stop().catch(() => undefined)));
    await privateRedis?.stop().catch(() => undefined);
  };
  try {
    if (!env.REDIS_URL) {
      privateRedis = await startPrivateRedis();
      env.REDIS_URL = privateRedis.url;
    }
    const redisUrl = env.REDIS_URL!;
    const tenant = options.tenant ?? 'sandbox';
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    let apiKey: string, operatorKey: string;
    try {
      const store = new ApiKeyStore(redis);
      const pinned = async (key: string, keyId: string, role: 'agent' | 'operator') => {
        await redis.hset(keys.apiKeys(), hashKey(key), keyRecord(tenant, keyId, role, `sandbox ${role}`));
        return key;
      };
      apiKey = options.apiKey ? await pinned(options.apiKey, 'k_sandbox', 'agent') : (await store.create(tenant, 'sandbox agent', 'agent')).key;
      operatorKey = options.operatorKey ? await pinned(options.operatorKey, 'k_sandbox_operator', 'operator') : (await store.create(tenant, 'sandbox operator', 'operator')).key;
    } finally {
      redis.disconnect();
    }

    const workers: ServiceProcess[] = [];
    const gateways: ServiceProcess[] = [];
    const mcpUrls: string[] = [];
    // Logs: worker.log and gateway.log for the first of each (as with one of each), then worker-2.log, gateway-2.log, …
    const logName = (name: string, index: number) => `${logDir}/${name}${index === 0 ? '' : `-${index + 1}`}.log`;
    let workersStarted = 0;
    const startWorker = async () => {
      const index = workersStarted++;
      // A fixed health port serves the first worker only; the others pick their own.
      const workerEnv = index === 0 ? env : { ...env, DESKGATE_WORKER_PORT: '0' };
      const worker = await startService<true>({
        name: index === 0 ? 'worker' : `worker-${index + 1}`,
        entry: `${repoRoot}services/worker/src/main.ts`,
        env: workerEnv,
        logFile: logName('worker', index),
        readyWhen: (record) => record.msg === 'worker ready' || undefined,
      });
      started.push(worker.service);
      workers[index] = worker.service;
      return worker.service;
    };
    // The gateway's default port (services/gateway/src/config.ts) when DESKGATE_PORT is not set; 0: each picks a free one.
    const basePort = env.DESKGATE_PORT ? Number(env.DESKGATE_PORT) : 7420;
    let gatewaysStarted = 0;
    const startGateway = async () => {
      const index = gatewaysStarted++;
      const gateway = await startService<string>({
        name: index === 0 ? 'gateway' : `gateway-${index + 1}`,
        entry: `${repoRoot}services/gateway/src/main.ts`,
        env: index > 0 && basePort > 0 ? { ...env, DESKGATE_PORT: String(basePort + index) } : env,
        logFile: logName('gateway', index),
        readyWhen: (record) => (record.msg === 'gateway listening' ? (record.url as string) : undefined),
      });
      started.push(gateway.service);
      gateways[index] = gateway.service;
      mcpUrls[index] = gateway.ready;
      return { gateway: gateway.service, mcpUrl: gateway.ready };
    };
    // Workers start in parallel (each starts its warm desktops), then the gateways.
    const workerCount = Math.max(1, options.workers ?? 1);
    const gatewayCount = Math.max(1, options.gateways ?? 1);
    await startWorker();
    await Promise.all(Array.from({ length: workerCount - 1 }, () => startWorker()));
    await Promise.all(Array.from({ length: gatewayCount }, () => startGateway()));
    return {
      mcpUrl: mcpUrls[0]!,
      mcpUrls,
      apiKey,
      operatorKey,
      tenant,
      redisUrl,
      logDir,
      gateway: gateways[0]!,
      worker: workers[0]!,
      gateways,
      workers,
      startWorker,
      startGateway,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
