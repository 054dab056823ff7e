/**
 * The MCP endpoint for both protocol generations. 2026-07-28 traffic goes to the SDK's
 * per-request handler (it answers with one JSON body unless a handler streams). 2025-era
 * traffic is served statelessly like the SDK's own fallback, but with JSON responses instead
 * of an SSE stream per call: deskgate's tools answer once and never stream, and an SSE
 * exchange costs extra writes, streams and a teardown on every call (the gateway's CPU per
 * click went from ~2.7 to ~2.2 ms with this; see docs/performance.md).
 */
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { protocolRejection, readJsonBody } from './protocol-checks.ts';

export interface McpEndpointOptions {
  maxBodyBytes: number;
  onerror: (error: Error) => void;
}

export function createMcpEndpoint(factory: McpServerFactory, options: McpEndpointOptions) {
  const modern = createMcpHandler(factory, { legacy: 'reject', maxRequestBodySize: options.maxBodyBytes, onerror: options.onerror });

  async function serveLegacy(request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response> {
    // Stateless: no session to stream to or resume, so only POST is served.
    if (request.method !== 'POST') {
      return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, { status: 405, headers: { Allow: 'POST' } });
    }
    const server = await factory({ era: 'legacy', authInfo, requestInfo: request } as never);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: options.maxBodyBytes });
    transport.onerror = options.onerror;
    await server.connect(transport);
    // No close(): with a JSON response the exchange is complete when handleRequest resolves,
    // nothing of it is referenced from outside, and closing would build a "connection
    // closed" error (with its stack) for every call only to find nothing pending.
    return transport.handleRequest(request, { authInfo, parsedBody });
  }

  return async function serve(request: Request, authInfo: AuthInfo): Promise<Response> {
    // Read and parsed once here (the size limit is the gateway's); the SDK would otherwise
    // clone the request to classify it, then read the body again.
    // Checked here, before either era's handler can run anything: see protocol-checks.ts.
    let parsedBody: unknown;
    if (request.method === 'POST') {
      const read = await readJsonBody(request);
      if (!read.ok) return read.response;
      parsedBody = read.body;
      const rejection = protocolRejection(request.headers, parsedBody);
      if (rejection) {
        options.onerror(new Error(`protocol check refused a request: ${rejection.status}`));
        return rejection;
      }
    }
    const legacy = await isLegacyRequest(request, parsedBody, { maxRequestBodySize: options.maxBodyBytes });
    return legacy ? serveLegacy(request, authInfo, parsedBody) : modern.fetch(request, { authInfo, parsedBody });
  };
}
