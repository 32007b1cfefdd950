import pg from 'pg';
import type { Logger } from 'pino';

type Handler = (payload: string) => void;

/**
 * One dedicated connection that LISTENs on Postgres channels (pooled connections cannot: LISTEN
 * belongs to a session). It reconnects with backoff after losing the server; notifications sent
 * meanwhile are lost, so `onReconnect` lets the owner catch up (e.g. look for queued jobs).
 */
export class PgListener {
  private client: pg.Client | null = null;
  private readonly handlers = new Map<string, Set<Handler>>();
  private closed = false;
  private retryDelay = 250;
  private reconnectCallbacks: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.connect();
  }

  on(channel: string, handler: Handler): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      void this.client?.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(() => undefined);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  onReconnect(callback: () => void): void {
    this.reconnectCallbacks.push(callback);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) {
        try {
          handler(message.payload ?? '');
        } catch (error) {
          this.logger.error({ err: error, channel: message.channel }, 'notification handler failed');
        }
      }
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'database listener connection lost; reconnecting');
      this.reconnect(client);
    });
    client.on('end', () => this.reconnect(client));
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    this.client = client;
    this.retryDelay = 250;
  }

  private reconnect(lost: pg.Client): void {
    if (this.closed || this.client !== lost) return;
    this.client = null;
    const attempt = async (): Promise<void> => {
      if (this.closed) return;
      try {
        await this.connect();
        for (const callback of this.reconnectCallbacks) callback();
      } catch {
        this.retryDelay = Math.min(this.retryDelay * 2, 10_000);
        setTimeout(() => void attempt(), this.retryDelay).unref();
      }
    };
    setTimeout(() => void attempt(), this.retryDelay).unref();
  }
}
