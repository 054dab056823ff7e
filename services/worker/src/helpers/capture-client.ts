/**
 * Client of helpers/linux-capture: length-prefixed JSON requests; each response is a JSON
 * header plus a binary payload (the encoded image), so images never pass through base64
 * until the MCP result is built.
 */
import type { Logger } from 'pino';
import { HelperError, HelperProcess, type HelperSpec } from './helper-process.ts';

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

  constructor(spec: Omit<HelperSpec, 'name'>, log: Logger) {
    super({ name: 'capture', ...spec }, log);
  }

  async call(message: Record<string, unknown>): Promise<CaptureResponse> {
    const response = await this.request(message);
    if (!response.header.ok) {
      throw new HelperError(response.header.error?.kind ?? 'capture_failed', response.header.error?.message ?? 'capture failed');
    }
    return response;
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
