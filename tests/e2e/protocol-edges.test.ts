/**
 * MCP protocol edges over raw HTTP (fetch, no SDK) on the real stack, for both revisions a
 * client may speak: a batch, an unknown protocol version, a modern header on a body without
 * its envelope, and a body that is not UTF-8 are each refused with the spec's JSON-RPC error,
 * and none of them runs anything: the session never gets a desktop and its audit log stays
 * empty, while a well-formed control call on another session gets both.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { GENERATIONS, type Generation } from '../support/mcp-clients.ts';

let stack: Stack;
before(async () => {
  stack = await startStack({ env: { REDIS_URL: '', DESKGATE_PORT: '0' }, logDir: mkdtempSync(join(tmpdir(), 'deskgate-edges-')) });
});
after(async () => {
  await stack?.stop();
});

const SERVED = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A tools/call as each revision puts it on the wire (2026-07-28: envelope in _meta, mirrored in headers). */
function call(revision: Generation, id: number | string, name = 'left_click', args: Record<string, unknown> = { coordinate: [5, 5] }) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(revision === '2026-07-28' ? { _meta: META } : {}) } };
}
const headersOf = (revision: Generation, name = 'left_click') => ({
  'mcp-protocol-version': revision,
  ...(revision === '2026-07-28' ? { 'mcp-method': 'tools/call', 'mcp-name': name } : {}),
});

interface RpcAnswer {
  id?: unknown;
  result?: { isError?: boolean };
  error?: { code: number; message: string; data?: { supported?: string[]; requested?: string } };
}

async function post(session: string, body: string | Buffer, headers: Record<string, string>): Promise<{ status: number; json: RpcAnswer }> {
  const response = await fetch(`${stack.mcpUrl}/${session}`, {
    method: 'POST',
    body: body as BodyInit,
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  });
  return { status: response.status, json: (await response.json()) as RpcAnswer };
}

const base = () => stack.mcpUrl.replace(/\/mcp$/, '');

/** What ran on a session: its audit log (read with the operator key), and whether the session got a desktop at all. */
async function auditedTools(session: string): Promise<string[]> {
  const audit = await fetch(`${base()}/v1/sessions/${session}/audit`, { headers: { authorization: `Bearer ${stack.operatorKey}` } });
  assert.equal(audit.status, 200, await audit.clone().text());
  const page = (await audit.json()) as { entries: { tool: string }[] };
  const listed = (await (await fetch(`${base()}/v1/sessions`, { headers: { authorization: `Bearer ${stack.apiKey}` } })).json()) as { sessions: { name: string }[] };
  const exists = listed.sessions.some((entry) => entry.name === session);
  assert.equal(exists, page.entries.length > 0, `session ${session}: listed ${exists}, audited ${JSON.stringify(page.entries.map((e) => e.tool))}`);
  return page.entries.map((entry) => entry.tool);
}

/** Audit writes follow the reply; give a call that did run the moment its entry takes. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

for (const revision of GENERATIONS) {
  const tag = revision.replaceAll('-', '');

  test(`${revision}: the control — a well-formed call is answered with its own id and audited`, async () => {
    const session = `control-${tag}`;
    const { status, json } = await post(session, JSON.stringify(call(revision, 'ctl-ü', 'list_granted_applications', {})), headersOf(revision, 'list_granted_applications'));
    assert.equal(status, 200);
    assert.equal(json.id, 'ctl-ü');
    assert.ok(json.result && !json.result.isError, JSON.stringify(json).slice(0, 300));
    await settle();
    assert.deepEqual(await auditedTools(session), ['list_granted_applications']);
  });

  test(`${revision}: a JSON-RPC batch is refused with -32600 and no call in it runs`, async () => {
    const session = `batch-${tag}`;
    const batch = [call(revision, 1), call(revision, 2, 'request_access', { apps: ['xterm'], reason: 'batch' })];
    const { status, json } = await post(session, JSON.stringify(batch), headersOf(revision));
    assert.equal(status, 400);
    assert.equal(json.error?.code, -32600);
    await settle();
    assert.deepEqual(await auditedTools(session), []);
  });

  test(`${revision}: an unsupported MCP-Protocol-Version gets HTTP 400 and -32022 listing exactly the served revisions`, async () => {
    const session = `version-${tag}`;
    for (const version of ['banana', '1900-01-01', '2024-10-07']) {
      const { status, json } = await post(session, JSON.stringify(call(revision, 11)), { ...headersOf(revision), 'mcp-protocol-version': version });
      assert.equal(status, 400, version);
      assert.equal(json.error?.code, -32022, `${version}: ${JSON.stringify(json)}`);
      assert.deepEqual(json.error?.data, { supported: SERVED, requested: version });
      assert.equal(json.id, 11);
    }
    await settle();
    assert.deepEqual(await auditedTools(session), []);
  });

  test(`${revision}: a body that is not valid UTF-8 is a parse error (-32700) and does not run`, async () => {
    const session = `utf8-${tag}`;
    const text = JSON.stringify(call(revision, 'id-X'));
    const at = text.indexOf('X');
    const bytes = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xc3, 0x28]), Buffer.from(text.slice(at + 1))]);
    const { status, json } = await post(session, bytes, headersOf(revision));
    assert.equal(status, 400);
    assert.equal(json.error?.code, -32700);
    await settle();
    assert.deepEqual(await auditedTools(session), []);
  });
}

test('2026-07-28 header on a body without the _meta envelope: HeaderMismatch (-32020), not run', async () => {
  const { status, json } = await post('mismatch-modern', JSON.stringify(call('2025-11-25', 21)), headersOf('2026-07-28'));
  assert.equal(status, 400);
  assert.equal(json.error?.code, -32020);
  assert.equal(json.id, 21);
  await settle();
  assert.deepEqual(await auditedTools('mismatch-modern'), []);
});

test('2025-11-25 header on a body whose _meta names 2026-07-28: HeaderMismatch (-32020), not run', async () => {
  const { status, json } = await post('mismatch-legacy', JSON.stringify(call('2026-07-28', 22)), { ...headersOf('2026-07-28'), 'mcp-protocol-version': '2025-11-25' });
  assert.equal(status, 400);
  assert.equal(json.error?.code, -32020);
  await settle();
  assert.deepEqual(await auditedTools('mismatch-legacy'), []);
});
