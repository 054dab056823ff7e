/** Client of runtime/ (the Python input layer): one JSON object per line each way. */
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from 'pino';
import { HelperError, HelperProcess, type HelperTransport } from './helper-process.ts';

interface InputResponse {
  id: number;
  ok: boolean;
  result?: Record<string, unknown>;
  error?: { kind: string; message: string };
}

export class InputClient extends HelperProcess<InputResponse> {
  private pending = '';
  // Multi-byte characters can straddle two chunks.
  private decoder = new StringDecoder('utf8');

  constructor(transport: HelperTransport, log: Logger) {
    super({ name: 'input', ...transport }, log);
  }

  async call<T = Record<string, unknown>>(op: string, params: Record<string, unknown> = {}): Promise<T> {
    const response = await this.request({ op, ...params });
    if (!response.ok) {
      throw new HelperError(response.error?.kind ?? 'x11_error', response.error?.message ?? `${op} failed`);
    }
    return (response.result ?? {}) as T;
  }

  protected encode(message: Record<string, unknown>): Buffer {
    return Buffer.from(`${JSON.stringify(message)}\n`);
  }

  protected resetDecoder(): void {
    this.pending = '';
    this.decoder = new StringDecoder('utf8');
  }

  protected onData(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      if (line.trim()) this.deliver(JSON.parse(line) as InputResponse);
    }
  }
}
