/**
 * The endpoint's protocol edges, for both revisions, against a server that records every
 * tools/call it runs: each malformed request gets its JSON-RPC error and runs nothing.
 * (tests/e2e/protocol-edges.test.ts makes the same requests over real HTTP on the real stack.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Server } from '@modelcontextprotocol/server';
import { createMcpEndpoint } from './mcp-endpoint.ts';
import { CODES, SUPPORTED_PROTOCOL_VERSIONS } from './protocol-checks.ts';

const ran: string[] = [];
const endpoint = createMcpEndpoint(
  (() => {
    const server = new Server({ name: 'probe', version: '1' }, { capabilities: { tools: {} }, supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS] });
    server.setRequestHandler('tools/call', async (request) => (ran.push(request.params.name), { content: [{ type: 'text', text: 'ran' }] }));
    return server;
  }) as never,
  { maxBodyBytes: 1 << 20, onerror: () => undefined },
);

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
type Revision = '2025-11-25' | '2026-07-28';
const REVISIONS: Revision[] = ['2025-11-25', '2026-07-28'];

/** A tools/call as each revision sends it: the modern one carries its envelope in _meta and mirrors it in headers. */
const click = (revision: Revision, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'left_click', arguments: { coordinate: [1, 1] }, ...(revision === '2026-07-28' ? { _meta: META } : {}) },
});
const headersFor = (revision: Revision) => ({
  'mcp-protocol-version': revision,
  ...(revision === '2026-07-28' ? { 'mcp-method': 'tools/call', 'mcp-name': 'left_click' } : {}),
});

async function post(body: string | Buffer, headers: Record<string, string>) {
  const request = new Request('http://127.0.0.1/mcp', { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
  const response = await endpoint(request, { token: 't', clientId: 'c', scopes: [] });
  const calls = ran.splice(0);
  return { status: response.status, json: (await response.json()) as { id?: unknown; error?: { code: number; message: string; data?: { supported?: string[]; requested?: string } } }, calls };
}

for (const revision of REVISIONS) {
  test(`${revision}: a well-formed call runs (the control for the cases below)`, async () => {
    const { status, json, calls } = await post(JSON.stringify(click(revision, 'id-ü')), headersFor(revision));
    assert.equal(status, 200);
    assert.equal(json.id, 'id-ü');
    assert.deepEqual(calls, ['left_click']);
  });

  test(`${revision}: a JSON-RPC batch is refused whole with -32600 and nothing in it runs`, async () => {
    const { status, json, calls } = await post(JSON.stringify([click(revision, 1), click(revision, 2)]), headersFor(revision));
    assert.equal(status, 400);
    assert.equal(json.error?.code, CODES.invalidRequest);
    assert.match(json.error!.message, /batch/);
    assert.deepEqual(calls, []);
  });

  test(`${revision}: an unknown MCP-Protocol-Version is the unsupported-version error listing exactly the served revisions`, async () => {
    for (const version of ['banana', '1900-01-01', '2024-10-07', '2024-11-05']) {
      const { status, json, calls } = await post(JSON.stringify(click(revision, 7)), { ...headersFor(revision), 'mcp-protocol-version': version });
      assert.equal(status, 400, version);
      assert.equal(json.error?.code, CODES.unsupportedProtocolVersion, version);
      assert.deepEqual(json.error?.data, { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: version });
      assert.equal(json.id, 7);
      assert.deepEqual(calls, []);
    }
  });

  test(`${revision}: a body that is not valid UTF-8 is a parse error (-32700) and does not run`, async () => {
    const json = JSON.stringify(click(revision, 'a_b'));
    const at = json.indexOf('_b');
    const bytes = Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from([0xff, 0xfe]), Buffer.from(json.slice(at + 1))]);
    const result = await post(bytes, headersFor(revision));
    assert.equal(result.status, 400);
    assert.equal(result.json.error?.code, CODES.parseError);
    assert.deepEqual(result.calls, []);
  });
}

test('2026-07-28: a modern header on a body without the _meta envelope is HeaderMismatch (-32020)', async () => {
  const { status, json, calls } = await post(JSON.stringify(click('2025-11-25', 3)), headersFor('2026-07-28'));
  assert.equal(status, 400);
  assert.equal(json.error?.code, CODES.headerMismatch);
  assert.equal(json.id, 3);
  assert.deepEqual(calls, []);
});

test('2025-11-25: a 2025 header on a body whose _meta names 2026-07-28 is HeaderMismatch (-32020)', async () => {
  const { status, json, calls } = await post(JSON.stringify(click('2026-07-28', 4)), headersFor('2025-11-25'));
  assert.equal(status, 400);
  assert.equal(json.error?.code, CODES.headerMismatch);
  assert.deepEqual(calls, []);
});

test('a body _meta naming an unknown revision lists the same served revisions', async () => {
  const body = click('2026-07-28', 5);
  body.params._meta = { ...META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' };
  const { json, calls } = await post(JSON.stringify(body), { 'mcp-method': 'tools/call', 'mcp-name': 'left_click' });
  assert.equal(json.error?.code, CODES.unsupportedProtocolVersion);
  assert.deepEqual(json.error?.data?.supported, [...SUPPORTED_PROTOCOL_VERSIONS]);
  assert.deepEqual(calls, []);
});

test('a 2025-era initialize asking for a revision deskgate does not serve is offered 2025-11-25', async () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const { status, json } = await post(JSON.stringify(initialize), {});
  assert.equal(status, 200);
  assert.equal((json as { result?: { protocolVersion?: string } }).result?.protocolVersion, '2025-11-25');
});
