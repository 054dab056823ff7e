/** Splits a byte stream into newline-terminated lines, each at most a bound long. */
const NEWLINE = 0x0a;

export class LineReader {
  /** The start of a line not yet complete, in the chunks it came in (no newline in any). */
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(public maxLineBytes: number) {}

  /** The lines `chunk` completes; `null` once a line runs past the bound (the stream is out of bounds: drop it). */
  push(chunk: Buffer): Buffer[] | null {
    const lines: Buffer[] = [];
    let start = 0;
    for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, start)) {
      if (this.partialBytes + at - start > this.maxLineBytes) return null;
      const piece = chunk.subarray(start, at);
      lines.push(this.partial.length ? Buffer.concat([...this.partial, piece]) : piece);
      this.partial = [];
      this.partialBytes = 0;
      start = at + 1;
    }
    if (start < chunk.length) {
      this.partialBytes += chunk.length - start;
      if (this.partialBytes > this.maxLineBytes) return null;
      this.partial.push(chunk.subarray(start));
    }
    return lines;
  }
}
