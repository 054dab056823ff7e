/**
 * The MCP endpoint for both protocol generations, with the request body read once. 2026-07-28
 * traffic goes to the SDK's per-request handler (it answers with one JSON body unless a
 * handler streams). 2025-era traffic is served statelessly like the SDK's own fallback, but
 * with JSON responses instead of an SSE stream per call: deskgate's tools answer once and
 * never stream, and an SSE exchange costs extra writes, streams and a teardown on every call.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpServerFactory,
} from '@modelcontextprotocol/server';

export interface McpEndpointOptions {
  maxBodyBytes: number;
  onerror: (error: Error) => void;
}

const jsonRpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, ...(status === 405 && { headers: { Allow: 'POST' } }) });

export function createMcpEndpoint(factory: McpServerFactory, options: McpEndpointOptions) {
  const modern = createMcpHandler(factory, { legacy: 'reject', maxRequestBodySize: options.maxBodyBytes, onerror: options.onerror });

  async function serveLegacy(request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response> {
    // Stateless: no session to stream to or resume, so only POST is served.
    if (request.method !== 'POST') return jsonRpcError(405, -32000, 'Method not allowed.');
    const server = await factory({ era: 'legacy', authInfo, requestInfo: request } as never);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = options.onerror;
    await server.connect(transport);
    // No close(): with a JSON response the exchange is complete when handleRequest resolves,
    // nothing of it is referenced from outside, and closing would build a "connection
    // closed" error (with its stack) for every call only to find nothing pending.
    return transport.handleRequest(request, { authInfo, parsedBody });
  }

  return async function serve(request: Request, authInfo: AuthInfo): Promise<Response> {
    let parsedBody: unknown;
    if (request.method === 'POST') {
      try {
        parsedBody = JSON.parse(await request.text());
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: the request body is not valid JSON');
      }
    }
    if (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: options.maxBodyBytes })) return serveLegacy(request, authInfo, parsedBody);
    return modern.fetch(request, { authInfo, parsedBody });
  };
}
