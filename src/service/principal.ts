/** Scopes of interface.md 5.1 plus decisions.md's templates:write. */
export const SCOPES = [
  'campaigns:read',
  'campaigns:write',
  'campaigns:delete',
  'datasets:read',
  'datasets:write',
  'templates:read',
  'templates:write',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Who is calling: resolved once per request by the API's authentication. */
export interface Principal {
  organizationId: string;
  plan: string;
  keyId: string;
  scopes: readonly Scope[];
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes('admin') || principal.scopes.includes(scope);
}
