/** Byte-stream helpers shared by both codecs. */

/** A stream broke the protocol (a frame over its limit, a header that is not JSON): the connection is out of sync and must be dropped. */
export class ProtocolStreamError extends Error {
  override readonly name = 'ProtocolStreamError';
}

/** A byte queue that concatenates lazily. */
export class ByteQueue {
  private chunks: Buffer[] = [];
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    this.size += chunk.length;
  }

  /** The first `n` bytes, removed (n ≤ length). */
  take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
    return out;
  }

  /** Drops up to `n` bytes; returns how many were dropped. */
  skip(n: number): number {
    const dropped = Math.min(n, this.size);
    this.take(dropped);
    return dropped;
  }

  /** The index of `byte`, searching from `from` (-1 when absent). */
  indexOf(byte: number, from = 0): number {
    let offset = 0;
    for (const chunk of this.chunks) {
      if (from < offset + chunk.length) {
        const at = chunk.indexOf(byte, Math.max(0, from - offset));
        if (at >= 0) return offset + at;
      }
      offset += chunk.length;
    }
    return -1;
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
  }
}

/** Newline-terminated lines out of a byte stream, each at most `maxLineBytes` long (its newline not counted). */
export class LineSplitter {
  private readonly queue = new ByteQueue();
  /** How far the queue is known to hold no newline (a long line is not scanned again with each chunk). */
  private scanned = 0;

  constructor(public maxLineBytes: number) {}

  /** True between lines: nothing of a next line received yet. */
  get idle(): boolean {
    return this.queue.length === 0;
  }

  /** The lines `chunk` completes; null once a line runs past the bound (the stream is out of step: drop it). */
  push(chunk: Uint8Array): Buffer[] | null {
    this.queue.push(chunk);
    const lines: Buffer[] = [];
    for (;;) {
      const nl = this.queue.indexOf(0x0a, this.scanned);
      if (nl < 0) {
        this.scanned = this.queue.length;
        return this.queue.length > this.maxLineBytes ? null : lines;
      }
      if (nl > this.maxLineBytes) return null;
      lines.push(this.queue.take(nl + 1).subarray(0, nl));
      this.scanned = 0;
    }
  }

  clear(): void {
    this.queue.clear();
    this.scanned = 0;
  }
}

export function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text or null when the bytes are not valid UTF-8. */
export function utf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** JSON.parse, or undefined when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The issues of a zod error as one line. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((issue) => (issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message)).join('; ');
}
