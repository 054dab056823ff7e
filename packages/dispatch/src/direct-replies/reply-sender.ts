/**
 * Worker side of direct replies: one connection per gateway route, opened when the first
 * request from that gateway is taken (replies while the handshake runs go through Redis). A
 * reply is written only to a connection whose gateway proved it knows the route's secret.
 *
 * Nothing is lost when a connection breaks: the replies written on it in the last second are
 * sent again through Redis (a second copy of one that arrived settles nothing). A route that
 * cannot be reached is not dialled again for a few seconds; its replies go through Redis.
 */
import net from 'node:net';
import type { Logger } from 'pino';
import { LineSplitter } from '@deskgate/helper-protocol';
import {
  DIRECT_REPLY_VERSION,
  HANDSHAKE_TIMEOUT_MS,
  MAX_DIRECT_REPLY_BYTES,
  MAX_HANDSHAKE_BYTES,
  gatewayHello,
  jsonLine,
  newNonce,
  proof,
  proofMatches,
  type DirectRoute,
} from './protocol.ts';

/** Replies written this recently on a connection that breaks are sent again through Redis. */
export const RESEND_WINDOW_MS = 1000;
/** A route whose connection failed is dialled again after this long. */
export const REDIAL_AFTER_MS = 5000;

interface Written {
  at: number;
  fallback: () => void;
}

interface Connection {
  socket: net.Socket;
  ready: boolean;
  recent: Written[];
}

export class ReplySender {
  private readonly connections = new Map<string, Connection>();
  /** Routes not to dial before the time given. */
  private readonly resting = new Map<string, number>();
  private closed = false;
  /** Replies written directly (the gateway counts both paths: deskgate_gateway_action_replies_total). */
  sent = 0;

  constructor(private readonly log: Logger) {}

  /**
   * Writes `line` to the route's gateway if a connection to it is ready; false otherwise (the
   * caller sends it through Redis). `fallback` sends it through Redis should the connection
   * break right after.
   */
  send(route: DirectRoute, line: string, fallback: () => void): boolean {
    if (this.closed || line.length > MAX_DIRECT_REPLY_BYTES / 3) {
      // UTF-8 takes at most 3 bytes per UTF-16 unit: only a long line needs counting.
      if (this.closed || Buffer.byteLength(line) > MAX_DIRECT_REPLY_BYTES) return false;
    }
    const connection = this.connect(route);
    if (!connection?.ready || connection.socket.destroyed) return false;
    const now = Date.now();
    while (connection.recent.length && now - connection.recent[0]!.at > RESEND_WINDOW_MS) connection.recent.shift();
    connection.recent.push({ at: now, fallback });
    connection.socket.write(`${line}\n`);
    this.sent++;
    return true;
  }

  /**
   * The route's connection, dialled if there is none (and the route is not resting): a worker
   * calls this as it takes a request, so the handshake runs while the action does.
   */
  connect(route: DirectRoute): Connection | undefined {
    const key = `${route.host}|${route.port}|${route.secret}`;
    return this.connections.get(key) ?? this.dial(key, route);
  }

  private dial(key: string, route: DirectRoute): Connection | undefined {
    const now = Date.now();
    if (this.closed || (this.resting.get(key) ?? 0) > now) return undefined;
    // Routes of gateways long gone (each process has a secret of its own) are forgotten.
    for (const [rested, until] of this.resting) if (until <= now) this.resting.delete(rested);
    const socket = net.connect({ host: route.host, port: route.port });
    socket.setNoDelay(true);
    const connection: Connection = { socket, ready: false, recent: [] };
    this.connections.set(key, connection);
    const where = `${route.host}:${route.port}`;
    const nonce = newNonce();
    const reader = new LineSplitter(MAX_HANDSHAKE_BYTES);
    const timer = setTimeout(() => socket.destroy(new Error('no handshake in time')), HANDSHAKE_TIMEOUT_MS);
    socket.on('connect', () => socket.write(`${JSON.stringify({ v: DIRECT_REPLY_VERSION, nonce })}\n`));
    socket.on('data', (chunk: Buffer) => {
      if (connection.ready) return socket.destroy(new Error('the gateway wrote after the handshake'));
      const [line] = reader.push(chunk) ?? [];
      if (!line) return;
      const hello = gatewayHello.safeParse(jsonLine(line));
      if (!hello.success || !proofMatches(route.secret, 'gateway', nonce, hello.data.proof)) {
        return socket.destroy(new Error('the listener does not know the route\'s secret (not that gateway)'));
      }
      socket.write(`${JSON.stringify({ proof: proof(route.secret, 'worker', hello.data.nonce) })}\n`);
      clearTimeout(timer);
      connection.ready = true;
      this.log.debug({ gateway: where }, 'direct replies: connected');
    });
    socket.on('error', (error) => {
      if (!this.closed) this.log.warn({ gateway: where, err: error.message }, `direct replies: replies to ${where} go through Redis for ${REDIAL_AFTER_MS / 1000} s`);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (this.connections.get(key) === connection) this.connections.delete(key);
      const recent = connection.recent;
      connection.recent = [];
      // Ended by close(): what was written went out before the end.
      if (this.closed) return;
      this.resting.set(key, Date.now() + REDIAL_AFTER_MS);
      // What may not have arrived goes again, through Redis.
      const since = Date.now() - RESEND_WINDOW_MS;
      for (const written of recent) if (written.at >= since) written.fallback();
    });
    return connection;
  }

  /** Connections ready for replies. */
  get connected(): number {
    let n = 0;
    for (const connection of this.connections.values()) if (connection.ready) n++;
    return n;
  }

  /** Ends every connection once what was written has gone out. */
  close(): void {
    this.closed = true;
    for (const { socket } of this.connections.values()) socket.end();
    this.connections.clear();
  }
}
