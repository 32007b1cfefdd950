import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { startTestKiln, TestPostgres, type TestKiln } from './service.js';

/** Debian's chromium (.ci/run installs it); KILN_CHROMIUM points elsewhere. */
export const CHROMIUM = process.env.KILN_CHROMIUM ?? '/usr/bin/chromium';
/** Screenshots for a person to look at; not committed. */
export const ARTIFACTS = 'test-artifacts';

export async function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A browser context already signed in with `credential`, as the sign-in page leaves it. */
export async function signedInContext(browser: Browser, credential: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((key) => sessionStorage.setItem('kiln.credential', key), credential);
  return context;
}

export interface BrowserKiln {
  kiln: TestKiln;
  browser: Browser;
  stop(): Promise<void>;
}

/** Kiln on a fresh database of the shared test Postgres and a chromium to drive it: the set-up of every browser test file. */
export async function startBrowserKiln(env: Record<string, string> = {}): Promise<BrowserKiln> {
  const postgres = await TestPostgres.start();
  let kiln: TestKiln | undefined;
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close();
    await kiln?.stop();
    await postgres.stop();
  };
  try {
    kiln = await startTestKiln(await postgres.database(), env);
    browser = await launchChromium();
    return { kiln, browser, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
