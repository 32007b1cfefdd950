import { createHash, randomBytes } from 'node:crypto';

export const KEY_PREFIXES = ['svc_live_', 'svc_test_', 'svc_ci_'] as const;
export type KeyPrefix = (typeof KEY_PREFIXES)[number];

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 24; // 24 base62 characters: 142 bits
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^(svc_live_|svc_test_|svc_ci_)([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

/**
 * API keys are `<prefix><secret><checksum>`: the checksum (from a hash of prefix and secret)
 * lets a mistyped or truncated key be refused without a database query.
 */
export function generateApiKey(prefix: KeyPrefix = 'svc_live_'): string {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const b of randomBytes(SECRET_LENGTH * 2)) {
      // rejection sampling keeps every character equally likely
      if (b < 248 && secret.length < SECRET_LENGTH) secret += BASE62[b % 62];
    }
  }
  return `${prefix}${secret}${checksum(prefix + secret)}`;
}

/** Whether the text is shaped like a Kiln key with a correct checksum. */
export function isWellFormedKey(key: string): boolean {
  const match = KEY_PATTERN.exec(key);
  return match !== null && checksum(match[1] + match[2]) === match[3];
}

/** The part of a key that may be shown and looked up: prefix and the first characters of the secret. */
export function keyDisplayPrefix(key: string): string {
  const prefix = KEY_PREFIXES.find((p) => key.startsWith(p)) ?? '';
  return key.slice(0, prefix.length + 8);
}

/** Stored form of a key. The secret has 142 bits of entropy, so a fast hash is enough. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function checksum(text: string): string {
  const digest = createHash('sha256').update(text).digest();
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) out += BASE62[digest[i] % 62];
  return out;
}
