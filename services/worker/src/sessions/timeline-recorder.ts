/**
 * When the console timeline's frames are taken: after each call, at most one frame per
 * `minIntervalMs` per session. A call answered within the interval of the last frame waits for
 * the next one, which is kept under the id of every call that waited for it — so each call
 * still has a frame taken after it was answered, and a burst of fast calls (an agent clicking
 * through a form) costs one capture per interval instead of one per call. Nothing here is on a
 * call's path: the reply has gone before its frame is taken.
 */
import { AUDIT_FRAMES } from '@deskgate/dispatch';
import type { TimelineFrames } from './timeline-frames.ts';

export interface TimelineCall {
  actionId: string;
  tool: string;
  /** When the worker answered the call (epoch ms). */
  at: number;
}

export const TIMELINE_DEFAULTS = {
  /** 5 frames a second at most: a person reads the timeline, and each frame costs the desktop's capture helper ~2 ms. */
  minIntervalMs: 200,
  /** Calls waiting for one frame, at most: as many as a stored frame names. */
  maxWaiting: AUDIT_FRAMES.maxCallsPerFrame,
} as const;

export class TimelineRecorder {
  private waiting: TimelineCall[] = [];
  private timer: NodeJS.Timeout | null = null;
  private lastTakenAt = 0;
  private taking = false;
  private stopped = false;

  constructor(
    private readonly frames: Pick<TimelineFrames, 'next'>,
    /** Keeps one frame under each of these calls. */
    private readonly keep: (calls: TimelineCall[], jpeg: Buffer) => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly minIntervalMs: number = TIMELINE_DEFAULTS.minIntervalMs,
    private readonly now: () => number = Date.now,
  ) {}

  /** A call was answered: its frame is taken now, or with the next one when the last was taken less than the interval ago. */
  after(call: TimelineCall): void {
    if (this.stopped) return;
    this.waiting.push(call);
    if (this.waiting.length > TIMELINE_DEFAULTS.maxWaiting) this.waiting.shift();
    this.schedule();
  }

  /** No more frames (the session's desktop is going). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.waiting = [];
  }

  private schedule(): void {
    if (this.timer || this.taking || this.waiting.length === 0 || this.stopped) return;
    const wait = Math.max(0, this.lastTakenAt + this.minIntervalMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.take();
    }, wait);
  }

  private async take(): Promise<void> {
    const calls = this.waiting;
    this.waiting = [];
    this.taking = true;
    this.lastTakenAt = this.now();
    try {
      const { jpeg } = await this.frames.next();
      if (!this.stopped) await this.keep(calls, jpeg);
    } catch (error) {
      this.onError(error);
    } finally {
      this.taking = false;
      // Calls answered while this frame was taken wait for the next one.
      this.schedule();
    }
  }
}
