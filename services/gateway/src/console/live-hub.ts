/**
 * The live view's gateway side: one Redis subscriber per gateway, subscribed to a desktop's
 * frame channel while at least one browser here watches it, and a lease (`liveWatched`) kept
 * alive meanwhile so the desktop's worker streams frames only while someone watches. A slow
 * browser gets the newest frame when it is ready again, never a queue of stale ones.
 */
import { decodeLiveFrame, keys, type LiveFrameHeader } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export type FrameListener = (frame: { header: LiveFrameHeader; image: Buffer }) => void;

const WATCH_LEASE_MS = 2000;
const RENEW_MS = 500;

export class LiveHub {
  private subscriber: Redis | null = null;
  private readonly listeners = new Map<string, Set<FrameListener>>();
  private renewer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly log: Logger,
  ) {}

  /** The subscriber connection, opened when the first browser watches (a gateway nobody watches through holds none). */
  private subscribed(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate();
    subscriber.on('error', (error: Error) => this.log.debug({ err: error.message }, 'live view subscriber error'));
    subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => {
      const desktopId = /^deskgate:desktop:(.+):live:frames$/.exec(channel.toString())?.[1];
      const frame = desktopId ? decodeLiveFrame(message) : null;
      if (frame) for (const listener of this.listeners.get(desktopId!) ?? []) listener(frame);
    });
    this.renewer = setInterval(() => void this.renew(), RENEW_MS);
    this.renewer.unref();
    return (this.subscriber = subscriber);
  }

  /** Starts delivering the desktop's frames to `listener` (the latest one at once); returns the way to stop. */
  async watch(desktopId: string, listener: FrameListener): Promise<() => void> {
    let set = this.listeners.get(desktopId);
    if (!set) {
      set = new Set();
      this.listeners.set(desktopId, set);
      await this.subscribed().subscribe(keys.liveFrames(desktopId));
    }
    set.add(listener);
    await this.redis.set(keys.liveWatched(desktopId), '1', 'PX', WATCH_LEASE_MS);
    const last = await this.redis.getBuffer(keys.liveLastFrame(desktopId));
    const frame = last ? decodeLiveFrame(last) : null;
    if (frame) listener(frame);
    return () => {
      set.delete(listener);
      if (set.size > 0 || this.listeners.get(desktopId) !== set) return;
      this.listeners.delete(desktopId);
      this.subscriber?.unsubscribe(keys.liveFrames(desktopId)).catch(() => undefined);
    };
  }

  private async renew(): Promise<void> {
    if (this.listeners.size === 0) return;
    const multi = this.redis.multi();
    for (const desktopId of this.listeners.keys()) multi.set(keys.liveWatched(desktopId), '1', 'PX', WATCH_LEASE_MS);
    await multi.exec().catch((error: unknown) => this.log.warn({ err: error }, 'live view lease not renewed'));
  }
}
