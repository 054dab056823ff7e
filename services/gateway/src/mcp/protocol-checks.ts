/**
 * The protocol checks deskgate makes before the SDK sees a request, where the SDK's own are
 * missing or wrong for a dual-era endpoint: the body must be one UTF-8 JSON-RPC message (no
 * batch, no silently replaced bytes), and the protocol version, whether named by the
 * MCP-Protocol-Version header or by the body's `_meta`, must be one deskgate serves and the two
 * must agree. Each check returns the JSON-RPC error response to send, or nothing; a rejected
 * request is never executed.
 */

/** The revisions this endpoint serves, newest first: the 2026-07-28 one, and the Streamable HTTP revisions of the 2025 era. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] as const;
const MODERN = new Set<string>(['2026-07-28']);
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/** JSON-RPC and MCP error codes used here (MCP 2026-07-28 schema). */
export const CODES = { parseError: -32700, invalidRequest: -32600, headerMismatch: -32020, unsupportedProtocolVersion: -32022 } as const;

type Body = { ok: true; body: unknown } | { ok: false; response: Response };

function errorResponse(status: number, code: number, message: string, id: unknown = null, data?: unknown): Response {
  const echoable = typeof id === 'string' || typeof id === 'number' ? id : null;
  return Response.json({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: echoable }, { status });
}

/**
 * Reads a POST body as strict UTF-8 JSON. A decoder that replaces bad bytes with U+FFFD would
 * change ids and arguments without anyone noticing (a response id no longer equal to the
 * request's), so invalid UTF-8 is a parse error like invalid JSON.
 */
export async function readJsonBody(request: Request): Promise<Body> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await request.arrayBuffer());
  } catch {
    return { ok: false, response: errorResponse(400, CODES.parseError, 'Parse error: the request body is not valid UTF-8') };
  }
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    return { ok: false, response: errorResponse(400, CODES.parseError, 'Parse error: the request body is not valid JSON') };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The version the body's `_meta` names, if it names one (a non-string value counts as named). */
function claimedVersion(body: Record<string, unknown>): { claimed: boolean; version?: string } {
  const meta = isObject(body.params) ? body.params._meta : undefined;
  if (!isObject(meta) || !(PROTOCOL_VERSION_META_KEY in meta)) return { claimed: false };
  const value = meta[PROTOCOL_VERSION_META_KEY];
  return { claimed: true, version: typeof value === 'string' ? value : undefined };
}

function unsupported(requested: string, id: unknown): Response {
  return errorResponse(400, CODES.unsupportedProtocolVersion, `Unsupported protocol version: ${requested}. This server supports ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`, id, {
    supported: [...SUPPORTED_PROTOCOL_VERSIONS],
    requested,
  });
}

const mismatch = (message: string, id: unknown) => errorResponse(400, CODES.headerMismatch, `Header mismatch: ${message}`, id);

/** Checks a parsed POST body and its MCP-Protocol-Version header; undefined means the SDK may serve it. */
export function protocolRejection(headers: Headers, body: unknown): Response | undefined {
  // Both revisions carry exactly one message per POST; a batch would run every call in it.
  if (Array.isArray(body)) {
    return errorResponse(400, CODES.invalidRequest, 'Invalid Request: a POST body carries one JSON-RPC message, not a batch. Nothing in it was run.');
  }
  if (!isObject(body)) return undefined; // the SDK answers other shapes as invalid requests
  const id = body.id;
  const header = headers.get('mcp-protocol-version')?.trim() || undefined;
  const supported = (version: string) => (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version);
  if (header !== undefined && !supported(header)) return unsupported(header, id);

  const claim = claimedVersion(body);
  if (claim.claimed && claim.version !== undefined && !supported(claim.version)) return unsupported(claim.version, id);
  const isRequest = typeof body.method === 'string' && 'id' in body;
  if (header !== undefined && MODERN.has(header) && isRequest && !claim.claimed) {
    return mismatch(`the MCP-Protocol-Version header names ${header}, but the body's _meta does not carry "${PROTOCOL_VERSION_META_KEY}"`, id);
  }
  if (header !== undefined && claim.claimed && claim.version !== header) {
    return mismatch(`the MCP-Protocol-Version header names ${header}, but the body's _meta names ${JSON.stringify(claim.version ?? null)}`, id);
  }
  return undefined;
}
