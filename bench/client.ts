/**
 * The MCP client the harness drives deskgate with: the official v1 SDK client
 * (@modelcontextprotocol/sdk, protocol 2025-11-25) over Streamable HTTP — the one that speaks
 * `ping`, the protocol floor. Every call is timed on the client and returns deskgate's own
 * worker/gateway timings from `_meta["deskgate/timings"]`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type Timings = Record<string, number>;

/** Every bench session works on its desktop's xterm, which this policy makes a full-tier app. */
export const BENCH_POLICY_FILE = new URL('./policy.json', import.meta.url).pathname;

export interface TimedCall {
  ms: number;
  timings: Timings;
  isError: boolean;
  text: string;
  /** The base64 data of the answer's first image block, if it has one. */
  image?: string;
}

export interface BenchClient {
  url: string;
  call(name: string, args?: Record<string, unknown>): Promise<TimedCall>;
  /** Like call, but throws when the tool answered with an error. */
  ok(name: string, args?: Record<string, unknown>): Promise<TimedCall>;
  ping(): Promise<number>;
  close(): Promise<void>;
}

interface RawResult {
  isError?: boolean;
  content?: { type: string; text?: string; data?: string }[];
  _meta?: Record<string, unknown>;
}

/**
 * The client transport passes one long-lived AbortSignal to every fetch, and Node 20's undici
 * removes a fetch's abort listener only when the request is garbage-collected
 * (nodejs/undici#5285), so thousands of back-to-back calls print MaxListenersExceededWarning.
 * Each fetch gets its own signal that follows the transport's instead.
 */
const fetchWithOwnSignal: typeof fetch = (input, init) => fetch(input, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);

/** The official client, connected over Streamable HTTP with these headers on every request. */
export async function connectSdkClient(url: string, headers: Record<string, string>, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchWithOwnSignal, requestInit: { headers } }));
  return client;
}

/** `call` and what every bench client has around it: `ok` (throws on a tool error), `ping`, `close`. */
export function sessionAround<T extends { isError: boolean; text: string }>(client: Client, call: (name: string, args?: Record<string, unknown>) => Promise<T>) {
  return {
    call,
    async ok(name: string, args?: Record<string, unknown>): Promise<T> {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${result.text.slice(0, 300)}`);
      return result;
    },
    async ping(): Promise<number> {
      const started = performance.now();
      await client.ping();
      return performance.now() - started;
    },
    close: () => client.close(),
  };
}

export async function connectBench(url: string, apiKey: string): Promise<BenchClient> {
  const client = await connectSdkClient(url, { Authorization: `Bearer ${apiKey}` }, 'deskgate-bench');
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<TimedCall> => {
    const started = performance.now();
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as RawResult;
    const ms = performance.now() - started;
    const text = (result.content ?? []).map((block) => (block.type === 'text' ? (block.text ?? '') : `[${block.type}]`)).join(' ');
    const image = (result.content ?? []).find((block) => block.type === 'image')?.data;
    return { ms, timings: (result._meta?.['deskgate/timings'] as Timings | undefined) ?? {}, isError: result.isError === true, text, ...(image ? { image } : {}) };
  };
  // Every bench session works on the desktop's xterm (full tier under BENCH_POLICY_FILE).
  const access = await call('request_access', { apps: ['xterm'], reason: 'benchmark' });
  if (access.isError) throw new Error(`request_access failed: ${access.text.slice(0, 300)}`);
  return { url, ...sessionAround(client, call) };
}
