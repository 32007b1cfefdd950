import ipaddr from 'ipaddr.js';
import type { FieldError } from './validation.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * An entry of a key's `allowed_ips`: an IPv4 or IPv6 address, or a CIDR range. IPv4-mapped IPv6
 * addresses (::ffff:10.0.0.1, how a dual-stack socket reports IPv4 clients) count as their IPv4
 * address, on both sides.
 */
function toRange(entry: string): Range | null {
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
      }
      return [address, bits];
    }
    const address = ipaddr.process(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/** Problems with a list of entries, for 422 answers. */
export function allowListErrors(entries: readonly string[], path = 'allowed_ips'): FieldError[] {
  return entries.flatMap((entry, i) => (toRange(entry) ? [] : [{ path: `${path}[${i}]`, message: `"${entry}" is not an IPv4/IPv6 address or CIDR range` }]));
}

/** The canonical form kept in the database (e.g. 2001:db8::/32, 10.0.0.0/8, 192.168.1.5). */
export function normalizeAllowList(entries: readonly string[]): string[] {
  return entries.map((entry) => {
    const [address, bits] = toRange(entry)!;
    const full = address.kind() === 'ipv4' ? 32 : 128;
    return bits === full ? address.toString() : `${address.toString()}/${bits}`;
  });
}

export function ipAllowed(ip: string, entries: readonly string[]): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip);
  } catch {
    return false;
  }
  return entries.some((entry) => {
    const range = toRange(entry);
    return range !== null && range[0].kind() === address.kind() && address.match(range);
  });
}
