/**
 * Brings up a whole deskgate stack on this machine — Redis (private unless REDIS_URL is
 * given), a worker with its desktop, the gateway — and two API keys for one tenant: an agent
 * key (MCP) and an operator key (the control API: kill switch, sessions, audit, approvals,
 * metrics). The sandbox (`npm start`) and the end-to-end tests both use it.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { ApiKeyStore, hashKey, keyRecord } from '../../services/gateway/src/auth/api-keys.ts';
import { keys } from '@deskgate/dispatch';
import { startPrivateRedis, type PrivateRedis } from './redis-server.ts';
import { startService, type ServiceProcess } from './service-process.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface StackOptions {
  env?: NodeJS.ProcessEnv;
  tenant?: string;
  /** Use this agent API key instead of minting one (only its hash is stored). */
  apiKey?: string;
  /** Use this operator API key instead of minting one. */
  operatorKey?: string;
  logDir?: string;
}

export interface Stack {
  mcpUrl: string;
  /** The agent key: drives desktops over MCP. */
  apiKey: string;
  /** The operator key of the same tenant: the control API (kill switch, sessions, audit, approvals, metrics). */
  operatorKey: string;
  tenant: string;
  redisUrl: string;
  logDir: string;
  gateway: ServiceProcess;
  worker: ServiceProcess;
  /** Starts one more worker on the same Redis (e.g. after killing one); stopped with the stack. */
  startWorker(): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const env = { ...process.env, ...options.env };
  const logDir = options.logDir ?? `${repoRoot}.deskgate/logs`;
  mkdirSync(logDir, { recursive: true });
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

    const startWorker = async () => {
      const worker = await startService<true>({
        name: 'worker',
        entry: `${repoRoot}services/worker/src/main.ts`,
        env,
        logFile: `${logDir}/worker.log`,
        readyWhen: (record) => record.msg === 'worker ready' || undefined,
      });
      started.push(worker.service);
      return worker.service;
    };
    const worker = await startWorker();
    const gateway = await startService<string>({
      name: 'gateway',
      entry: `${repoRoot}services/gateway/src/main.ts`,
      env,
      logFile: `${logDir}/gateway.log`,
      readyWhen: (record) => (record.msg === 'gateway listening' ? (record.url as string) : undefined),
    });
    started.push(gateway.service);
    return { mcpUrl: gateway.ready, apiKey, operatorKey, tenant, redisUrl, logDir, gateway: gateway.service, worker, startWorker, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
