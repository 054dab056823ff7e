/**
 * Client of helpers/linux-capture: length-prefixed JSON requests; each response is a JSON
 * header plus a binary payload (the encoded image), so images never pass through base64
 * until the MCP result is built. Requests and answers are checked against the protocol's
 * contract (@deskgate/helper-protocol): an answer that breaks it drops the helper.
 */
import { CaptureFrameDecoder, ProtocolStreamError, encodeCaptureRequest, parseCaptureHeader, type CaptureOp, type CaptureRequest } from '@deskgate/helper-protocol';
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
  private decoder = new CaptureFrameDecoder();
  protected readonly refusedKind = 'bad_request';

  constructor(transport: HelperTransport, log: Logger) {
    super({ name: 'capture', ...transport }, log);
  }

  async call(message: { op: CaptureOp } & Record<string, unknown>): Promise<CaptureResponse> {
    const response = await this.request(message);
    let answer: ReturnType<typeof parseCaptureHeader>;
    try {
      answer = parseCaptureHeader(message.op, response.header);
    } catch (error) {
      if (!(error instanceof ProtocolStreamError)) throw error;
      this.abandon(error.message);
      throw new HelperError('helper_died', error.message);
    }
    if (!answer.ok) throw new HelperError(answer.error.kind, answer.error.message);
    return { header: answer.reply as unknown as CaptureHeader, payload: response.payload };
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

  /**
   * The live view's next frame (the helper's `frame` op): resolves once the screen has had
   * more than `after` damage notifications, with the whole screen as a JPEG and the count to
   * pass next time; or after `maxMs` without a change, with no image.
   */
  async nextFrame(after: number, maxMs: number, quality: number): Promise<{ changed: boolean; damageEvents: number; width: number; height: number; ms: number; image: Buffer }> {
    const { header, payload } = await this.call({ op: 'frame', after, max_ms: maxMs, format: 'jpeg', quality });
    const ms = ['capture_ms', 'convert_ms', 'scale_ms', 'encode_ms'].reduce((sum, field) => sum + (Number(header[field]) || 0), 0);
    return { changed: header.changed === true, damageEvents: Number(header.damage_events), width: Number(header.width ?? 0), height: Number(header.height ?? 0), ms, image: payload };
  }

  protected encode(message: Record<string, unknown>): Buffer {
    return encodeCaptureRequest(message as CaptureRequest);
  }

  protected resetDecoder(): void {
    this.decoder = new CaptureFrameDecoder();
  }

  protected onData(chunk: Buffer): void {
    let frames;
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      if (!(error instanceof ProtocolStreamError)) throw error;
      return this.abandon(error.message);
    }
    for (const { header, payload } of frames) this.deliver({ header: header as CaptureHeader, payload });
  }
}
