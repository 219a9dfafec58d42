import { isIPv4, isIPv6 } from 'node:net';

/**
 * The rate-limit key of a client address: an IPv4 address as is (also when written IPv4-mapped,
 * `::ffff:a.b.c.d`), an IPv6 address by its /64 — one subscriber gets a whole /64 and can pick any
 * address inside it, so keying by the full address would give them 2^64 buckets.
 */
export function addressKeyOf(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const bare = ip.replace(/%.*$/, '');
  if (isIPv4(bare)) return bare;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(bare)) return `other:${bare.slice(0, 64)}`;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 tail converted), lower-case, no leading zeros. */
function ipv6Groups(ip: string): string[] {
  let text = ip.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const [a, b, c, d] = v4[1].split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16));
}
