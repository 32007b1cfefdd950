import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { EvaluatorError } from './types.js';

/** Where an administrator lists the hosts http evaluators may reach. */
const HOSTS_SETTING = 'KILN_HTTP_EVALUATOR_HOSTS';

/**
 * Which hosts and addresses an http evaluator may reach. A campaign's author chooses the URL, but
 * the request leaves from the server, so only hosts an administrator allows are reached, and an
 * internal address only when its host is listed exactly (not through a wildcard).
 */
export class HttpHostPolicy {
  /** The URL's host: lower-case, without trailing dot or IPv6 brackets. */
  readonly hostname: string;
  /** The URL as shown in messages. */
  private readonly shown: string;
  /** Listed exactly in the allowlist, so internal addresses are allowed. */
  private readonly explicit: boolean;

  /**
   * `allowHosts`: `example.com`, `*.example.com` (subdomains only), `127.0.0.1`, `localhost:9000`,
   * `[::1]:9000`, or `*` for any public address. Throws an EvaluatorError of code 'invalid' for a
   * malformed entry and 'refused' when no entry allows the URL's host and port.
   */
  constructor(url: URL, allowHosts: readonly string[], shown: string) {
    this.hostname = normalizeHost(url.hostname);
    this.shown = shown;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const rules = allowHosts.map(parseHostRule);
    const matching = rules.filter((rule) => hostMatches(rule, this.hostname) && (rule.port === undefined || rule.port === port));
    if (matching.length === 0) {
      const why = rules.length === 0 ? 'no hosts are allowed for http evaluators' : `${this.hostname}:${port} is not among the allowed hosts`;
      throw new EvaluatorError(
        'refused',
        `this campaign's http evaluator posts to ${shown}, and ${why}. ` +
          `An administrator must add ${this.hostname} (or ${this.hostname}:${port}) to ${HOSTS_SETTING} before such a campaign can run.`,
      );
    }
    this.explicit = matching.some((rule) => !rule.host.startsWith('*'));
  }

  /** Throws an EvaluatorError of code 'refused' when the host resolved to an internal address it may not reach. */
  checkAddresses(addresses: readonly LookupAddress[]): void {
    if (this.explicit) return;
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
}

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
