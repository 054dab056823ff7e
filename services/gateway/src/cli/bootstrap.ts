/**
 * The compose stack's first words (docker-compose.yml's one-shot `bootstrap` service, run once
 * Redis and the worker are healthy, just before the gateway starts): how to connect, the way
 * `npm start` says it.
 *
 * When the tenant has no key yet (a new Redis volume), it mints an agent key (MCP) and an
 * operator key (the control API) and prints both, once: Redis keeps only their hashes. On a
 * later start the keys exist; it says so (ids, roles, labels — never a key) and how to make a
 * new one with `docker compose exec gateway …`.
 *
 *   REDIS_URL                 Redis (the stack's)
 *   DESKGATE_TENANT           the tenant the keys belong to (default `sandbox`, as npm start)
 *   DESKGATE_PUBLIC_URL       where clients reach the gateway (default http://127.0.0.1:7420)
 *   DESKGATE_API_KEY, DESKGATE_OPERATOR_KEY   pin the two keys (as npm start), when none exist
 *   DESKGATE_POLICY_PROFILE   named in the message (the worker applies it)
 */
import { Redis } from 'ioredis';
import { keys } from '@deskgate/dispatch';
import { ApiKeyStore, hashKey, keyRecord } from '../auth/api-keys.ts';
import type { Role } from '../auth/roles.ts';

const env = process.env;
const tenant = env.DESKGATE_TENANT || 'sandbox';
const publicUrl = (env.DESKGATE_PUBLIC_URL || 'http://127.0.0.1:7420').replace(/\/+$/, '');
const mcpUrl = `${publicUrl}/mcp`;
const profile = env.DESKGATE_POLICY_PROFILE || 'seed';
const keysCommand = 'docker compose exec gateway node --import tsx services/gateway/src/cli/keys.ts';

const policyText =
  profile === 'sandbox'
    ? `Policy profile: sandbox — every installed app can be granted up to the full tier; chromium, mousepad,
pcmanfm and xterm are granted on start. The gates stay on (hit-test, focus, staleness, the shortcut
blocklist). The seed's tiers instead: DESKGATE_POLICY_PROFILE=seed docker compose up -d`
    : `Policy profile: ${profile} (docs/policy.md).`;

const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
try {
  const store = new ApiKeyStore(redis);
  const existing = await store.list(tenant);
  if (existing.length === 0) {
    const mint = async (pinned: string | undefined, role: Role, keyId: string, label: string) => {
      if (!pinned) return (await store.create(tenant, label, role)).key;
      if (!pinned.startsWith('dg_')) throw new Error(`a pinned ${role} key must start with dg_`);
      await redis.hset(keys.apiKeys(), hashKey(pinned), keyRecord(tenant, keyId, role, label));
      return pinned;
    };
    const apiKey = await mint(env.DESKGATE_API_KEY, 'agent', 'k_compose', 'compose agent');
    const operatorKey = await mint(env.DESKGATE_OPERATOR_KEY, 'operator', 'k_compose_operator', 'compose operator');
    // A key it was given (a deployment's secret) is never printed: logs outlive the secret store.
    const shown = (key: string, pinned: string | undefined, name: string) => (pinned ? `(the ${name} you set; not printed)` : key);
    const apiKeyText = shown(apiKey, env.DESKGATE_API_KEY, 'DESKGATE_API_KEY');
    const operatorKeyText = shown(operatorKey, env.DESKGATE_OPERATOR_KEY, 'DESKGATE_OPERATOR_KEY');
    console.log(`
deskgate is ready: the gateway starts now and answers within a few seconds.
MCP endpoint: ${mcpUrl}
API key: ${apiKeyText}
Operator key: ${operatorKeyText}

These keys are shown this once: Redis keeps only their hashes (tenant ${tenant}).

Each URL path names a session: ${mcpUrl}/<name> gets a desktop of its own, a container.

${policyText}

Add it to Claude Code:
  claude mcp add --transport http deskgate ${mcpUrl} --header "Authorization: Bearer ${env.DESKGATE_API_KEY ? '<API key>' : apiKey}"
Any other MCP client: Streamable HTTP at the endpoint above, header "Authorization: Bearer <API key>".

The API key is an agent's: MCP only. The operator key is for the control API (kill switch,
approvals, sessions, audit, metrics) and cannot drive a desktop. For example:
  curl -H "Authorization: Bearer ${env.DESKGATE_OPERATOR_KEY ? '<operator key>' : operatorKey}" ${publicUrl}/v1/sessions
Roles: docs/roles.md. Stop: docker compose down (docs/compose.md).`);
  } else {
    const listed = existing.map((info) => `  ${info.keyId}  ${info.role.padEnd(8)}  ${info.label || '(no label)'}  created ${info.createdAt}`).join('\n');
    console.log(`
deskgate is ready: the gateway starts now and answers within a few seconds.
MCP endpoint: ${mcpUrl}

Tenant ${tenant} has ${existing.length} key${existing.length === 1 ? '' : 's'} already (printed when made; Redis keeps only hashes):
${listed}

A new agent key (printed once):
  ${keysCommand} create ${tenant} --role agent "my agent"
An operator key: --role operator. Revoke one: ${keysCommand} revoke <keyId>
Then:
  claude mcp add --transport http deskgate ${mcpUrl} --header "Authorization: Bearer <API key>"

${policyText}

Stop: docker compose down (docs/compose.md).`);
  }
} catch (error) {
  console.error(`bootstrap: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  redis.disconnect();
}
