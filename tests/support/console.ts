/**
 * The web console in Debian's Chromium through playwright-core (no downloaded browsers): a
 * browser per suite, a context per signed-in person, and helpers to sign in, to reuse a
 * context's cookie from Node (for the CSRF checks), and to keep screenshots for the docs.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from '../../scripts/lib/stack.ts';

export const CHROMIUM = process.env.DESKGATE_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set DESKGATE_CHROMIUM)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** The gateway's origin (http://127.0.0.1:<port>) from its MCP endpoint. */
export const originOf = (mcpUrl: string) => new URL(mcpUrl).origin;

export async function openConsole(browser: Browser, origin: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1100 } });
  const page = await context.newPage();
  await page.goto(`${origin}/console`);
  return { context, page };
}

/** Types the key into the sign-in form; resolves once the page answered (signed in or an error). */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.fill('input[name=key]', key);
  // Waits for this sign-in's own answer: an error shown by an earlier attempt is already on the page.
  const answered = page.waitForResponse((response) => response.url().endsWith('/console/api/sign-in'));
  await page.click('button[type=submit]');
  await answered;
  await page.waitForSelector('nav, .error');
}

/** The sign-in error the page shows once it reads `expected` (an earlier attempt's error may still be shown until the page renders the new one). */
export async function signInError(page: Page, expected: RegExp): Promise<string> {
  await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('.error')?.textContent ?? ''), expected.source, { timeout: 5000 }).catch(() => undefined);
  return (await page.textContent('.error')) ?? '';
}

/** The Cookie header a signed-in context sends to the console. */
export async function cookieHeader(context: BrowserContext, origin: string): Promise<string> {
  return (await context.cookies(`${origin}/console/api/me`)).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}

/** A full-page screenshot for docs/console.md. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${repoRoot}docs/console/${name}.png`, fullPage: true });
}

export interface ShownPixel {
  rgb: [number, number, number];
  /** When the frame was on screen in the page (epoch ms). */
  shownAt: number;
}

/** From now on, logs each live frame's pixel at (x, y) and when the page showed it (read with shownPixels). */
export async function logLivePixel(page: Page, x: number, y: number): Promise<void> {
  await page.evaluate(([x, y]) => {
    const w = window as unknown as { pixelLog: unknown[] };
    w.pixelLog = [];
    const img = document.querySelector<HTMLImageElement>('#screen')!;
    const canvas = document.createElement('canvas');
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    new MutationObserver(async () => {
      await img.decode().catch(() => undefined);
      const shownAt = Date.now();
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      context.drawImage(img, 0, 0);
      w.pixelLog.push({ rgb: [...context.getImageData(x!, y!, 1, 1).data.slice(0, 3)], shownAt });
    }).observe(img, { attributes: true, attributeFilter: ['src'] });
  }, [x, y]);
}

export const shownPixels = (page: Page) => page.evaluate(() => (window as unknown as { pixelLog: ShownPixel[] }).pixelLog);

/** Milliseconds between CLOCK_MONOTONIC (what the probe apps stamp, and process.hrtime reads) and the wall clock. */
export const monotonicToWall = () => Date.now() - Number(process.hrtime.bigint()) / 1e6;
