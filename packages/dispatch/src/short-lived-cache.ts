/**
 * Values read from Redis on every request but that change rarely (the kill switch, a verified
 * API key), remembered for a short time: back-to-back calls skip a Redis round trip each, and
 * a change takes effect everywhere within `ttlMs`. Bounded: when full, it starts over rather
 * than grow.
 */
export class ShortLivedCache<V> {
  private readonly entries = new Map<string, { at: number; value: V }>();

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    return entry && performance.now() - entry.at < this.ttlMs ? entry.value : undefined;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { at: performance.now(), value });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
