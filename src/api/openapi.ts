import { z } from 'zod';
import type { ResponseDoc, RouteDefinition, RouteTable } from './route.js';
import { errorEnvelope, healthSchema, pageMeta } from './schemas.js';

type Json = Record<string, unknown>;

/**
 * Builds the OpenAPI 3.1 document served at /v1/openapi.json from the same route table that is
 * mounted, so the document cannot describe a route, scope or schema other than the enforced one.
 */
export function openApiDocument(table: RouteTable, info: { version: string; serverUrl?: string }): Json {
  const paths: Record<string, Json> = {};
  for (const [path, item] of Object.entries(extraPaths())) paths[path] = { ...item };
  const tags: string[] = ['Service'];
  for (const route of table.routes) {
    const path = `/v1${route.path}`;
    paths[path] = { ...paths[path], [route.method]: operation(route) };
    if (!tags.includes(route.tag)) tags.push(route.tag);
  }
  if (!tags.includes('Events')) tags.push('Events');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Kiln API',
      version: info.version,
      description:
        'Multi-objective materials-optimization campaigns. Every route lives under /v1 and takes a bearer API key or JWT. ' +
        'Success bodies are {"data": ...} (lists add "meta" with page, per_page, total and total_pages); ' +
        'errors are {"error": {"code", "message", "details"?}}.',
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (svc_live_…, svc_test_…, svc_ci_…) or JWT' },
      },
      schemas: { ErrorEnvelope: schemaOf(errorEnvelope, 'output'), PageMeta: schemaOf(pageMeta, 'output') },
      headers: HEADERS,
      responses: Object.fromEntries(Object.entries(ERRORS).map(([status, error]) => [error.name, errorResponse(Number(status), error)])),
    },
  };
}

/** The routes served outside the route table (health, this document, the event socket). */
export function extraPaths(): Record<string, Json> {
  const publicErrors = refs([429, 500]);
  return {
    '/v1/health': {
      get: {
        operationId: 'getHealth',
        tags: ['Service'],
        summary: 'Service health',
        description: 'Public; no credentials needed. 503 (with the same body) when the database is unavailable.',
        security: [],
        responses: {
          200: envelopeResponse('healthy', schemaOf(healthSchema, 'output')),
          503: envelopeResponse('degraded: the database is unavailable', schemaOf(healthSchema, 'output')),
          ...publicErrors,
        },
      },
    },
    '/v1/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        tags: ['Service'],
        summary: 'This OpenAPI document',
        description: 'Public; no credentials needed. Returned as is, without the data envelope. A readable rendering is served at /docs.',
        security: [],
        responses: {
          200: { description: 'the OpenAPI 3.1 document', headers: responseHeaders(), content: { 'application/json': { schema: { type: 'object' } } } },
          ...publicErrors,
        },
      },
    },
    '/v1/ws': {
      get: {
        operationId: 'subscribeEvents',
        tags: ['Events'],
        summary: 'WebSocket: live job and campaign events',
        description: [
          'A WebSocket alternative to polling GET /v1/jobs/{job_id}. Authenticate the handshake like any request: the Authorization header, or `?token=` where a client cannot set headers. The connection counts as one request, at connection time.',
          "Subscribing reads the campaign and its jobs, so it needs the campaigns:read scope (otherwise an `error` message with code INSUFFICIENT_SCOPE). The credential is checked again while the socket is open (every 2 s, and at once when a key is revoked or changed); one that stops working closes the socket within 5 s with close code 4001 (revoked), 4002 (expired) or 4003 (outside the key's allowed_ips).",
          'Client messages: `{"type": "subscribe", "job_id": "..."}` or `{"type": "subscribe", "campaign_id": "..."}`, and the same with `"type": "unsubscribe"` to stop.',
          'Server messages: `{"type", "job_id", "campaign_id", "data", "timestamp"}` where type is `job.status`, `job.progress`, `job.log` or `campaign.status`. `job.progress` comes once per stored iteration and its `data.summary` holds what the iteration added (new rows, ids pushed off the Pareto front, failures, the campaign figures), so a client can append instead of re-reading the results. Subscribing to a resource of another organization answers an `error` message and no data.',
        ].join('\n\n'),
        security: [{ bearerAuth: [] }],
        parameters: [
          {
            name: 'token',
            in: 'query',
            required: false,
            description: 'API key or JWT, for clients that cannot set the Authorization header',
            schema: { type: 'string' },
          },
        ],
        responses: {
          101: { description: 'Switching Protocols: the connection is now a WebSocket', headers: responseHeaders() },
          ...refs([401, 429, 500]),
        },
      },
    },
  };
}

interface ErrorDoc {
  name: string;
  description: string;
}

// One sentence per status naming its codes and when each is returned, so clients learn the codes from the document.
const ERRORS: Record<number, ErrorDoc> = {
  400: { name: 'BadRequest', description: 'BAD_REQUEST: the body is not parseable JSON or multipart, or its Content-Type is wrong for the route.' },
  401: { name: 'Unauthenticated', description: 'UNAUTHENTICATED: no or bad credentials where credentials are required, or an expired key or token.' },
  403: {
    name: 'Forbidden',
    description:
      'INSUFFICIENT_SCOPE: the key lacks the scope the route needs (details.required_scope names it); IP_NOT_ALLOWED: the key has allowed_ips and the caller is outside them.',
  },
  404: { name: 'NotFound', description: 'NOT_FOUND: an unknown id, or a resource of another organization (its existence is never revealed).' },
  409: {
    name: 'Conflict',
    description:
      "INVALID_STATE: the action is not allowed in the resource's current status (details.status); CONCURRENT_CAMPAIGN_LIMIT: a start would exceed the plan's concurrent campaigns (details.limit).",
  },
  413: { name: 'PayloadTooLarge', description: 'PAYLOAD_TOO_LARGE: the body or upload is over the size or row limit (details.limit).' },
  422: {
    name: 'ValidationFailed',
    description: 'VALIDATION_FAILED: a schema or semantic error; details.errors lists every problem as {path, message}, not just the first.',
  },
  429: {
    name: 'RateLimited',
    description:
      'RATE_LIMITED: a rate limit is exceeded; details has limit, window and retry_after (seconds), and the Retry-After header says how long to wait.',
  },
  500: { name: 'Internal', description: 'INTERNAL: an unexpected error, logged under a request id that details.request_id repeats.' },
};

const HEADERS: Record<string, Json> = {
  XRequestId: { description: "the request's id (echoed from the request's X-Request-Id, or generated); logs carry it too", schema: { type: 'string' } },
  RetryAfter: { description: 'seconds to wait before retrying', schema: { type: 'integer' } },
  XRateLimitLimit: {
    description:
      "the requests the binding window allows (the window with the fewest left: the caller's key, a guest's address, or a refusal window); absent when rate limiting is off",
    schema: { type: 'integer' },
  },
  XRateLimitRemaining: { description: 'the requests left in that window', schema: { type: 'integer' } },
  XRateLimitReset: { description: 'when that window resets, in Unix seconds', schema: { type: 'integer' } },
};

function operation(route: RouteDefinition): Json {
  const parameters = [...pathParameters(route.path), ...queryParameters(route.query)];
  const body = requestBody(route);
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    // public routes take no credentials; guest routes work with or without them
    security: route.scope === 'public' ? [] : route.guests ? [{}, { bearerAuth: [] }] : [{ bearerAuth: [] }],
    'x-required-scope': route.scope,
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { ...declaredResponses(route.responses), ...refs(errorStatuses(route)) },
  };
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: `the ${name.replace(/_id$/, '').replace(/_/g, ' ')} id`,
    schema: { type: 'string' },
  }));
}

function queryParameters(query: z.ZodType | undefined): Json[] {
  if (!query) return [];
  const schema = schemaOf(query, 'input');
  const required = (schema.required as string[] | undefined) ?? [];
  return Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: 'query', required: required.includes(name), ...(description ? { description } : {}), schema: rest };
  });
}

function requestBody(route: RouteDefinition): Json | undefined {
  const jsonBody = route.bodyDoc ?? route.body;
  const json = jsonBody && schemaOf(jsonBody, 'input');
  const multipart = route.multipart && schemaOf(route.multipart, 'input');
  const primary = json ?? multipart;
  if (!primary) return undefined;
  return {
    // a body whose members are all optional may be omitted (an absent body reads as {})
    required: Boolean((primary.required as string[] | undefined)?.length),
    content: {
      ...(json ? { 'application/json': { schema: json } } : {}),
      ...(multipart ? { 'multipart/form-data': { schema: multipart } } : {}),
      ...(route.csv ? { 'text/csv': { schema: { type: 'string', description: route.csv.description } } } : {}),
    },
  };
}

function declaredResponses(responses: Record<number, ResponseDoc>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, doc]) => {
      const content: Json = {};
      if (doc.data) {
        const data = schemaOf(doc.data, 'output');
        const meta = doc.listMeta ? schemaOf(doc.listMeta, 'output') : undefined;
        content['application/json'] = { schema: doc.bare ? data : doc.list ? listEnvelope(data, meta) : envelope(data) };
      }
      if (doc.content) content[doc.content] = { schema: { type: 'string' } };
      return [status, { description: doc.description, headers: responseHeaders(), ...(Object.keys(content).length ? { content } : {}) }];
    }),
  );
}

function envelope(data: Json): Json {
  return { type: 'object', properties: { data }, required: ['data'] };
}

// `meta` is not required: some lists (logs) are complete and carry no paging; a list whose meta is
// not a page (candidates: why the list is what it is) names its own.
function listEnvelope(item: Json, meta: Json = { $ref: '#/components/schemas/PageMeta' }): Json {
  return {
    type: 'object',
    properties: { data: { type: 'array', items: item }, meta },
    required: ['data'],
  };
}

function envelopeResponse(description: string, data: Json): Json {
  return { description, headers: responseHeaders(), content: { 'application/json': { schema: envelope(data) } } };
}

function errorStatuses(route: RouteDefinition): number[] {
  const statuses = [400, 401, 403, 404, 422, 429, 500];
  if (route.method === 'post' || route.method === 'delete') statuses.push(409);
  if (route.body || route.multipart) statuses.push(413);
  return statuses.sort((a, b) => a - b);
}

function refs(statuses: number[]): Record<string, Json> {
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${ERRORS[status].name}` }]));
}

function errorResponse(status: number, error: ErrorDoc): Json {
  const retryAfter = status === 429 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {};
  return {
    description: error.description,
    headers: { ...responseHeaders(), ...retryAfter },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  };
}

/** On every response: the request id, and the rate-limit headers (routes that count nothing report the caller's window). */
function responseHeaders(): Json {
  return {
    'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
    'X-RateLimit-Limit': { $ref: '#/components/headers/XRateLimitLimit' },
    'X-RateLimit-Remaining': { $ref: '#/components/headers/XRateLimitRemaining' },
    'X-RateLimit-Reset': { $ref: '#/components/headers/XRateLimitReset' },
  };
}

/** JSON Schema 2020-12 is OpenAPI 3.1's own dialect, so only the root `$schema` marker goes. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}
