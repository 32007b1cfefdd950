import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import {
  request as httpRequest,
  validateHeaderName,
  validateHeaderValue,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import ipaddr from 'ipaddr.js';
import { quoteNonFiniteTokens } from '../../json-text.js';
import { isObject, readMeasured, reportsFailure, type MeasuredNames } from './measured.js';
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
/** Share of each backoff added at random, so that evaluators failing together do not retry in step. */
const JITTER = 0.2;
/** Characters of a response quoted in error messages. */
const PREVIEW = 200;
/** Header parts shorter than this are too common to be secrets, and redacting them would garble messages. */
const MIN_SECRET_LENGTH = 4;
const HOSTS_SETTING = 'KILN_HTTP_EVALUATOR_HOSTS';
/** Set by Kiln from the body it sends; a campaign overriding them would corrupt the request. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'keep-alive', 'te', 'trailer']);

/**
 * Whether a campaign must not reach this address unless an administrator lists its host exactly:
 * anything that is not ordinary public unicast by ipaddr.js's range classification (loopback,
 * private, link-local, where cloud metadata lives at 169.254.169.254, unique-local, carrier-grade
 * NAT, benchmarking 198.18.0.0/15, multicast, reserved 240.0.0.0/4, unspecified, NAT64
 * 64:ff9b::/96, 6to4 2002::/16, Teredo and the rest). IPv4-mapped IPv6 addresses
 * (::ffff:127.0.0.1) are judged as the IPv4 address they carry. Unparseable means refused.
 */
function isInternal(address: string): boolean {
  try {
    return ipaddr.process(address).range() !== 'unicast';
  } catch {
    return true;
  }
}

interface HostRule {
  /** Lower-case host without trailing dot or IPv6 brackets; `*` for any, `*.suffix` for subdomains. */
  host: string;
  /** Absent: any port. */
  port?: string;
}

/** One failed attempt; retryable ones are tried again after a backoff. */
class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/**
 * POSTs each batch to an HTTP service (protocol: docs/evaluators.md). Only hosts an administrator
 * allows are reached, and the address checked is the address connected to, so a DNS answer that
 * changes between check and connect cannot redirect a campaign to an internal service.
 */
export class HttpEvaluator implements Evaluator {
  readonly kind = 'http' as const;
  private readonly url: URL;
  /** The URL as shown in messages: without credentials or query, which may hold tokens. */
  private readonly shown: string;
  private readonly hostname: string;
  /** Listed exactly in the allowlist, so internal addresses are allowed. */
  private readonly explicit: boolean;
  private readonly headers: Record<string, string>;
  private readonly secrets: string[];
  private readonly settings: HttpEvaluatorSettings;

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
    this.url = url;
    this.shown = `${url.origin}${url.pathname}`;
    this.hostname = normalizeHost(url.hostname);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const rules = settings.allowHosts.map(parseHostRule);
    const matching = rules.filter((rule) => hostMatches(rule, this.hostname) && (rule.port === undefined || rule.port === port));
    if (matching.length === 0) {
      const why = rules.length === 0 ? 'no hosts are allowed for http evaluators' : `${this.hostname}:${port} is not among the allowed hosts`;
      throw new EvaluatorError(
        'refused',
        `this campaign's http evaluator posts to ${this.shown}, and ${why}. ` +
          `An administrator must add ${this.hostname} (or ${this.hostname}:${port}) to ${HOSTS_SETTING} before such a campaign can run.`,
      );
    }
    this.explicit = matching.some((rule) => !rule.host.startsWith('*'));

    this.headers = {};
    this.secrets = [];
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
      this.headers[lower] = value;
    }
    if (url.username && this.headers.authorization === undefined) {
      const credentials = `${decode(url.username)}:${decode(url.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    for (const value of Object.values(this.headers)) {
      for (const part of [value, ...value.split(/\s+/)]) if (part.length >= MIN_SECRET_LENGTH) this.secrets.push(part);
    }
    if (url.password) this.secrets.push(url.password, decode(url.password));
    // longest first, so that a whole value is redacted before the parts it contains
    this.secrets.sort((a, b) => b.length - a.length);
    this.settings = settings;
  }

  async evaluate(batch: readonly EvaluationRequest[], options: EvaluateOptions = {}): Promise<EvaluationOutcome[]> {
    const { signal } = options;
    if (signal?.aborted) throw this.cancelled(signal);
    if (batch.length === 0) return [];
    const ids = batch.map((request, i) => {
      const id = (request as { id?: unknown }).id;
      return typeof id === 'string' ? id : String(i);
    });
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
    if (duplicate !== undefined) {
      throw new EvaluatorError('invalid', `two candidates in the batch have the id ${JSON.stringify(duplicate)}; ids must be distinct.`);
    }
    const body = JSON.stringify({
      candidates: batch.map((request, i) => ({ id: ids[i], parameters: request.parameters })),
      objectives: this.settings.names.objectives,
      ...(this.settings.names.outcomes.length > 0 ? { outcomes: this.settings.names.outcomes } : {}),
    });
    return this.parseResponse(await this.post(body, signal), ids);
  }

  /** Sends `body`, retrying with exponential backoff; resolves with the body of a 2xx response. */
  private async post(body: string, signal: AbortSignal | undefined): Promise<string> {
    const attempts = 1 + (this.settings.retries ?? DEFAULT_RETRIES);
    const backoff = this.settings.backoffMs ?? DEFAULT_BACKOFF_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(body, signal);
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        if (!error.retryable || attempt >= attempts) {
          throw new EvaluatorError(
            error.timedOut ? 'timeout' : 'failed',
            `the http evaluator's POST to ${this.shown} failed after ${attempt} attempt${attempt === 1 ? '' : 's'}; the last: ${error.message}`,
          );
        }
      }
      const wait = backoff * 2 ** (attempt - 1);
      try {
        await sleep(wait + Math.random() * wait * JITTER, undefined, { signal });
      } catch {
        throw this.cancelled(signal);
      }
    }
  }

  /** One request to a freshly checked address. */
  private attempt(body: string, signal: AbortSignal | undefined): Promise<string> {
    const { timeoutSeconds } = this.settings;
    const maxResponse = this.settings.maxResponseBytes ?? DEFAULT_MAX_RESPONSE;
    return new Promise<string>((resolve, reject) => {
      let request: ClientRequest | undefined;
      let settled = false;
      const settle = (error: Error | undefined, text?: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error) {
          // destroys the socket too (no agent pools it), so nothing more is read or sent
          request?.destroy();
          reject(error);
        } else resolve(text ?? '');
      };
      const onAbort = (): void => settle(this.cancelled(signal));
      const timer = setTimeout(
        () => settle(new AttemptFailure(`no complete response within ${timeoutSeconds} s (evaluator.timeout_seconds).`, true, true)),
        timeoutSeconds * 1000,
      );
      if (signal?.aborted) {
        settle(this.cancelled(signal));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });

      this.resolve()
        .then((addresses) => {
          if (settled) return;
          request = this.open(addresses, Buffer.byteLength(body));
          // connecting to several addresses fails with an AggregateError whose message is empty
          request.on('error', (error: NodeJS.ErrnoException) => settle(new AttemptFailure(`${error.message || error.code || String(error)}.`, true)));
          request.on('response', (response) => this.receive(response, maxResponse, settle));
          request.end(body);
        })
        .catch(settle);
    });
  }

  /** A POST request that connects only to `addresses`, while Host and TLS name stay the URL's host. */
  private open(addresses: LookupAddress[], contentLength: number): ClientRequest {
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    };
    const headers: OutgoingHttpHeaders = {
      accept: 'application/json',
      ...this.headers,
      'content-type': 'application/json',
      'content-length': contentLength,
      'user-agent': 'kiln',
    };
    const { url } = this;
    return (url.protocol === 'https:' ? httpsRequest : httpRequest)({
      method: 'POST',
      protocol: url.protocol,
      hostname: this.hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers,
      lookup: pinned,
      // no SNI for an address (the URL parser has written it canonically)
      servername: ipaddr.isValid(this.hostname) ? undefined : this.hostname,
      // a pooled socket would outlive the address check it was made for
      agent: false,
    });
  }

  /** Reads a response: its body when 2xx, otherwise enough of it to say what went wrong. */
  private receive(response: IncomingMessage, maxResponse: number, settle: (error: Error | undefined, text?: string) => void): void {
    const status = response.statusCode ?? 0;
    const answered = `the service answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
    response.on('error', (error) => settle(new AttemptFailure(`the response broke off: ${error.message}.`, true)));
    if (status >= 300 && status < 400) {
      const location = response.headers.location ? ` (to ${this.preview(response.headers.location)})` : '';
      settle(new AttemptFailure(`${answered}${location}; redirects are not followed, so set evaluator.url to the final address.`, false));
      return;
    }
    const ok = status >= 200 && status < 300;
    const tooLarge = (): EvaluatorError =>
      new EvaluatorError(
        'protocol',
        `the response from ${this.shown} is larger than ${formatBytes(maxResponse)} and was not read to the end; a batch's results should be far smaller.`,
      );
    if (ok && Number(response.headers['content-length']) > maxResponse) {
      settle(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    const failed = (): void => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      const retryable = status === 408 || status === 429 || status >= 500;
      const quoted = text ? `: ${this.preview(text)}` : '';
      settle(new AttemptFailure(`${answered}${quoted}${retryable ? '' : '; 4xx responses other than 408 and 429 are not retried.'}`, retryable));
    };
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      chunks.push(chunk);
      if (ok && bytes > maxResponse) settle(tooLarge());
      else if (!ok && bytes >= PREVIEW * 4) failed();
    });
    response.on('end', () => (ok ? settle(undefined, Buffer.concat(chunks).toString('utf8')) : failed()));
  }

  /** The addresses `hostname` resolves to now, refused when internal and the host is not listed exactly. */
  private async resolve(): Promise<LookupAddress[]> {
    let addresses: LookupAddress[];
    try {
      addresses = await lookup(this.hostname, { all: true });
    } catch (error) {
      throw new AttemptFailure(`could not resolve ${this.hostname}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, true);
    }
    if (addresses.length === 0) throw new AttemptFailure(`${this.hostname} resolved to no addresses.`, true);
    if (!this.explicit) {
      // one internal address refuses the host: a name that mixes public and internal ones is suspect
      const internal = addresses.find(({ address }) => isInternal(address));
      if (internal) {
        throw new EvaluatorError(
          'refused',
          `this campaign's http evaluator posts to ${this.shown}, and ${this.hostname} resolves to ${internal.address}, an internal address ` +
            `(loopback, private, link-local or similar) that wildcard entries do not allow. An administrator must add ${this.hostname} ` +
            `itself to ${HOSTS_SETTING} before such a campaign can run.`,
        );
      }
    }
    return addresses;
  }

  /**
   * Outcomes from a 2xx body: matched by id when the results carry ids, else by position. Throws
   * EvaluatorError (code 'protocol') when the body as a whole is unusable.
   */
  private parseResponse(body: string, ids: readonly string[]): EvaluationOutcome[] {
    const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
    const shape = `it must answer {"results": [...]} with one result per candidate`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(quoteNonFiniteTokens(text));
    } catch (error) {
      throw new EvaluatorError(
        'protocol',
        `the response from ${this.shown} is not valid JSON (${(error as Error).message}); ${shape}. The response begins ${this.preview(text)}.`,
        { cause: error },
      );
    }
    const results: unknown = parsed !== null && typeof parsed === 'object' ? (parsed as { results?: unknown }).results : undefined;
    if (!Array.isArray(results)) {
      throw new EvaluatorError('protocol', `the response from ${this.shown} has no "results" array; ${shape}. The response begins ${this.preview(text)}.`);
    }
    if (results.length !== ids.length) {
      throw new EvaluatorError(
        'protocol',
        `the response from ${this.shown} has ${results.length} result${results.length === 1 ? '' : 's'} for ${ids.length} candidate${ids.length === 1 ? '' : 's'}; ${shape}, in order or with the candidates' ids.`,
      );
    }
    const idOf = (entry: unknown): unknown => (entry !== null && typeof entry === 'object' ? (entry as { id?: unknown }).id : undefined);
    if (!results.some((entry) => idOf(entry) !== undefined)) return results.map((entry, i) => this.outcome(entry, ids[i]));

    const byId = new Map<string, unknown>();
    for (const [i, entry] of results.entries()) {
      const id = idOf(entry);
      if (typeof id !== 'string' || !ids.includes(id) || byId.has(id)) {
        const problem =
          typeof id !== 'string' ? `has no string id while others do` : byId.has(id) ? `repeats id ${JSON.stringify(id)}` : `has id ${JSON.stringify(id)}, which was not sent`;
        throw new EvaluatorError('protocol', `result ${i} from ${this.shown} ${problem}; results carrying ids must carry each candidate's id once.`);
      }
      byId.set(id, entry);
    }
    return ids.map((id) => this.outcome(byId.get(id), id));
  }

  private outcome(entry: unknown, id: string): EvaluationOutcome {
    const which = `the result for candidate ${JSON.stringify(id)}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      return { ok: false, error: `${which} is ${this.clip(JSON.stringify(entry) ?? String(entry))}, not {"objectives": {...}} or {"error": "..."}.` };
    }
    const record = entry as Record<string, unknown>;
    if (reportsFailure(record, this.settings.names, false)) {
      const reason = typeof record.error === 'string' ? record.error : JSON.stringify(record.error);
      return { ok: false, error: `the service reported: ${this.redact(reason ?? '')}` };
    }
    const values = record.objectives;
    if (!isObject(values)) {
      return { ok: false, error: `${which} has no "objectives" object (expected ${this.settings.names.objectives.join(', ')}).` };
    }
    return readMeasured(values, record, this.settings.names, which, (v) => this.clip(JSON.stringify(v) ?? String(v)));
  }

  private cancelled(signal: AbortSignal | undefined): EvaluatorError {
    return new EvaluatorError('cancelled', `the evaluation was cancelled; stopped posting to ${this.shown}.`, { cause: signal?.reason });
  }

  /** Text from the service, with header values taken out: a service may echo the request back. */
  private redact(text: string): string {
    return this.secrets.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
  }

  /** Text from the service as quoted in messages: redacted, and cut short. */
  private clip(text: string): string {
    const clean = this.redact(text);
    return clean.length > PREVIEW ? `${clean.slice(0, PREVIEW)}…` : clean;
  }

  private preview(text: string): string {
    return JSON.stringify(this.clip(text));
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

function normalizeHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

/** An allowlist entry: `host`, `host:port`, `[ipv6]`, `[ipv6]:port`, a bare IPv6 address, `*.suffix` or `*`. */
function parseHostRule(entry: string): HostRule {
  const text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const [host, port] = bracketed
    ? [bracketed[1], bracketed[2]]
    : text.split(':').length > 2
      ? [text, undefined]
      : (text.split(':') as [string, string | undefined]);
  if (!host || (port !== undefined && !/^\d{1,5}$/.test(port))) {
    throw new EvaluatorError('invalid', `${HOSTS_SETTING} entry ${JSON.stringify(entry)} is not a host, host:port, *.domain or *.`);
  }
  const normalizedPort = port === undefined ? undefined : String(Number(port));
  if (host === '*' || host.startsWith('*.')) return { host: normalizeHost(host), port: normalizedPort };
  let canonical: string;
  try {
    // the URL parser writes IP addresses and IDNs the way URLs being checked will have them
    canonical = new URL(`http://${ipaddr.IPv6.isValid(host) ? `[${host}]` : host}`).hostname;
  } catch (error) {
    throw new EvaluatorError('invalid', `${HOSTS_SETTING} entry ${JSON.stringify(entry)} is not a valid host name or address.`, { cause: error });
  }
  return { host: normalizeHost(canonical), port: normalizedPort };
}

function hostMatches(rule: HostRule, host: string): boolean {
  if (rule.host === '*') return true;
  if (rule.host.startsWith('*.')) return host.endsWith(rule.host.slice(1));
  return rule.host === host;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
