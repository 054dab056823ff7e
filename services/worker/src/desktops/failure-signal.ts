/**
 * How a desktop's end is told, the same for every provider (provider.ts, DisplayHandle): the
 * first failure reaches each onFailure listener once, a listener that comes later hears of a
 * failure that already happened, a failure once stop() has begun is no failure (the desktop's
 * processes exit because they are being stopped), and stop() tears down once however often it
 * is called.
 */
export class FailureSignal {
  private readonly listeners: ((reason: string) => void)[] = [];
  private reason: string | null = null;
  private stopping = false;
  private stopped: Promise<void> | null = null;

  /** `report` runs once, with the reason, before any listener (the provider logs it). */
  constructor(private readonly report: (reason: string) => void = () => undefined) {}

  /** Why the desktop failed, or null while it has not. */
  get failed(): string | null {
    return this.reason;
  }

  /** Failed, or being stopped: nothing of the desktop is to be restarted or waited for. */
  get ended(): boolean {
    return this.stopping || this.reason !== null;
  }

  fail(reason: string): void {
    if (this.ended) return;
    this.reason = reason;
    this.report(reason);
    for (const listener of this.listeners) listener(reason);
  }

  onFailure(listener: (reason: string) => void): void {
    this.listeners.push(listener);
    if (this.reason) listener(this.reason);
  }

  /** Runs `teardown` on the first call; every call gets the same promise. */
  stop(teardown: () => Promise<void>): Promise<void> {
    this.stopping = true;
    this.stopped ??= teardown();
    return this.stopped;
  }
}
