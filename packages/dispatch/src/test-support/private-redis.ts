/**
 * One private redis-server for a test file (scripts/lib/redis-server.ts): started before its
 * tests, with one client on it, both stopped after them. The client is a plain ioredis one
 * unless `connect` makes another (BullMQ wants `maxRetriesPerRequest: null`; a test of
 * createRedis wants deskgate's own).
 */
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { startPrivateRedis, type PrivateRedis } from '../../../../scripts/lib/redis-server.ts';

export interface PrivateRedisFixture<Client> {
  /** The server, to stop, restart or reach by its url. */
  readonly server: PrivateRedis;
  readonly redis: Client;
}

export function usePrivateRedis(): PrivateRedisFixture<Redis>;
export function usePrivateRedis<Client extends { disconnect(): void }>(connect: (url: string) => Client): PrivateRedisFixture<Client>;
export function usePrivateRedis(connect: (url: string) => { disconnect(): void } = (url) => new Redis(url)): PrivateRedisFixture<{ disconnect(): void }> {
  let server: PrivateRedis | undefined;
  let redis: { disconnect(): void } | undefined;
  before(async () => {
    server = await startPrivateRedis();
    redis = connect(server.url);
  });
  after(async () => {
    redis?.disconnect();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the private Redis is started by before(): use it inside a test');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get redis() {
      return started(redis);
    },
  };
}
