/**
 * Every Redis key deskgate uses, in one place. Tenant and session names are validated
 * before they get here (see names.ts), so they can never smuggle a ":" into another key.
 */
const PREFIX = 'deskgate';

export const keys = {
  apiKeys: () => `${PREFIX}:apikeys`,
  session: (tenant: string, name: string) => `${PREFIX}:session:${tenant}:${name}`,
  sessionsOfTenant: (tenant: string) => `${PREFIX}:tenant:${tenant}:sessions`,
  desktop: (desktopId: string) => `${PREFIX}:desktop:${desktopId}`,
  desktopAlive: (desktopId: string) => `${PREFIX}:desktop:${desktopId}:alive`,
  desktopActions: (desktopId: string) => `${PREFIX}:desktop:${desktopId}:actions`,
  /** The desktop's lock: "<epoch>|<controller>", with a lease (PX) the holder keeps renewing. */
  desktopLock: (desktopId: string) => `${PREFIX}:desktop:${desktopId}:lock`,
  /** The desktop's fencing counter: INCR'd each time a controller takes the lock. */
  desktopEpoch: (desktopId: string) => `${PREFIX}:desktop:${desktopId}:epoch`,
  /** The worker's last claim on the desktop's action list, "<number>|<entry>" (lua/claimAction-3.lua). */
  desktopClaimed: (desktopId: string) => `${PREFIX}:desktop:${desktopId}:claimed`,
  replies: (gatewayId: string) => `${PREFIX}:replies:${gatewayId}`,
  approvals: (tenant: string) => `${PREFIX}:tenant:${tenant}:approvals`,
  approvalDecision: (id: string) => `${PREFIX}:approval:${id}:decision`,
  killSwitch: () => `${PREFIX}:killswitch`,
  tenantKillSwitch: (tenant: string) => `${PREFIX}:tenant:${tenant}:killswitch`,
  /** A tenant's tool calls in the current one-second window (a counter that expires with it). */
  tenantCalls: (tenant: string) => `${PREFIX}:tenant:${tenant}:calls`,
  /** Sessions being started for a tenant (name → expiry, ms): counted against its session quota until they exist. */
  tenantSessionReservations: (tenant: string) => `${PREFIX}:tenant:${tenant}:starting`,
  /** A session's audit log: a stream, capped in length and expiring when the session goes quiet. */
  audit: (tenant: string, name: string) => `${PREFIX}:audit:${tenant}:${name}`,
  /** A web console sign-in, by the SHA-256 of its cookie's session id (expires with it). */
  consoleSession: (idHash: string) => `${PREFIX}:console:session:${idHash}`,
  /** Who last flipped a tenant's kill switch, and when (written with the switch itself). */
  killSwitchFlip: (tenant: string) => `${PREFIX}:tenant:${tenant}:killswitch:flip`,
  /** Who last flipped the global kill switch, and when. */
  globalKillSwitchFlip: () => `${PREFIX}:killswitch:flip`,
  /** Set (with a short lease) by gateways while someone watches the desktop live; the worker streams frames only then. */
  liveWatched: (desktopId: string) => `${PREFIX}:desktop:${desktopId}:live:watched`,
  /** Pub/sub channel of the desktop's live frames (docs/console.md). */
  liveFrames: (desktopId: string) => `${PREFIX}:desktop:${desktopId}:live:frames`,
  /** The desktop's latest live frame, for a viewer who joins while the screen is still. */
  liveLastFrame: (desktopId: string) => `${PREFIX}:desktop:${desktopId}:live:last`,
  /** A view-only share link of one session's live view, by the SHA-256 of its token (expires with it). */
  consoleShare: (tokenHash: string) => `${PREFIX}:console:share:${tokenHash}`,
  /** Pub/sub channel of what a tenant's console pages are told as it happens (console-events.ts). */
  consoleEvents: (tenant: string) => `${PREFIX}:tenant:${tenant}:console:events`,
  /** Small frames of a session's screen after each call, for the console's timeline: a capped stream. */
  auditFrames: (tenant: string, name: string) => `${PREFIX}:audit:${tenant}:${name}:frames`,
  /** BullMQ prefix; queues live under it. */
  bullPrefix: () => `${PREFIX}:bull`,
} as const;

export const LIFECYCLE_QUEUE = 'lifecycle';
