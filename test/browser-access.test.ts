import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { LocalOidcProvider, type OidcAccounts } from './support/oidc.js';
import type { TestKiln } from './support/service.js';

/**
 * Access in a real browser: social sign-in against a real OpenID provider on loopback
 * (test/support/oidc.ts),
 * a refused credential, and what the person is told about a missing scope or a rate limit.
 */

/** low enough for a test to reach, high enough for the other tests' few requests */
const PER_MINUTE = 30;

const ACCOUNTS: OidcAccounts = {
  alice: { sub: 'alice', email: 'alice@example.org', email_verified: true, name: 'Alice Example' },
  mallory: { sub: 'mallory', email: 'mallory@example.org', email_verified: false, name: 'Mallory' },
};

let provider: LocalOidcProvider;
let site: BrowserKiln;
let kiln: TestKiln;
let browser: Browser;

before(async () => {
  provider = await LocalOidcProvider.listen();
  site = await startBrowserKiln({ WORKER_CONCURRENCY: '0', API_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), ...provider.kilnEnv });
  ({ kiln, browser } = site);
  provider.attach(kiln.base, ACCOUNTS);
});

after(async () => {
  await site?.stop();
  await provider?.close();
});

/** Plays the person at the provider: its login form, then its consent form. */
async function signInAtProvider(page: Page, account: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign in with Google' }).click();
  await page.locator('input[name="login"]').fill(account);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]').click();
}

test('sign in with Google through the provider, use the dashboard with the JWT, sign out', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  await page.goto(kiln.base);
  await page.getByRole('link', { name: 'Sign in with Google' }).waitFor();
  assert.equal(await page.getByRole('link', { name: /Sign in with (GitHub|ORCID)/ }).count(), 0, 'only the configured provider is offered');
  await page.screenshot({ path: `${ARTIFACTS}/sign-in.png` });

  await signInAtProvider(page, 'alice');
  await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
  assert.equal(await page.getByTestId('signed-in-as').innerText(), 'Alice Example (google)');
  const url = new URL(page.url());
  assert.equal(url.search, '', 'the one-time code is gone from the address bar');
  assert.equal(url.hash, '#/campaigns');

  const token = await page.evaluate(() => sessionStorage.getItem('kiln.credential'));
  assert.equal(token?.split('.').length, 3, 'the dashboard holds a JWT');
  const me = await fetch(`${kiln.base}/v1/campaigns`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(me.status, 200, 'the JWT works against the API');
  await page.getByText('No campaigns yet').waitFor();

  await page.reload();
  await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
  assert.equal(await page.getByRole('alert').count(), 0, 'a reload does not replay the code');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('link', { name: 'Sign in with Google' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('kiln.credential')), null);
  assert.deepEqual(failures, []);
  await context.close();
});

test('a provider account whose email is not verified is refused, and the sign-in page says why', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(kiln.base);
  await signInAtProvider(page, 'mallory');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /mallory@example\.org is not verified/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('kiln.credential')), null, 'nobody is signed in');
  assert.equal(new URL(page.url()).search, '');
  await context.close();
});

test('an expired or revoked credential sends the person back to sign-in with the reason', async () => {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    if (!sessionStorage.getItem('seeded')) {
      sessionStorage.setItem('seeded', '1');
      sessionStorage.setItem('kiln.credential', 'svc_live_000000000000000000000000000000');
    }
  });
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/campaigns`);
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /You were signed out/);
  await page.getByLabel('API key or token').waitFor();
  await context.close();
});

async function createKey(name: string, scopes: string[]): Promise<string> {
  const res = await fetch(`${kiln.base}/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${kiln.adminKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, scopes }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { data: { key: string } }).data.key;
}

test('a missing scope is explained: which scope, and where to get a key with it', async () => {
  const reader = await createKey('read only', ['campaigns:read', 'templates:read']);
  const context = await signedInContext(browser, reader);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/campaigns`);
  const template = page.getByLabel('Template', { exact: true });
  await template.locator('option', { hasText: 'Desalination membrane' }).waitFor({ state: 'attached' });
  await template.selectOption({ label: 'Desalination membrane, water permeance vs salt rejection' });
  await page.getByRole('button', { name: 'Create campaign' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const text = await alert.innerText();
  assert.match(text, /"campaigns:write"/, text);
  assert.match(text, /Settings → API keys/);
  await page.screenshot({ path: `${ARTIFACTS}/missing-scope.png` });
  await context.close();
});

test('a rate limit is explained with the limit, the window and the wait', async () => {
  const key = await createKey('busy', ['campaigns:read', 'templates:read']);
  const context = await signedInContext(browser, key);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/jobs`);
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  // spend what is left of the key's minute from the page itself
  const statuses = await page.evaluate(async (n) => {
    const headers = { Authorization: `Bearer ${sessionStorage.getItem('kiln.credential')}` };
    return Promise.all(Array.from({ length: n }, () => fetch('/v1/jobs?per_page=1', { headers }).then((r) => r.status)));
  }, PER_MINUTE);
  assert.ok(statuses.includes(429), 'the limit was reached');
  await page.getByLabel('Status').selectOption('failed');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const text = await alert.innerText();
  assert.match(text, new RegExp(`${PER_MINUTE} requests per minute\\. Wait \\d+ seconds`), text);
  assert.match(text, /Nothing was lost/);
  assert.notEqual(await page.evaluate(() => sessionStorage.getItem('kiln.credential')), null, 'a rate limit does not sign anyone out');
  await page.screenshot({ path: `${ARTIFACTS}/rate-limited.png` });
  await context.close();
});
