/**
 * Client of runtime/ (the Python input layer): one JSON object per line each way, checked
 * against the protocol's contract (@deskgate/helper-protocol): an answer that breaks it drops
 * the runtime.
 */
import { InputLineDecoder, ProtocolStreamError, encodeInputRequest, gateFactsSchema, parseInputResult, type GateFactsResult, type InputOp, type InputRequest, type InputResponse } from '@deskgate/helper-protocol';
import type { Logger } from 'pino';
import { HelperError, HelperProcess, type HelperTransport } from './helper-process.ts';

/** guard_failed for an op judged on reported facts: nothing was sent, and these are the facts now. */
export class FactsChanged extends HelperError {
  constructor(
    message: string,
    readonly facts: GateFactsResult,
  ) {
    super('guard_failed', message);
  }
}

export class InputClient extends HelperProcess<InputResponse> {
  private decoder = new InputLineDecoder();
  protected readonly refusedKind = 'bad_args';

  constructor(transport: HelperTransport, log: Logger) {
    super({ name: 'input', ...transport }, log);
  }

  async call<T = Record<string, unknown>>(op: InputOp, params: Record<string, unknown> = {}): Promise<T> {
    const response = await this.request({ op, ...params });
    if (!response.ok) {
      const { kind, message, facts } = response.error;
      if (kind === 'guard_failed' && facts !== undefined) {
        const fresh = gateFactsSchema.safeParse(facts);
        if (fresh.success) throw new FactsChanged(message, fresh.data);
      }
      throw new HelperError(kind, message);
    }
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
