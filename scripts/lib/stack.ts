/**
 * Brings up a whole deskgate stack on this machine — Redis (private unless REDIS_URL is
 * given), a worker with its desktop, the gateway — and an API key for one tenant. The
 * sandbox (`npm start`) and the end-to-end tests both use it.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { ApiKeyStore, hashKey } from '../../services/gateway/src/auth/api-keys.ts';
import { keys } from '@deskgate/dispatch';
import { startPrivateRedis, type PrivateRedis } from './redis-server.ts';
import { startService, type ServiceProcess } from './service-process.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface StackOptions {
  env?: NodeJS.ProcessEnv;
  tenant?: string;
  /** Use this API key instead of minting one (only its hash is stored). */
  apiKey?: string;
  logDir?: string;
}

export interface Stack {
  mcpUrl: string;
  apiKey: string;
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
  const stopAll = async () => {
    for (const item of started.reverse()) await item.stop().catch(() => undefined);
  };
  try {
    let privateRedis: PrivateRedis | undefined;
    if (!env.REDIS_URL) {
      privateRedis = await startPrivateRedis();
      started.push(privateRedis);
      env.REDIS_URL = privateRedis.url;
    }
    const redisUrl = env.REDIS_URL!;
    const tenant = options.tenant ?? 'sandbox';
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    let apiKey = options.apiKey;
    try {
      if (apiKey) {
        await redis.hset(keys.apiKeys(), hashKey(apiKey), JSON.stringify({ tenant, keyId: 'k_sandbox', label: 'sandbox', createdAt: Date.now() }));
      } else {
        apiKey = (await new ApiKeyStore(redis).create(tenant, 'sandbox')).key;
      }
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
    return { mcpUrl: gateway.ready, apiKey, tenant, redisUrl, logDir, gateway: gateway.service, worker, startWorker, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
