/** Characters of a response quoted in error messages. */
export const PREVIEW = 200;

/**
 * Quotes what an http evaluator's service sent back in error messages, with the request's secrets
 * (header values, URL credentials) taken out: a service may echo the request back.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: readonly string[]) {
    // longest first, so that a whole value is redacted before the parts it contains
    this.secrets = [...secrets].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    return this.secrets.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
  }

  /** Redacted, and cut short. */
  clip(text: string): string {
    const clean = this.redact(text);
    return clean.length > PREVIEW ? `${clean.slice(0, PREVIEW)}…` : clean;
  }

  /** Clipped, as a JSON string. */
  preview(text: string): string {
    return JSON.stringify(this.clip(text));
  }
}
