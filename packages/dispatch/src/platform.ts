/**
 * Which kind of desktop a worker offers, and how a session asks for one. A worker advertises
 * its platform and capabilities in its capacity record; allocations go to one BullMQ queue per
 * platform, so a session that asks for macOS is only ever taken by a macOS worker. Linux keeps
 * the original queue name: workers and gateways that know nothing of platforms go on working.
 * A request for a platform no live worker offers fails at once, before anything is queued.
 */
import { z } from 'zod';
import { ToolError } from '@deskgate/computer-use';
import { LIFECYCLE_QUEUE } from './keys.ts';

export const PLATFORMS = ['linux', 'macos'] as const;
export type Platform = (typeof PLATFORMS)[number];
export const platformSchema = z.enum(PLATFORMS);

/** What a worker says of itself beside its room (docs/macos.md, "Platforms"). */
export interface WorkerAdvertisement {
  platform: Platform;
  /** What its desktops can do, e.g. "bare_metal", "console_session", "x11", "screencapturekit". */
  capabilities: string[];
}

/** The allocation queue of a platform's workers. */
export function lifecycleQueueFor(platform: Platform): string {
  return platform === 'linux' ? LIFECYCLE_QUEUE : `${LIFECYCLE_QUEUE}-${platform}`;
}

/** Set once by a worker at start (main.ts); every capacity record it publishes carries it. */
const advertisements = new Map<string, WorkerAdvertisement>();

export function advertiseWorker(workerId: string, advertisement: WorkerAdvertisement): void {
  advertisements.set(workerId, { platform: advertisement.platform, capabilities: [...advertisement.capabilities] });
}

/** The fields a worker's capacity record adds for its advertisement (none when it made none: read as linux). */
export function advertisedBy(workerId: string): Partial<WorkerAdvertisement> {
  return advertisements.get(workerId) ?? {};
}

/** A session asked for a platform that no live worker offers: nothing was queued. */
export class PlatformUnavailableError extends ToolError {
  constructor(
    readonly platform: Platform,
    readonly offered: readonly Platform[],
  ) {
    const offers = offered.length ? `this deployment offers ${offered.join(', ')} desktops right now` : 'no worker is running right now';
    super('desktop_unavailable', `No worker offers ${platform} desktops, so this session could not start: ${offers}. Nothing was done; ask for ${offered.length ? `one of ${offered.join(', ')} (?platform=) or leave platform out` : 'it again later'}.`);
  }
}
