/**
 * The official MCP clients of both protocol generations, connected over real HTTP with an API
 * key: the v1 SDK speaks 2025-11-25 (initialize), the v2 client is pinned to 2026-07-28.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type Generation = '2025-11-25' | '2026-07-28';
export const GENERATIONS: Generation[] = ['2025-11-25', '2026-07-28'];

export interface ToolResult {
  content: ({ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string })[];
  isError?: boolean;
  structuredContent?: { error?: { kind: string; message: string; retryAfterMs?: number } };
  _meta?: Record<string, unknown>;
}

export interface McpConnection {
  generation: Generation;
  listTools(): Promise<{ name: string; description?: string; inputSchema: unknown }[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export async function connect(generation: Generation, url: string, apiKey: string, headers: Record<string, string> = {}): Promise<McpConnection> {
  const requestInit = { headers: { Authorization: `Bearer ${apiKey}`, ...headers } };
  if (generation === '2025-11-25') {
    const client = new LegacyClient({ name: 'deskgate-test', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(url), { requestInit }));
    return {
      generation,
      listTools: async () => (await client.listTools()).tools,
      call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
      close: () => client.close(),
    };
  }
  const client = new ModernClient({ name: 'deskgate-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
  await client.connect(new ModernTransport(new URL(url), { requestInit }));
  return {
    generation,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as unknown as ToolResult,
    close: () => client.close(),
  };
}

export function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

export function imageOf(result: ToolResult): { data: Buffer; mimeType: string } {
  const block = result.content.find((item) => item.type === 'image');
  if (!block || block.type !== 'image') throw new Error(`no image in result: ${JSON.stringify(result).slice(0, 300)}`);
  return { data: Buffer.from(block.data, 'base64'), mimeType: block.mimeType };
}

export function errorKind(result: ToolResult): string | undefined {
  return result.isError ? result.structuredContent?.error?.kind : undefined;
}

/**
 * A refusal's machine-readable retry hint, checked against its message: `retryAfterMs` is the
 * "retry in N s" (or "within N s") the message gives, in milliseconds.
 */
export function retryHintOf(result: ToolResult): number {
  const hint = result.structuredContent?.error?.retryAfterMs;
  const said = /(?:retry in ~?|ends within )(\d+(?:\.\d+)?) s/.exec(textOf(result))?.[1];
  if (hint === undefined || said === undefined) throw new Error(`no retry hint in ${JSON.stringify(result.structuredContent)}`);
  if (hint !== Math.round(Number(said) * 1000)) throw new Error(`retryAfterMs ${hint} is not the message's ${said} s: ${textOf(result)}`);
  return hint;
}
