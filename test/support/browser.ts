/**
 * Debian's chromium (apt-get install chromium), driven by playwright-core: never a
 * downloaded browser. One browser per test file; its pages are reused by the tests.
 */
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = process.env.GURU_TEST_CHROMIUM ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM });
}

export interface WatchedPage {
  readonly page: Page;
  /**
   * Console errors and failed page scripts so far (a Content Security Policy violation shows
   * here). Responses with an error status are left out: the pages show those themselves.
   */
  readonly problems: string[];
}

/** A page in a context of its own, whose console errors and uncaught exceptions are kept. */
export async function watchedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  // Shorter than a test's timeout, so that a step that never happens names its locator.
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { page, problems };
}
