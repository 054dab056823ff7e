/**
 * Client of runtime/ (the Python input layer): one JSON object per line each way, checked
 * against the protocol's contract (@deskgate/helper-protocol): an answer that breaks it drops
 * the runtime.
 */
import { InputLineDecoder, ProtocolStreamError, encodeInputRequest, parseInputResult, type InputOp, type InputRequest, type InputResponse } from '@deskgate/helper-protocol';
import type { Logger } from 'pino';
import { HelperError, HelperProcess, type HelperTransport } from './helper-process.ts';

export class InputClient extends HelperProcess<InputResponse> {
  private decoder = new InputLineDecoder();
  protected readonly refusedKind = 'bad_args';

  constructor(transport: HelperTransport, log: Logger) {
    super({ name: 'input', ...transport }, log);
  }

  async call<T = Record<string, unknown>>(op: InputOp, params: Record<string, unknown> = {}): Promise<T> {
    const response = await this.request({ op, ...params });
    if (!response.ok) throw new HelperError(response.error.kind, response.error.message);
    try {
      return parseInputResult(op, response.result) as T;
    } catch (error) {
      if (!(error instanceof ProtocolStreamError)) throw error;
      this.abandon(error.message);
      throw new HelperError('helper_died', error.message);
    }
  }

  protected encode(message: Record<string, unknown>): Buffer {
    return encodeInputRequest(message as InputRequest);
  }

  protected resetDecoder(): void {
    this.decoder = new InputLineDecoder();
  }

  protected onData(chunk: Buffer): void {
    let responses;
    try {
      responses = this.decoder.push(chunk);
    } catch (error) {
      if (!(error instanceof ProtocolStreamError)) throw error;
      return this.abandon(error.message);
    }
    for (const response of responses) this.deliver(response);
  }
}
