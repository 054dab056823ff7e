/**
 * The loop around a blocking read (BLPOP, BLMOVE…): wait for the next item, hand it over,
 * again, until stopped. A failed read is retried after `retryMs` (the connection reconnects by
 * itself); an outage is reported once, not on every retry. An item whose handling throws is
 * reported and the loop goes on.
 */
export interface BlockingLoop<Item> {
  /** One blocking read: the item, or null when the wait ended with nothing. */
  next(): Promise<Item | null>;
  handle(item: Item): Promise<void> | void;
  running(): boolean;
  /** A read failed; `repeated` is true while the same kind of failure goes on (report it once). */
  onError(error: unknown, repeated: boolean): void;
  /** Whether two failures in a row are the same outage (e.g. both "Redis unreachable"). */
  sameOutage?(error: unknown): boolean;
  retryMs?: number;
}

export async function runBlockingLoop<Item>(loop: BlockingLoop<Item>): Promise<void> {
  let inOutage = false;
  while (loop.running()) {
    let item: Item | null;
    try {
      item = await loop.next();
      inOutage = false;
    } catch (error) {
      if (!loop.running()) return;
      loop.onError(error, inOutage);
      inOutage = loop.sameOutage?.(error) ?? false;
      await new Promise((resolve) => setTimeout(resolve, loop.retryMs ?? 200));
      continue;
    }
    if (item === null) continue;
    // A bad item (one that throws) is reported and skipped; it never ends the loop.
    try {
      await loop.handle(item);
    } catch (error) {
      loop.onError(error, false);
    }
  }
}
