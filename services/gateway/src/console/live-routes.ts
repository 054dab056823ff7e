/**
 * Live view over Server-Sent Events: `event: frame` with the JPEG (base64) and when it was
 * captured, pushed as the worker publishes them. For a signed-in operator
 * (`/console/api/sessions/<session>/live`) and for a view-only share link
 * (`/console/share/live`, its own cookie): a share link's holder sees one session's screen
 * and reaches nothing else, not even that session's other pages.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { LiveHub } from './live-hub.ts';
import { ApiError } from '../http/api-error.ts';
import type { SessionRouter } from '../sessions/session-router.ts';

/** Streams the session's frames until the browser goes away (or `until`, ms since the epoch). */
export async function streamLive(c: Context, hub: LiveHub, router: SessionRouter, tenant: string, session: string, until = Infinity) {
  const desktopId = await router.desktopOf({ tenant, name: session });
  if (!desktopId) throw new ApiError(404, 'not_found', `Session "${session}" has no desktop to watch.`);
  return streamSSE(c, async (stream) => {
    let pending: string | null = null;
    let writing = false;
    let wake: () => void = () => undefined;
    const flush = async () => {
      writing = true;
      while (pending !== null) {
        const data = pending;
        pending = null;
        await stream.writeSSE({ event: 'frame', data });
      }
      writing = false;
    };
    const stop = await hub.watch(desktopId, ({ header, image }) => {
      pending = JSON.stringify({ ...header, sentAt: Date.now(), jpeg: image.toString('base64') });
      if (!writing) void flush();
    });
    const ended = new Promise<void>((resolve) => (wake = resolve));
    stream.onAbort(() => wake());
    const left = until - Date.now();
    const timer = Number.isFinite(left) ? setTimeout(() => wake(), Math.max(0, left)) : undefined;
    await ended;
    clearTimeout(timer);
    stop();
    if (Number.isFinite(until)) await stream.writeSSE({ event: 'expired', data: '{}' }).catch(() => undefined);
  });
}
