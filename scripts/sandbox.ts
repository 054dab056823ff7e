/**
 * `npm start`: the local sandbox — Redis, one worker with a warm desktop, the gateway — on
 * defaults that need no configuration. Prints how to connect; Ctrl-C stops everything.
 */
import { startStack } from './lib/stack.ts';

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

console.log('Starting deskgate (Redis, worker + desktop, gateway)…');
const stack = await startStack({ apiKey: process.env.DESKGATE_API_KEY });
console.log(`
${bold('deskgate is running.')}
MCP endpoint: ${stack.mcpUrl}
API key: ${stack.apiKey}

Each URL path names a session: ${stack.mcpUrl}/<name> gets a desktop of its own.

Add it to Claude Code:
  claude mcp add --transport http deskgate ${stack.mcpUrl} --header "Authorization: Bearer ${stack.apiKey}"
Any other MCP client: Streamable HTTP at the endpoint above, header "Authorization: Bearer <API key>".

Logs: ${stack.logDir}   Press Ctrl-C to stop.`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping deskgate…');
  await stack.stop();
  console.log('Stopped.');
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
for (const service of [stack.gateway, stack.worker]) {
  service.process.once('exit', (code) => {
    if (stopping) return;
    console.error(`The ${service.name} stopped unexpectedly (exit ${code}); see ${stack.logDir}/${service.name}.log`);
    void stop();
  });
}
