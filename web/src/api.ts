/** The dashboard talks to Kiln only through the public HTTP API and the WebSocket, like any client. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** What to tell a person: the API's message, with the scope or wait it names. */
  explain(): string {
    if (this.code === 'INSUFFICIENT_SCOPE') return `${this.message} (missing scope: ${String(this.details?.required_scope)})`;
    if (this.code === 'RATE_LIMITED') return `${this.message}`;
    return this.message;
  }
}

const KEY = 'kiln.credential';

export const credential = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (value: string) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

export async function api<T>(method: string, path: string, body?: unknown): Promise<{ data: T; meta?: { page: number; per_page: number; total: number; total_pages: number } }> {
  const headers: Record<string, string> = {};
  const token = credential.get();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => null);
  if (!res.ok) {
    const error = json?.error ?? { code: 'HTTP_' + res.status, message: res.statusText };
    throw new ApiError(res.status, error.code, error.message, error.details);
  }
  return json;
}

export interface Campaign {
  id: string;
  name: string;
  domain: string;
  status: string;
  budget: number;
  evaluations_completed: number;
  current_iteration: number;
  hypervolume: number;
  pareto_size: number;
  created_at: string;
  best_objectives?: Record<string, number>;
  latest_job_id?: string | null;
  mdl?: { objectives: { name: string; direction: string; unit?: string }[]; parameters: { name: string }[] };
}

export interface ResultRow {
  id: string;
  parameters: Record<string, number | string>;
  objectives: Record<string, number>;
  iteration: number;
  is_pareto: boolean;
}

export interface Results {
  pareto_front: ResultRow[];
  evaluations: ResultRow[];
  hypervolume: number;
  convergence_history: number[];
}

/** Live events of a campaign over the WebSocket; returns a function that closes it. */
export function subscribe(campaignId: string, onEvent: (event: { type: string; data: unknown }) => void): () => void {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${scheme}://${location.host}/v1/ws?token=${encodeURIComponent(credential.get() ?? '')}`);
  ws.onopen = () => ws.send(JSON.stringify({ type: 'subscribe', campaign_id: campaignId }));
  ws.onmessage = (message) => onEvent(JSON.parse(String(message.data)));
  return () => ws.close();
}
