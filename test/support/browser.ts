/**
 * Headless Chromium (Debian's `chromium`, driven by playwright-core) for the browser
 * suites (the console's and the API documentation's): one persistent context in a
 * temporary profile, its first page, and what a suite asserts did not happen: errors
 * the page threw, requests to another host, Content Security Policy violations.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { searchAvailableForTests } from './server.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumAvailable = (): boolean => existsSync(CHROMIUM);

export interface ConsoleBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught errors of the page, in order. */
  readonly pageErrors: string[];
  /** Requests of any of the context's pages to a host other than this machine. */
  readonly offHostRequests: string[];
  /** The page's console errors that report a Content Security Policy violation. */
  readonly cspViolations: string[];
  close(): Promise<void>;
}

export async function launchConsoleBrowser(options: { readonly viewport?: { readonly width: number; readonly height: number } } = {}): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'propgraph-browser-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: options.viewport ?? { width: 1360, height: 1000 },
  });
  const offHostRequests: string[] = [];
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol) && !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) offHostRequests.push(request.url());
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return {
    context,
    page,
    pageErrors,
    offHostRequests,
    cspViolations,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in on the console's sign-in form (the page shows it for any address without a session). */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * A console walk in Chromium needs Chromium and the suite's Meilisearch. Outside CI a
 * machine without them skips the walk, saying so; in CI (`CI=true`) a missing part fails
 * a test of its own instead, so that a green run never hides a walk that did not run.
 * Returns the `describe` to declare the walk with.
 */
export function consoleWalk(suite: string, walk: string): jest.Describe | typeof describe.skip {
  const haveChromium = chromiumAvailable();
  const inCi = process.env.CI === 'true';
  const canRun = haveChromium && searchAvailableForTests();
  if (!canRun && !inCi) console.warn(`${suite}: skipped (Chromium at ${CHROMIUM}: ${haveChromium}; Meilisearch for tests: ${searchAvailableForTests()})`);
  test(`CI has what ${walk} needs`, () => {
    if (inCi) expect({ chromium: haveChromium, search: searchAvailableForTests() }).toEqual({ chromium: true, search: true });
  });
  return canRun ? describe : describe.skip;
}
