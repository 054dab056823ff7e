/**
 * The console's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site
 * sends it), and Secure whenever the console is reached over TLS — then also under the
 * `__Host-` prefix, which pins it to this host and path `/`. Over plain HTTP (the loopback
 * sandbox) a Secure cookie would never be sent back, so it is named without the prefix and
 * scoped to `/console`. `DESKGATE_CONSOLE_SECURE_COOKIE=true` forces Secure behind a proxy
 * that terminates TLS without saying so (X-Forwarded-Proto).
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';

/** Set as `__Host-deskgate_console` over TLS (Hono adds the prefix), else `deskgate_console`. */
export const COOKIE_NAME = 'deskgate_console';

export class SessionCookie {
  constructor(private readonly forceSecure: boolean) {}

  overTls(c: Context): boolean {
    return this.forceSecure || new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
  }

  /** The session id the request carries, under either name. */
  read(c: Context): string | undefined {
    return getCookie(c, COOKIE_NAME, 'host') ?? getCookie(c, COOKIE_NAME);
  }

  set(c: Context, id: string, maxAgeSeconds: number): void {
    setCookie(c, COOKIE_NAME, id, { ...this.options(c), maxAge: maxAgeSeconds });
  }

  clear(c: Context): void {
    deleteCookie(c, COOKIE_NAME, this.options(c));
  }

  private options(c: Context): CookieOptions {
    const secure = this.overTls(c);
    return { httpOnly: true, sameSite: 'Strict', secure, path: secure ? '/' : '/console', ...(secure ? { prefix: 'host' as const } : {}) };
  }
}
