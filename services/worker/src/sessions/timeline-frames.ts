/**
 * The console timeline's frame after each call, encoded only when the screen changed.
 *
 * Most calls an agent makes in a row (clicks on a still app, pointer moves, waits) leave the
 * screen as it was, and encoding a frame anyway cost the capture helper ~2 ms per call —
 * time the next call's pixel check waited behind. So the helper is asked with its `frame` op
 * at `max_ms` 0: a new frame only when X DAMAGE saw a change since the last one, else the
 * last frame's bytes are kept again under the new call. After a helper restart (`reset`, its count
 * starts over) the next frame is fresh; a helper that cannot track damage gets plain captures.
 */
import type { CaptureClient } from '../helpers/capture-client.ts';

export interface TimelineFrameSize {
  width: number;
  height: number;
  quality: number;
}

export class TimelineFrames {
  private last: { damageEvents: number; jpeg: Buffer } | null = null;
  private damageTracked = true;

  constructor(
    private readonly capture: Pick<CaptureClient, 'call'>,
    private readonly size: TimelineFrameSize,
  ) {}

  /** Forgets the last frame: the helper restarted, so its damage count started over. */
  reset(): void {
    this.last = null;
  }

  /** The screen now, as the timeline keeps it: a fresh JPEG if it changed, else the last one. */
  async next(): Promise<{ jpeg: Buffer; fresh: boolean }> {
    const scale_to = { width: this.size.width, height: this.size.height };
    const format = 'jpeg';
    const { quality } = this.size;
    if (this.damageTracked) {
      const after = this.last?.damageEvents ?? 0;
      let answer;
      try {
        answer = await this.capture.call({ op: 'frame', after, max_ms: 0, format, quality, scale_to });
      } catch (error) {
        // A helper without damage tracking says so once; a broken helper fails the capture below too.
        if ((error as { kind?: string }).kind !== 'capture_failed') throw error;
        this.damageTracked = false;
        answer = null;
      }
      if (answer) {
        const damageEvents = Number(answer.header.damage_events);
        if (answer.header.changed === true) {
          this.last = { damageEvents, jpeg: answer.payload };
          return { jpeg: answer.payload, fresh: true };
        }
        if (this.last) return { jpeg: this.last.jpeg, fresh: false };
        // No frame yet (a screen never damaged since the helper started).
        const { payload } = await this.capture.call({ op: 'capture', format, quality, scale_to });
        this.last = { damageEvents, jpeg: payload };
        return { jpeg: payload, fresh: true };
      }
    }
    const { payload } = await this.capture.call({ op: 'capture', format, quality, scale_to });
    return { jpeg: payload, fresh: true };
  }
}
