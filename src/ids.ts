import { randomBytes } from 'node:crypto';

/** Kind prefixes of Kiln's identifiers: every identifier says what it names. */
export type IdPrefix = 'camp_' | 'eval_' | 'tmpl_' | 'job_' | 'ds_' | 'key_' | 'worker_' | 'org_' | 'mat_' | 'usr_';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** An opaque identifier: the prefix and 20 characters of Crockford base32 (100 random bits). */
export function newId(prefix: IdPrefix): string {
  const bytes = randomBytes(20);
  let out = prefix;
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}
