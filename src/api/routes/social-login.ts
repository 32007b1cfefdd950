import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  beginLogin,
  completeLogin,
  configuredProvider,
  configuredProviders,
  redeemLoginCode,
  SOCIAL_PROVIDERS,
  type SocialLoginServices,
} from '../../service/social-login.js';
import type { RouteTable } from '../route.js';

const signedIn = z.object({
  token: z.string().describe('a JWT'),
  expires_at: z.iso.datetime(),
  user: z.object({ id: z.string(), email: z.string(), name: z.string(), provider: z.enum(SOCIAL_PROVIDERS) }),
});

export function socialLoginRoutes(table: RouteTable, services: SocialLoginServices): void {
  table.add({
    method: 'get',
    path: '/auth/providers',
    operationId: 'listLoginProviders',
    tag: 'Authentication',
    summary: 'The social sign-in providers this server offers',
    description:
      'Step 0 of social login, for a sign-in page: each configured provider (google, github, orcid) with the address that starts its sign-in; ' +
      'append ?redirect_uri= with your callback. An empty list: sign in with an API key. No credentials needed.',
    scope: 'public',
    responses: {
      200: { description: 'the configured providers', data: z.object({ provider: z.enum(SOCIAL_PROVIDERS), sign_in_path: z.string() }), list: true },
    },
    handle: async () => ({ data: configuredProviders(services.config).map((provider) => ({ provider, sign_in_path: `/auth/${provider}` })) }),
  });

  table.add({
    method: 'post',
    path: '/auth/token',
    operationId: 'exchangeLoginCode',
    tag: 'Authentication',
    summary: 'Exchange the one-time code of a social sign-in for a JWT',
    description:
      'Step 3 of social login: the browser went to /auth/{provider}?redirect_uri=..., signed in at the provider, and came back to redirect_uri with ?code=. ' +
      'The code works once, within 2 minutes, with the same provider and redirect_uri; anything else is 401. No credentials needed.',
    scope: 'public',
    body: z.strictObject({
      provider: z.enum(SOCIAL_PROVIDERS),
      code: z.string().min(1).max(500),
      redirect_uri: z.url().describe('exactly the redirect_uri the sign-in started with'),
    }),
    responses: { 200: { description: 'the JWT and the signed-in user', data: signedIn } },
    handle: async ({ body }) => ({ data: await redeemLoginCode(services, body) }),
  });
}

/**
 * The browser's side of social login, at the server root ({web_url}/auth/{provider}) rather
 * than under /v1: a person follows these links, no API client calls them.
 */
export function socialLoginWebRouter(services: SocialLoginServices): Router {
  const router = new Router();
  router.get('/auth/:provider', async (ctx) => {
    const provider = configuredProvider(services.config, ctx.params.provider);
    redirect(ctx, await beginLogin(services, provider, ctx.query.redirect_uri, servedOrigin(ctx)));
  });
  router.get('/auth/:provider/callback', async (ctx) => {
    const provider = configuredProvider(services.config, ctx.params.provider);
    redirect(ctx, await completeLogin(services, provider, new URLSearchParams(ctx.querystring), servedOrigin(ctx)));
  });
  return router;
}

// Koa 3's ctx.origin is the request's Origin header, which a top-level navigation does not send.
function servedOrigin(ctx: Context): string {
  return `${ctx.protocol}://${ctx.host}`;
}

// The URLs carry single-use secrets: nothing may cache them or pass them on as a Referer.
function redirect(ctx: Context, to: URL): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.redirect(to.href);
}
