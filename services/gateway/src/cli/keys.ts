/**
 * Operator commands: `npm run keys -- create <tenant> [label]` prints a new API key once (only
 * its hash is stored); `npm run keys -- revoke <keyId>` (refused by every gateway within half
 * a second); `npm run keys -- killswitch on|off` flips the global kill switch (every tenant's
 * tools refuse within half a second).
 */
import { Redis } from 'ioredis';
import { ApiKeyStore } from '../auth/api-keys.ts';
import { KillSwitch } from '@deskgate/dispatch';

const [command, arg, label] = process.argv.slice(2);
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
const store = new ApiKeyStore(redis);
try {
  if (command === 'create' && arg) {
    const { key, keyId } = await store.create(arg, label);
    console.log(JSON.stringify({ tenant: arg, keyId, key }));
  } else if (command === 'killswitch' && (arg === 'on' || arg === 'off')) {
    await new KillSwitch(redis).set(null, arg === 'on');
    console.log(`global kill switch ${arg}`);
  } else if (command === 'revoke' && arg) {
    console.log((await store.revoke(arg)) ? `revoked ${arg}` : `no key ${arg}`);
  } else {
    console.error('usage: keys create <tenant> [label] | keys revoke <keyId> | keys killswitch on|off');
    process.exitCode = 2;
  }
} finally {
  redis.disconnect();
}
