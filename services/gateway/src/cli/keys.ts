/**
 * Manage API keys: `npm run keys -- create <tenant> [label]` prints a new key once (only its
 * hash is stored); `npm run keys -- revoke <keyId>`.
 */
import { Redis } from 'ioredis';
import { ApiKeyStore } from '../auth/api-keys.ts';

const [command, arg, label] = process.argv.slice(2);
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
const store = new ApiKeyStore(redis);
try {
  if (command === 'create' && arg) {
    const { key, keyId } = await store.create(arg, label);
    console.log(JSON.stringify({ tenant: arg, keyId, key }));
  } else if (command === 'revoke' && arg) {
    console.log((await store.revoke(arg)) ? `revoked ${arg}` : `no key ${arg}`);
  } else {
    console.error('usage: keys create <tenant> [label] | keys revoke <keyId>');
    process.exitCode = 2;
  }
} finally {
  redis.disconnect();
}
