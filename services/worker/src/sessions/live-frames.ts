/**
 * The live view's worker side: while a gateway says someone watches this desktop (a Redis
 * key it keeps alive), a capture helper of its own — so the agent's screenshots never wait
 * behind it — waits for X DAMAGE and answers each change with a frame, which is published to
 * the gateways (pub/sub) and kept as the desktop's latest. No watcher, no loop, no helper; a
 * still screen, no frames. Frames are spaced at least `minGapMs` apart (the frame-rate cap),
 * and whatever changed meanwhile is in the next one.
 *
 * A process desktop's live helper is a child the worker spawns; a container desktop's is one
 * its entry point starts for each connection to the live socket beside the capture socket,
 * gone when that connection closes (docs/console.md, "Container desktops").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { encodeLiveFrame, keys } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CaptureClient } from '../helpers/capture-client.ts';
import type { HelperTransport } from '../helpers/helper-process.ts';
import { LIVE_SOCKET } from '../desktops/container-provider.ts';

export const LIVE_DEFAULTS = { checkMs: 250, minGapMs: 25, quality: 60, waitMs: 1000, lastFrameMs: 60_000 } as const;

export class LiveFrames {
  private timer: NodeJS.Timeout | undefined;
  private watched = false;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly desktopId: string,
    private readonly transport: HelperTransport,
    private readonly redis: Redis,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.check(), LIVE_DEFAULTS.checkMs);
  }

  private async check(): Promise<void> {
    this.watched = (await this.redis.exists(keys.liveWatched(this.desktopId)).catch(() => 0)) === 1;
    if (this.watched && !this.running && !this.stopped) {
      this.running = this.stream()
        .catch((error: unknown) => this.log.warn({ err: error, desktop: this.desktopId }, 'live view stopped'))
        .finally(() => (this.running = null));
    }
  }

  private async publish(frame: Buffer): Promise<void> {
    await this.redis.multi().publish(keys.liveFrames(this.desktopId), frame).set(keys.liveLastFrame(this.desktopId), frame, 'PX', LIVE_DEFAULTS.lastFrameMs).exec();
  }

  private async stream(): Promise<void> {
    const transport = liveTransport(this.transport);
    if (!transport) {
      await this.publish(encodeLiveFrame({ at: Date.now(), width: 0, height: 0, captureMs: 0, unavailable: LIVE_UNAVAILABLE }));
      while (this.watched && !this.stopped) await sleep(LIVE_DEFAULTS.checkMs);
      return;
    }
    const helper = new CaptureClient(transport, this.log);
    helper.start();
    try {
      // A first frame at once (the screen may be still), then one per change.
      const first = await helper.call({ op: 'capture', format: 'jpeg', quality: LIVE_DEFAULTS.quality });
      await this.publish(encodeLiveFrame({ at: Date.now(), width: Number(first.header.width), height: Number(first.header.height), captureMs: 0 }, first.payload));
      let after = 0;
      while (this.watched && !this.stopped) {
        const began = performance.now();
        const frame = await helper.nextFrame(after, LIVE_DEFAULTS.waitMs, LIVE_DEFAULTS.quality);
        after = frame.damageEvents;
        if (frame.changed) await this.publish(encodeLiveFrame({ at: Date.now(), width: frame.width, height: frame.height, captureMs: Math.round(frame.ms * 10) / 10 }, frame.image));
        const gap = LIVE_DEFAULTS.minGapMs - (performance.now() - began);
        if (gap > 0) await sleep(gap);
      }
    } finally {
      await helper.stop();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}

const LIVE_UNAVAILABLE = `Live view is not available for this desktop: it offers no ${LIVE_SOCKET} beside its capture socket (a desktop image built before the live view: rebuild it with scripts/images.sh).`;

/**
 * Where the live view's own capture helper comes from: a spawned helper's command, run once
 * more; for a helper behind a socket, the live socket in the same folder (undefined when the
 * desktop has none).
 */
export function liveTransport(agents: HelperTransport): HelperTransport | undefined {
  if ('command' in agents) return agents;
  const socket = join(dirname(agents.socket), LIVE_SOCKET);
  return existsSync(socket) ? { socket } : undefined;
}
