/**
 * DNS-rebinding and cross-site defence for every route, health probes and metrics included: a
 * request whose Host is not an allowed name, or whose Origin (sent by browsers) is not an
 * allowed origin, gets 403 before anything else runs. Hostnames are compared without ports.
 * `allowedHosts` undefined skips the Host check (bound wider than localhost behind a proxy
 * that checks it); a request without an Origin passes (non-browser clients send none).
 */
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../http/api-error.ts';

export interface HostOriginOptions {
  allowedHosts?: string[];
  allowedOrigins: string[];
}

export function hostOriginCheck(options: HostOriginOptions) {
  return createMiddleware(async function hostOriginCheckMiddleware(c, next) {
    if (options.allowedHosts) {
      const host = validateHostHeader(c.req.header('host'), options.allowedHosts);
      if (!host.ok) throw new ApiError(403, 'forbidden_host', `${host.message} (this gateway answers only to its configured host names: DESKGATE_ALLOWED_HOSTS).`);
    }
    const origin = validateOriginHeader(c.req.header('origin'), options.allowedOrigins);
    if (!origin.ok) throw new ApiError(403, 'forbidden_origin', `${origin.message} (allowed origins: DESKGATE_ALLOWED_ORIGINS).`);
    await next();
  });
}
