/** The dashboard talks to Kiln only through the public HTTP API and the WebSocket, like any client. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** one of the API's error codes, or HTTP_<status> when the answer was not the API's (a proxy's page) */
    readonly code: ErrorBody['code'] | `HTTP_${number}`,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** What to tell a person: the API's message, with what to do about a missing scope, a wait or a plan limit. */
  explain(): string {
    const d = this.details ?? {};
    switch (this.code) {
      case 'INSUFFICIENT_SCOPE':
        return `${this.message} Your key or token lacks the scope "${String(d.required_scope)}": an administrator can create a key with it under Settings → API keys.`;
      case 'RATE_LIMITED':
        // the API's message already states the limit and the wait
        return `${this.message} Nothing was lost: repeat the action then.`;
      case 'IP_NOT_ALLOWED':
        return `${this.message} This key only works from its allowed addresses; use another key or ask an administrator to add this address.`;
      case 'CONCURRENT_CAMPAIGN_LIMIT':
        return `${this.message} Your plan runs at most ${String(d.limit)} campaigns at once: stop one or wait for one to finish.`;
      default:
        return this.message;
    }
  }
}

/** Any failure as a sentence for the page: an API error explained, else the error's own message (a lost connection). */
export function explain(error: unknown): string {
  return error instanceof ApiError ? error.explain() : String((error as Error)?.message ?? error);
}

const KEY = 'kiln.credential';
const USER = 'kiln.user';

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  provider: string;
}

/** Per tab (sessionStorage): closing the tab signs out, and no other site can read it. */
export const credential = {
  get: (): string | null => sessionStorage.getItem(KEY),
  user: (): SignedInUser | null => JSON.parse(sessionStorage.getItem(USER) ?? 'null') as SignedInUser | null,
  set: (value: string, user?: SignedInUser) => {
    sessionStorage.setItem(KEY, value);
    if (user) sessionStorage.setItem(USER, JSON.stringify(user));
    else sessionStorage.removeItem(USER);
  },
  clear: () => {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(USER);
  },
};

/** Fired when the API refuses the stored credential (expired token, revoked key): the app shows sign-in. */
export const SIGNED_OUT = 'kiln:signed-out';

function authorization(): Record<string, string> {
  const token = credential.get();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function failure(res: Response): Promise<ApiError> {
  // an error body is the envelope; a proxy's HTML page is not JSON and reads as none
  const body = (await res.json().catch(() => null)) as { error?: ErrorBody } | null;
  return refusal(res.status, res.statusText, body);
}

/** The API's refusal as an ApiError; a refused credential also signs the tab out. */
export function refusal(status: number, statusText: string, body: { error?: ErrorBody } | null): ApiError {
  const error: { code: ErrorBody['code'] | `HTTP_${number}`; message: string; details?: Record<string, unknown> } = body?.error ?? {
    code: `HTTP_${status}`,
    message: `${status} ${statusText}`,
  };
  if (status === 401 && credential.get()) {
    credential.clear();
    dispatchEvent(new CustomEvent(SIGNED_OUT, { detail: error.message }));
  }
  return new ApiError(status, error.code, error.message, error.details);
}

/** A list's page, as the server reports it beside the data. */
interface PageMeta {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<{ data: T; meta?: PageMeta }> {
  const headers: Record<string, string> = authorization();
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw await failure(res);
  // the server's responses follow its schemas, which the contract types mirror
  return (await res.json()) as { data: T; meta?: PageMeta };
}

/** Every item of a paged list (`path` without page or per_page), read 100 at a time. */
export async function apiAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const { data, meta } = await api<T[]>('GET', `${path}${path.includes('?') ? '&' : '?'}page=${page}&per_page=100`);
    items.push(...data);
    if (!meta || page >= meta.total_pages) return items;
  }
}

/** Whether the API accepts `token`, before it is kept: a refusal here signs nobody out. */
export async function checkCredential(token: string): Promise<void> {
  const res = await fetch('/v1/campaigns?per_page=1', { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok) throw await failure(res);
}

/** A request with a body the caller builds (multipart uploads); errors as api() gives them. */
export async function send<T>(method: string, path: string, body: FormData): Promise<{ data: T }> {
  const res = await fetch(path, { method, headers: authorization(), body });
  if (!res.ok) throw await failure(res);
  // the server's responses follow its schemas, which the contract types mirror
  return (await res.json()) as { data: T };
}

/**
 * Saves what an authenticated GET returns as a file: a plain link would not carry the bearer
 * credential, so the body is fetched and handed to the browser as a blob.
 */
export async function download(path: string, fallbackName: string): Promise<void> {
  const res = await fetch(path, { headers: authorization() });
  if (!res.ok) throw await failure(res);
  const named = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '');
  save(await res.blob(), named?.[1] ?? fallbackName);
}

/** Saves a text an authenticated GET returns, rewritten by `convert` first (the worklist for Excel), as `name`. */
export async function downloadConverted(path: string, name: string, type: string, convert: (text: string) => string): Promise<void> {
  save(new Blob([convert(await getText(path))], { type }), name);
}

/** The body of an authenticated GET that is not JSON (a CSV), as text; errors as api() gives them. */
export async function getText(path: string): Promise<string> {
  const res = await fetch(path, { headers: authorization() });
  if (!res.ok) throw await failure(res);
  return res.text();
}

function save(blob: Blob, name: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

import type { ErrorBody, EventMessage, ServerMessage } from './contract.js';

export type { Campaign, FailedRow, ResultRow, Results, ResultStatus } from './contract.js';

/**
 * Live events of a campaign over the WebSocket; returns a function that closes it. A dropped
 * connection (a restarted server, a laptop waking up) is opened again with growing pauses, and
 * `onResync` is called once it is back, since events sent in between are gone: the page re-reads.
 * A socket the server closed because its credential stopped working is not opened again.
 */
export function subscribe(campaignId: string, onEvent: (event: EventMessage) => void, onResync?: () => void): () => void {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  let ws: WebSocket | null = null;
  let closed = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = () => {
    ws = new WebSocket(`${scheme}://${location.host}/v1/ws?token=${encodeURIComponent(credential.get() ?? '')}`);
    ws.onopen = () => {
      ws!.send(JSON.stringify({ type: 'subscribe', campaign_id: campaignId }));
      if (attempt > 0) onResync?.();
      attempt = 0;
    };
    ws.onmessage = (message) => {
      const received = JSON.parse(String(message.data)) as ServerMessage;
      if (received.type !== 'subscribed' && received.type !== 'unsubscribed' && received.type !== 'error') onEvent(received);
    };
    ws.onclose = (event) => {
      // 4001-4003: the credential was revoked, expired or left its allowlist; the same one would be refused
      if (closed || credential.get() === null || (event.code >= 4001 && event.code <= 4003)) return;
      attempt += 1;
      timer = setTimeout(open, Math.min(30_000, 500 * 2 ** attempt));
    };
  };
  open();
  return () => {
    closed = true;
    clearTimeout(timer);
    ws?.close();
  };
}
