/**
 * GET /v1/fleet/demand: what the fleet needs, for autoscalers (docs/autoscaling.md). The
 * figures span every tenant, so no tenant's key reads them: the caller sends the fleet token
 * (DESKGATE_FLEET_TOKEN, a deployment secret). Without a token configured the route does not
 * exist (404); a missing or wrong token is a 401. Compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { FleetDemand } from '@deskgate/dispatch';
import { ApiError } from './api-error.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function fleetDemandRoute(token: string | undefined, read: () => Promise<FleetDemand>) {
  const expected = token === undefined ? undefined : digest(token);
  return async function fleetDemand(c: Context) {
    if (!expected) throw new ApiError(404, 'not_found', 'The fleet demand endpoint is off: the gateway has no DESKGATE_FLEET_TOKEN.');
    const given = /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (!given || !timingSafeEqual(digest(given), expected)) {
      throw new ApiError(401, 'unauthorized', 'Send the fleet token as "Authorization: Bearer <DESKGATE_FLEET_TOKEN>".', { 'WWW-Authenticate': 'Bearer realm="deskgate-fleet"' });
    }
    return c.json(await read());
  };
}
