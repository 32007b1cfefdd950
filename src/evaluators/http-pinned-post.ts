import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { HttpHostPolicy } from './http-host-policy.js';
import { PREVIEW, type Redactor } from './http-redactor.js';
import { EvaluatorError } from './types.js';

/** Where and how an http evaluator posts: everything one attempt needs besides the body. */
export interface PinnedPostTarget {
  url: URL;
  /** The URL as shown in messages: without credentials or query, which may hold tokens. */
  shown: string;
  policy: HttpHostPolicy;
  /** The campaign's headers, by lower-case name. */
  headers: Readonly<Record<string, string>>;
  /** Limit of the attempt, from resolving the host to the end of the response. */
  timeoutSeconds: number;
  maxResponseBytes: number;
  redactor: Redactor;
}

/** One failed attempt; retryable ones are tried again after a backoff (http-retry.ts). */
export class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** Bytes of a failed response read before quoting it: enough for the preview. */
const ERROR_BODY_BYTES = PREVIEW * 4;

export function postCancelled(shown: string, signal: AbortSignal | undefined): EvaluatorError {
  return new EvaluatorError('cancelled', `the evaluation was cancelled; stopped posting to ${shown}.`, { cause: signal?.reason });
}

/**
 * POSTs `body` once and resolves with the body of a 2xx response. The host is resolved afresh and
 * the addresses checked are the addresses connected to, so a DNS answer that changes between check
 * and connect cannot redirect a campaign to an internal service. Rejects with an AttemptFailure,
 * or an EvaluatorError when trying again cannot help (refused, cancelled, a response too large).
 */
export function pinnedPost(target: PinnedPostTarget, body: string, signal: AbortSignal | undefined): Promise<string> {
  const { timeoutSeconds } = target;
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
    const onAbort = (): void => settle(postCancelled(target.shown, signal));
    const timer = setTimeout(
      () => settle(new AttemptFailure(`no complete response within ${timeoutSeconds} s (evaluator.timeout_seconds).`, true, true)),
      timeoutSeconds * 1000,
    );
    if (signal?.aborted) {
      settle(postCancelled(target.shown, signal));
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });

    resolveChecked(target.policy)
      .then((addresses) => {
        if (settled) return;
        request = open(target, addresses, Buffer.byteLength(body));
        // connecting to several addresses fails with an AggregateError whose message is empty
        request.on('error', (error: NodeJS.ErrnoException) => settle(new AttemptFailure(`${error.message || error.code || String(error)}.`, true)));
        request.on('response', (response) => receive(target, response, settle));
        request.end(body);
      })
      .catch(settle);
  });
}

/** The addresses the host resolves to now, refused by the policy when it may not reach them. */
async function resolveChecked(policy: HttpHostPolicy): Promise<LookupAddress[]> {
  const { hostname } = policy;
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(hostname, { all: true });
  } catch (error) {
    throw new AttemptFailure(`could not resolve ${hostname}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, true);
  }
  if (addresses.length === 0) throw new AttemptFailure(`${hostname} resolved to no addresses.`, true);
  policy.checkAddresses(addresses);
  return addresses;
}

/** A POST request that connects only to `addresses`, while Host and TLS name stay the URL's host. */
function open(target: PinnedPostTarget, addresses: LookupAddress[], contentLength: number): ClientRequest {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
  const headers: OutgoingHttpHeaders = {
    accept: 'application/json',
    ...target.headers,
    'content-type': 'application/json',
    'content-length': contentLength,
    'user-agent': 'kiln',
  };
  const { url, policy } = target;
  return (url.protocol === 'https:' ? httpsRequest : httpRequest)({
    method: 'POST',
    protocol: url.protocol,
    hostname: policy.hostname,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers,
    lookup: pinned,
    // no SNI for an address (the URL parser has written it canonically)
    servername: ipaddr.isValid(policy.hostname) ? undefined : policy.hostname,
    // a pooled socket would outlive the address check it was made for
    agent: false,
  });
}

/** Reads a response: its body when 2xx, otherwise enough of it to say what went wrong. */
function receive(target: PinnedPostTarget, response: IncomingMessage, settle: (error: Error | undefined, text?: string) => void): void {
  const { maxResponseBytes: maxResponse, redactor } = target;
  const status = response.statusCode ?? 0;
  const answered = `the service answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
  response.on('error', (error) => settle(new AttemptFailure(`the response broke off: ${error.message}.`, true)));
  if (status >= 300 && status < 400) {
    const location = response.headers.location ? ` (to ${redactor.preview(response.headers.location)})` : '';
    settle(new AttemptFailure(`${answered}${location}; redirects are not followed, so set evaluator.url to the final address.`, false));
    return;
  }
  const ok = status >= 200 && status < 300;
  const tooLarge = (): EvaluatorError =>
    new EvaluatorError(
      'protocol',
      `the response from ${target.shown} is larger than ${formatBytes(maxResponse)} and was not read to the end; a batch's results should be far smaller.`,
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
    const quoted = text ? `: ${redactor.preview(text)}` : '';
    settle(new AttemptFailure(`${answered}${quoted}${retryable ? '' : '; 4xx responses other than 408 and 429 are not retried.'}`, retryable));
  };
  response.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    chunks.push(chunk);
    if (ok && bytes > maxResponse) settle(tooLarge());
    else if (!ok && bytes >= ERROR_BODY_BYTES) failed();
  });
  response.on('end', () => (ok ? settle(undefined, Buffer.concat(chunks).toString('utf8')) : failed()));
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
