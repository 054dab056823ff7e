/**
 * Client of helpers/linux-capture: length-prefixed JSON requests; each response is a JSON
 * header plus a binary payload (the encoded image), so images never pass through base64
 * until the MCP result is built.
 */
import type { Logger } from 'pino';
import { HelperError, HelperProcess, type HelperTransport } from './helper-process.ts';

export interface CaptureHeader {
  id: number;
  ok: boolean;
  error?: { kind: string; message: string };
  [field: string]: unknown;
}

export interface CaptureResponse {
  header: CaptureHeader;
  payload: Buffer;
}

export class CaptureClient extends HelperProcess<CaptureResponse> {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(transport: HelperTransport, log: Logger) {
    super({ name: 'capture', ...transport }, log);
  }

  async call(message: Record<string, unknown>): Promise<CaptureResponse> {
    const response = await this.request(message);
    if (!response.header.ok) {
      throw new HelperError(response.header.error?.kind ?? 'capture_failed', response.header.error?.message ?? 'capture failed');
    }
    return response;
  }

  /**
   * Waits until the screen has had no damage for `quietMs` (or `maxMs` passed): the helper's
   * `settle` op (docs/capture-helper.md). When `signal` aborts, the helper is sent `cancel`
   * (which ends its wait at once, so later calls are not held behind it) and this rejects
   * with the signal's reason; the helper's answer to the cancelled settle is discarded.
   */
  settle(quietMs: number, maxMs: number, signal: AbortSignal, reaction: { reactQuietMs?: number; sinceMs?: number } = {}): Promise<CaptureHeader> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const answer = this.call({
      op: 'settle',
      quiet_ms: quietMs,
      max_ms: maxMs,
      ...(reaction.reactQuietMs !== undefined ? { react_quiet_ms: reaction.reactQuietMs } : {}),
      ...(reaction.sinceMs !== undefined ? { since_ms: reaction.sinceMs } : {}),
    });
    return new Promise<CaptureHeader>((resolve, reject) => {
      const onAbort = () => {
        // Replies come in request order: the settle's answer arrives first and is dropped
        // with its promise, then the cancel's.
        this.call({ op: 'cancel' }).catch(() => undefined);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      answer.then(
        (response) => {
          signal.removeEventListener('abort', onAbort);
          resolve(response.header);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  protected encode(message: Record<string, unknown>): Buffer {
    const body = Buffer.from(JSON.stringify(message));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length);
    return Buffer.concat([length, body]);
  }

  protected resetDecoder(): void {
    this.buffer = Buffer.alloc(0);
  }

  protected onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      if (this.buffer.length < 4) return;
      const headerLength = this.buffer.readUInt32LE(0);
      if (this.buffer.length < 8 + headerLength) return;
      const payloadLength = this.buffer.readUInt32LE(4 + headerLength);
      const end = 8 + headerLength + payloadLength;
      if (this.buffer.length < end) return;
      const header = JSON.parse(this.buffer.subarray(4, 4 + headerLength).toString()) as CaptureHeader;
      const payload = Buffer.from(this.buffer.subarray(8 + headerLength, end));
      this.buffer = this.buffer.subarray(end);
      this.deliver({ header, payload });
    }
  }
}
