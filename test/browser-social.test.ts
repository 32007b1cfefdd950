import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
// @ts-expect-error oidc-provider ships no type declarations
import Provider from 'oidc-provider';
import { ARTIFACTS, launchChromium } from './support/browser.js';
import { startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * The dashboard's social sign-in in a real browser, against a real OpenID provider on loopback
 * (oidc-provider with its development login and consent pages), as in test/social-login.test.ts.
 */

const ACCOUNTS: Record<string, Record<string, unknown>> = {
  alice: { sub: 'alice', email: 'alice@example.org', email_verified: true, name: 'Alice Example' },
  mallory: { sub: 'mallory', email: 'mallory@example.org', email_verified: false, name: 'Mallory' },
};

let postgres: TestPostgres;
let issuerServer: Server;
let kiln: TestKiln;
let browser: Browser;

before(async () => {
  postgres = await TestPostgres.start();
  issuerServer = createServer();
  await new Promise<void>((done) => issuerServer.listen(0, '127.0.0.1', done));
  const issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  kiln = await startTestKiln(await postgres.database(), {
    WORKER_CONCURRENCY: '0',
    KILN_OIDC_GOOGLE_ISSUER: issuer,
    KILN_OIDC_GOOGLE_CLIENT_ID: 'kiln',
    KILN_OIDC_GOOGLE_CLIENT_SECRET: 'kiln-client-secret',
  });
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'kiln', client_secret: 'kiln-client-secret', redirect_uris: [`${kiln.base}/auth/google/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['browser-social-test-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx: unknown, id: string) => (ACCOUNTS[id] ? { accountId: id, claims: () => ACCOUNTS[id] } : undefined),
  });
  issuerServer.on('request', provider.callback());
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await kiln?.stop();
  issuerServer?.closeAllConnections();
  await new Promise((done) => issuerServer?.close(done));
  await postgres?.stop();
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
