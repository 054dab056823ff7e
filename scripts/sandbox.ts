/**
 * `npm start`: the local sandbox — Redis, one worker with a warm desktop, the gateway — on
 * defaults that need no configuration. Prints how to connect; Ctrl-C stops everything.
 * DESKGATE_WORKERS=N starts N workers, DESKGATE_GATEWAYS=N N gateways (each on its own port,
 * DESKGATE_PORT and up); they share only the one Redis.
 */
import { startStack } from './lib/stack.ts';

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

// The sandbox policy profile, unless the user chose a profile or a policy file (docs/policy.md).
// Deployments that start the services directly keep the worker's default, the seed's tiers.
const { DESKGATE_POLICY_PROFILE: chosenProfile, DESKGATE_POLICY_FILE: policyFile } = process.env;
const profile = chosenProfile || (policyFile ? undefined : 'sandbox');
const policyText = policyFile
  ? `Policy: the file ${policyFile}${chosenProfile ? ` (profile ${chosenProfile} where it names none)` : ''} — docs/policy.md.`
  : profile === 'sandbox'
    ? `Policy profile: sandbox — every installed app can be granted up to the full tier; chromium, mousepad,
pcmanfm and xterm are granted on start. The gates stay on (hit-test, focus, staleness, the shortcut
blocklist). The seed's tiers instead (browsers read, terminals click): DESKGATE_POLICY_PROFILE=seed npm start`
    : `Policy profile: ${profile} — the seed's tiers (browsers read, terminals click, trading read, other apps full);
nothing is granted on start, agents call request_access. The sandbox profile: npm start without DESKGATE_POLICY_PROFILE.`;

/** DESKGATE_WORKERS / DESKGATE_GATEWAYS: how many of each, 1–16 (default 1). */
function count(name: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 16) {
    console.error(`${name} must be a whole number from 1 to 16, not "${raw}".`);
    process.exit(1);
  }
  return n;
}
const workers = count('DESKGATE_WORKERS');
const gateways = count('DESKGATE_GATEWAYS');
const several = (n: number, one: string, many: string) => (n === 1 ? one : `${n} ${many}`);

console.log(`Starting deskgate (Redis, ${several(workers, 'worker', 'workers')} + desktops, ${several(gateways, 'gateway', 'gateways')})…`);
const stack = await startStack({
  workers,
  gateways,
  apiKey: process.env.DESKGATE_API_KEY,
  operatorKey: process.env.DESKGATE_OPERATOR_KEY,
  env: profile ? { DESKGATE_POLICY_PROFILE: profile } : {},
});
const api = stack.mcpUrl.replace(/\/mcp$/, '');
console.log(`
${bold('deskgate is running.')}
MCP endpoint: ${stack.mcpUrl}${stack.mcpUrls.length > 1 ? `\n${stack.mcpUrls.slice(1).map((url, i) => `MCP endpoint ${i + 2}: ${url}`).join('\n')}\n(every gateway serves every session)` : ''}
API key: ${stack.apiKey}
Operator key: ${stack.operatorKey}

Each URL path names a session: ${stack.mcpUrl}/<name> gets a desktop of its own.

${policyText}

Add it to Claude Code:
  claude mcp add --transport http deskgate ${stack.mcpUrl} --header "Authorization: Bearer ${stack.apiKey}"
Any other MCP client: Streamable HTTP at the endpoint above, header "Authorization: Bearer <API key>".

The API key is an agent's: MCP only. The operator key is for the control API (kill switch,
approvals, sessions, audit, metrics) and cannot drive a desktop. For example:
  curl -H "Authorization: Bearer ${stack.operatorKey}" ${api}/v1/sessions
  curl -X PUT -H "Authorization: Bearer ${stack.operatorKey}" -d '{"on":true}' ${api}/v1/killswitch
Roles: docs/roles.md.

Logs: ${stack.logDir}   Press Ctrl-C to stop.`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping deskgate…');
  const started = performance.now();
  await stack.stop();
  console.log(`Stopped in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
for (const service of [...stack.gateways, ...stack.workers]) {
  service.process.once('exit', (code) => {
    if (stopping) return;
    console.error(`The ${service.name} stopped unexpectedly (exit ${code}); see ${service.logFile}`);
    void stop();
  });
}
