/**
 * Direct replies: a worker writes an action's reply straight to the gateway that sent it,
 * over one TCP connection per gateway, instead of through Redis (one process wake-up less per
 * call: the reply no longer wakes Redis on its way). Redis stays the path of every request and
 * the fallback of every reply (docs/architecture.md, "Direct replies").
 *
 * The gateway puts its route in each request: where it listens and a secret of its own,
 * random per process, known only to those who can read the request from Redis (the workers).
 * The secret never crosses the wire: each side proves it knows it with an HMAC of the other
 * side's nonce, so neither a client that is not a worker nor a listener that is not the
 * gateway (a process that took the port of one that died) gets past the handshake.
 * Then the stream is replies, one JSON object per line (JSON text has no raw newline).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export const DIRECT_REPLY_VERSION = 1;
/** A reply longer than this (a large screenshot) takes the Redis path; the gateway drops a connection that sends a longer line. */
export const MAX_DIRECT_REPLY_BYTES = 16 * 1024 * 1024;
/** A handshake line is short: a connection whose line is not done within this many bytes is dropped. */
export const MAX_HANDSHAKE_BYTES = 1024;
/** Either side drops a connection whose handshake is not done by then. */
export const HANDSHAKE_TIMEOUT_MS = 5000;
/** Connections a gateway takes at once (one per worker is the norm); more are closed at once. */
export const MAX_DIRECT_CONNECTIONS = 1024;

/** Where a gateway takes direct replies: carried in each request it sends. */
export const directRoute = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  secret: z.string().min(32),
});
export type DirectRoute = z.infer<typeof directRoute>;

export const newSecret = (): string => randomBytes(32).toString('base64url');
export const newNonce = (): string => randomBytes(16).toString('base64url');

/** The proof that `side` knows the secret, bound to the other side's nonce. */
export function proof(secret: string, side: 'gateway' | 'worker', nonce: string): string {
  return createHmac('sha256', secret).update(`deskgate-direct-replies/${DIRECT_REPLY_VERSION}|${side}|${nonce}`).digest('base64url');
}

export function proofMatches(secret: string, side: 'gateway' | 'worker', nonce: string, claimed: unknown): boolean {
  if (typeof claimed !== 'string') return false;
  const expected = Buffer.from(proof(secret, side, nonce));
  const given = Buffer.from(claimed);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The worker's first line, the gateway's answer, the worker's proof. */
export const workerHello = z.object({ v: z.literal(DIRECT_REPLY_VERSION), nonce: z.string().min(16).max(64) });
export const gatewayHello = z.object({ nonce: z.string().min(16).max(64), proof: z.string().max(64) });
export const workerProof = z.object({ proof: z.string().max(64) });

/** A line as JSON, or undefined. */
export function jsonLine(line: Buffer | string): unknown {
  try {
    return JSON.parse(line.toString()) as unknown;
  } catch {
    return undefined;
  }
}
