/**
 * Operator commands:
 *   npm run keys -- create <tenant> [--role agent|approver|operator|admin] [label]
 *     prints a new API key once (only its hash is stored); the role defaults to agent
 *   npm run keys -- list <tenant>         the tenant's key ids, roles and labels (never a key)
 *   npm run keys -- revoke <keyId>        refused by every gateway within half a second
 *   npm run keys -- killswitch on|off     the global kill switch: every tenant's tools refuse within half a second
 */
import { parseArgs } from 'node:util';
import { KillSwitch, createRedis } from '@deskgate/dispatch';
import { ApiKeyStore } from '../auth/api-keys.ts';
import { role as roleSchema } from '../auth/roles.ts';

const USAGE = 'usage: keys create <tenant> [--role agent|approver|operator|admin] [label] | keys list <tenant> | keys revoke <keyId> | keys killswitch on|off';

const { values, positionals } = parseArgs({ options: { role: { type: 'string', default: 'agent' } }, allowPositionals: true, strict: false });
const [command, arg, ...rest] = positionals;
const role = roleSchema.safeParse(values.role);
if (!role.success) {
  console.error(`--role: ${role.error.issues[0]!.message}\n${USAGE}`);
  process.exit(2);
}

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'cli');
redis.on('error', () => undefined); // a failed command says it; the reconnect attempts need not
const store = new ApiKeyStore(redis);
try {
  if (command === 'create' && arg) {
    const { key, keyId } = await store.create(arg, rest.join(' '), role.data);
    console.log(JSON.stringify({ tenant: arg, keyId, role: role.data, key }));
  } else if (command === 'list' && arg) {
    for (const info of await store.list(arg)) console.log(JSON.stringify(info));
  } else if (command === 'killswitch' && (arg === 'on' || arg === 'off')) {
    await new KillSwitch(redis).set(null, arg === 'on', { keyId: null, role: null, via: 'cli' });
    console.log(`global kill switch ${arg}`);
  } else if (command === 'revoke' && arg) {
    console.log((await store.revoke(arg)) ? `revoked ${arg}` : `no key ${arg}`);
  } else {
    console.error(USAGE);
    process.exitCode = 2;
  }
} finally {
  redis.disconnect();
}
