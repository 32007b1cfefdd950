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
      const carried = carriedIpv4(internal.address);
      throw new EvaluatorError(
        'refused',
        `this campaign's http evaluator posts to ${this.shown}, and ${this.hostname} resolves to ${internal.address}` +
          `${carried ? ` (an IPv6 form of the IPv4 address ${carried})` : ''}, an internal address ` +
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
 * 64:ff9b::/96, 6to4 2002::/16, Teredo and the rest), and any IPv6 address that carries an IPv4
 * address (see embeddedIpv4). IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are judged as the
 * IPv4 address they carry. Unparseable means refused.
 */
function isInternal(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return true;
  }
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && embeddedIpv4(parsed as ipaddr.IPv6) !== null;
}

/**
 * The IPv4 address an IPv6 address carries, by the forms that translate or tunnel to IPv4:
 * IPv4-compatible ::a.b.c.d (::/96, deprecated; the form of http://[::127.0.0.1]/), IPv4-mapped
 * ::ffff:0:0/96 and its SIIT twin ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and the local-use
 * 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32 (the client address, inverted) and an ISATAP
 * interface identifier (…:0:5efe:a.b.c.d). Null for an address that carries none.
 *
 * Each of these forms is refused (none is ordinary public unicast): a host reached through one
 * reaches whatever IPv4 address it carries, and the ranges a translator or tunnel serves are not
 * the campaign's to choose. Naming the carried address makes the refusal say what was meant.
 */
export function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const w = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zeros = (from: number, to: number) => w.slice(from, to).every((part) => part === 0);
  // ::/96 (but :: and ::1, which are their own ranges), ::ffff:0:0/96, ::ffff:0:0:0/96
  if (zeros(0, 5) && (w[5] === 0 || w[5] === 0xffff) && !(w[5] === 0 && w[6] === 0 && w[7] <= 1)) return v4(w[6], w[7]);
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return v4(w[6], w[7]);
  // NAT64 (RFC 6052): the well-known /96, and the local-use /48 with the address around the u octet
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return v4(w[6], w[7]);
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) return new ipaddr.IPv4([w[3] >> 8, w[3] & 0xff, w[4] & 0xff, w[5] >> 8]);
  if (w[0] === 0x2002) return v4(w[1], w[2]);
  if (w[0] === 0x2001 && w[1] === 0) return v4(w[6] ^ 0xffff, w[7] ^ 0xffff);
  if ((w[4] === 0 || w[4] === 0x200) && w[5] === 0x5efe) return v4(w[6], w[7]);
  return null;
}

/** The IPv4 address an IPv6 address carries, as text, for messages; null when it carries none. */
function carriedIpv4(address: string): string | null {
  if (!ipaddr.IPv6.isValid(address)) return null;
  return embeddedIpv4(ipaddr.IPv6.parse(address))?.toString() ?? null;
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
