import { validateHeaderName, validateHeaderValue } from 'node:http';
import { HttpHostPolicy } from './http-host-policy.js';
import { pinnedPost, postCancelled, type PinnedPostTarget } from './http-pinned-post.js';
import { httpRequestBody, parseHttpResponse } from './http-protocol.js';
import { Redactor } from './http-redactor.js';
import { withRetries } from './http-retry.js';
import type { MeasuredNames } from './measured.js';
import { EvaluatorError, type EvaluateOptions, type EvaluationOutcome, type EvaluationRequest, type Evaluator } from './types.js';

export interface HttpEvaluatorSettings {
  /** Endpoint that receives each batch (http or https). */
  url: string;
  /** Extra request headers, e.g. an authorization token; their values never appear in error messages. */
  headers?: Readonly<Record<string, string>>;
  /** Limit per attempt, from connecting to the end of the response. */
  timeoutSeconds: number;
  /** MDL objective and outcome names, in order: sent to the service and required in every result. */
  names: MeasuredNames;
  /**
   * Hosts campaigns may reach, an administrator's choice (KILN_HTTP_EVALUATOR_HOSTS): `example.com`,
   * `*.example.com` (subdomains only), `127.0.0.1`, `localhost:9000`, `[::1]:9000`, or `*` for any
   * public address. Only an exact (non-wildcard) entry lets a host resolve to an internal address.
   */
  allowHosts: readonly string[];
  /** Largest response body accepted, in bytes (default 10 MiB). */
  maxResponseBytes?: number;
  /** Further attempts after a network error, timeout, 408, 429 or 5xx (default 2). */
  retries?: number;
  /** Wait before the first retry, doubled for each further one (default 500 ms). */
  backoffMs?: number;
}

const DEFAULT_MAX_RESPONSE = 10 * 1024 * 1024;
const DEFAULT_RETRIES = 2;
const DEFAULT_BACKOFF_MS = 500;
/** Header parts shorter than this are too common to be secrets, and redacting them would garble messages. */
const MIN_SECRET_LENGTH = 4;
/** Set by Kiln from the body it sends; a campaign overriding them would corrupt the request. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'keep-alive', 'te', 'trailer']);

/**
 * POSTs each batch to an HTTP service (protocol: http-protocol.ts, docs/evaluators.md), to hosts
 * an administrator allows (http-host-policy.ts), connecting only to the addresses checked
 * (http-pinned-post.ts), and trying again after failures that may pass (http-retry.ts).
 */
export class HttpEvaluator implements Evaluator {
  readonly kind = 'http' as const;
  private readonly target: PinnedPostTarget;
  private readonly names: MeasuredNames;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(settings: HttpEvaluatorSettings) {
    let url: URL;
    try {
      url = new URL(settings.url);
    } catch (error) {
      throw new EvaluatorError('invalid', `the http evaluator's url ${JSON.stringify(settings.url)} is not a valid URL.`, { cause: error });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new EvaluatorError('invalid', `the http evaluator's url must start with http:// or https://, not ${url.protocol}//.`);
    }
    // without credentials or query, which may hold tokens
    const shown = `${url.origin}${url.pathname}`;
    const policy = new HttpHostPolicy(url, settings.allowHosts, shown);

    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(settings.headers ?? {})) {
      const lower = name.toLowerCase();
      if (RESERVED_HEADERS.has(lower)) {
        throw new EvaluatorError('invalid', `the http evaluator's header '${name}' is set by Kiln itself; remove it from evaluator.headers.`);
      }
      try {
        validateHeaderName(name);
        validateHeaderValue(name, value);
      } catch (error) {
        // Node's messages name the header but not its value, which may be a token
        throw new EvaluatorError('invalid', `the http evaluator's header '${name}' is not valid: ${(error as Error).message}`, { cause: error });
      }
      headers[lower] = value;
    }
    if (url.username && headers.authorization === undefined) {
      const credentials = `${decode(url.username)}:${decode(url.password)}`;
      headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    const secrets: string[] = [];
    for (const value of Object.values(headers)) {
      for (const part of [value, ...value.split(/\s+/)]) if (part.length >= MIN_SECRET_LENGTH) secrets.push(part);
    }
    if (url.password) secrets.push(url.password, decode(url.password));

    this.target = {
      url,
      shown,
      policy,
      headers,
      timeoutSeconds: settings.timeoutSeconds,
      maxResponseBytes: settings.maxResponseBytes ?? DEFAULT_MAX_RESPONSE,
      redactor: new Redactor(secrets),
    };
    this.names = settings.names;
    this.retries = settings.retries ?? DEFAULT_RETRIES;
    this.backoffMs = settings.backoffMs ?? DEFAULT_BACKOFF_MS;
  }

  async evaluate(batch: readonly EvaluationRequest[], options: EvaluateOptions = {}): Promise<EvaluationOutcome[]> {
    const { signal } = options;
    const { shown, redactor } = this.target;
    if (signal?.aborted) throw postCancelled(shown, signal);
    if (batch.length === 0) return [];
    const { body, ids } = httpRequestBody(batch, this.names);
    const response = await withRetries(() => pinnedPost(this.target, body, signal), { retries: this.retries, backoffMs: this.backoffMs }, shown, signal);
    return parseHttpResponse(response, ids, { names: this.names, shown, redactor });
  }
}

/** URL credentials as typed: a stray `%` that is no escape is kept rather than failing. */
function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
