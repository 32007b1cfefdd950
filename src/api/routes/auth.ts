import { z } from 'zod';
import { KilnError } from '../../errors.js';
import type { TokenService } from '../../service/tokens.js';
import { bearerToken } from '../auth.js';
import type { RouteTable } from '../route.js';

const tag = 'Authentication';
const tokenSchema = z.object({ token: z.string().describe('a JWT'), expires_at: z.iso.datetime() });

export function authRoutes(table: RouteTable, tokens: TokenService): void {
  table.add({
    method: 'post',
    path: '/auth/refresh',
    operationId: 'refreshToken',
    tag,
    summary: 'Exchange a still-valid JWT for a new one; the old one stops working',
    scope: 'none',
    responses: { 200: { description: 'the new token', data: tokenSchema } },
    handle: async ({ ctx }) => {
      const token = bearerToken(ctx.get('Authorization') || undefined);
      if (!token || token.startsWith('svc_'))
        throw new KilnError('UNAUTHENTICATED', 'Refresh takes the current JWT in the Authorization header (API keys are not refreshed).');
      return { data: await tokens.refresh(token) };
    },
  });

  table.add({
    method: 'post',
    path: '/auth/tokens',
    operationId: 'createToken',
    tag,
    summary: "Generate a JWT for the caller (shown once), with the caller's organization and scopes",
    description: 'What the web app\'s "settings, API keys, generate new token" calls. Default lifetime 30 days.',
    scope: 'none',
    body: z.strictObject({ expires_in_days: z.number().positive().max(366).optional().describe('default 30') }),
    responses: { 201: { description: 'the token', data: tokenSchema } },
    handle: async ({ body, principal }) => {
      const sub = principal.keyId;
      const requested = Math.round((body.expires_in_days ?? 30) * 86400);
      const seconds = sub.startsWith('key_') ? await tokens.lifetimeFor(sub, requested) : requested;
      return {
        status: 201,
        data: await tokens.issue({ sub, organizationId: principal.organizationId, plan: principal.plan, scopes: principal.scopes }, seconds),
      };
    },
  });
}
