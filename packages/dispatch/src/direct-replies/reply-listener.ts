/**
 * Gateway side of direct replies: listens for workers, checks each one knows this gateway's
 * secret (and proves it knows it too), then hands every reply line to `deliver`. It never
 * writes after the handshake: a reply is settled by its id, and one that also arrives through
 * Redis (a worker's fallback) finds nothing left to settle.
 */
import net from 'node:net';
import os from 'node:os';
import type { Logger } from 'pino';
import { LineSplitter } from '@deskgate/helper-protocol';
import {
  HANDSHAKE_TIMEOUT_MS,
  MAX_DIRECT_CONNECTIONS,
  MAX_DIRECT_REPLY_BYTES,
  MAX_HANDSHAKE_BYTES,
  jsonLine,
  newNonce,
  newSecret,
  proof,
  proofMatches,
  workerHello,
  workerProof,
  type DirectRoute,
} from './protocol.ts';

/** Refused connections are logged at most this often (with how many were refused between). */
export const REFUSAL_LOG_MS = 10_000;

export interface ReplyListenerOptions {
  /** Where to listen; port 0: any free port. */
  host: string;
  port: number;
  /** The host workers dial; absent: the listening host, or this machine's first external IPv4 when that is a wildcard. */
  advertise?: string;
  /** Connections taken at once (MAX_DIRECT_CONNECTIONS by default). */
  maxConnections?: number;
}

export class ReplyListener {
  private readonly secret = newSecret();
  private readonly sockets = new Set<net.Socket>();
  private server?: net.Server;
  /** Connections refused: over the cap, a failed or late handshake, a line over its bound. */
  refused = 0;
  /** When a refusal was last logged, and how many were not since (a flood of them logs a line every REFUSAL_LOG_MS). */
  private refusalLoggedAt = -Infinity;
  private refusalsUnlogged = 0;

  constructor(
    private readonly deliver: (line: Buffer) => void,
    private readonly log: Logger,
  ) {}

  /** Listens; the route each request carries. */
  async listen(options: ReplyListenerOptions): Promise<DirectRoute> {
    const server = net.createServer((socket) => this.accept(socket));
    server.maxConnections = options.maxConnections ?? MAX_DIRECT_CONNECTIONS;
    server.on('drop', () => this.refused++);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: options.host, port: options.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const { port } = server.address() as net.AddressInfo;
    return { host: options.advertise ?? advertisedHost(options.host), port, secret: this.secret };
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const remote = `${socket.remoteAddress}:${socket.remotePort}`; // gone once destroyed
    const reader = new LineSplitter(MAX_HANDSHAKE_BYTES);
    const nonce = newNonce();
    let step: 'hello' | 'proof' | 'replies' = 'hello';
    const refuse = (why: string) => {
      this.refused++;
      socket.destroy();
      const now = performance.now();
      if (now - this.refusalLoggedAt < REFUSAL_LOG_MS) {
        this.refusalsUnlogged++;
        return;
      }
      this.log.warn({ remote, why, alsoRefusedSince: this.refusalsUnlogged }, 'direct replies: connection refused');
      this.refusalLoggedAt = now;
      this.refusalsUnlogged = 0;
    };
    const timer = setTimeout(() => refuse('no handshake in time'), HANDSHAKE_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      const lines = reader.push(chunk);
      if (!lines) return refuse(step === 'replies' ? `a line over ${MAX_DIRECT_REPLY_BYTES} bytes` : 'a handshake line over its bound');
      for (const line of lines) {
        if (step === 'replies') {
          this.deliver(line);
        } else if (step === 'hello') {
          const hello = workerHello.safeParse(jsonLine(line));
          if (!hello.success) return refuse('not a worker hello');
          socket.write(`${JSON.stringify({ nonce, proof: proof(this.secret, 'gateway', hello.data.nonce) })}\n`);
          step = 'proof';
        } else {
          const answer = workerProof.safeParse(jsonLine(line));
          if (!answer.success || !proofMatches(this.secret, 'worker', nonce, answer.data.proof)) return refuse('the worker does not know this gateway\'s secret');
          clearTimeout(timer);
          reader.maxLineBytes = MAX_DIRECT_REPLY_BYTES;
          step = 'replies';
        }
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      this.sockets.delete(socket);
    });
  }

  /** Connections past their handshake or in it. */
  get connections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** A wildcard listener is dialled at this machine's first external IPv4 (a pod's or a container's own address). */
function advertisedHost(host: string): string {
  if (!WILDCARDS.has(host)) return host;
  for (const addresses of Object.values(os.networkInterfaces())) {
    const external = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (external) return external.address;
  }
  return '127.0.0.1';
}
