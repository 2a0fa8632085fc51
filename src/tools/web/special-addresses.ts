/**
 * Which addresses are not on the public internet: loopback, private, link-local, unique-local and the
 * other special-purpose ranges (IANA's registries for IPv4 and IPv6). WebFetch refuses to connect to
 * them unless the user allowed the host by a rule, because a page fetched there can be this machine's
 * or the local network's services (a database admin page, a cloud metadata endpoint at
 * 169.254.169.254), whose content would go to the model and its provider.
 *
 * IPv6 forms that carry an IPv4 address (`::ffff:127.0.0.1`, NAT64 `64:ff9b::7f00:1`, 6to4
 * `2002:7f00:1::`) are judged by the IPv4 address inside. Other spellings of IPv4 (`2130706433`,
 * `0x7f.1`, `0177.0.0.1`) never reach here: the WHATWG URL parser already writes them as dotted quads.
 */
import { isIPv4, isIPv6 } from "node:net";

/** An IPv4 range: the address as a 32-bit number, the prefix length, and what it is. */
type Range4 = [base: number, bits: number, what: string];

const V4_RANGES: Range4[] = [
  [ipv4ToNumber("0.0.0.0"), 8, "a 'this network' address (0.0.0.0 reaches this machine)"],
  [ipv4ToNumber("10.0.0.0"), 8, "a private address"],
  [ipv4ToNumber("100.64.0.0"), 10, "a shared (carrier-grade NAT) address"],
  [ipv4ToNumber("127.0.0.0"), 8, "a loopback address (this machine)"],
  [ipv4ToNumber("169.254.0.0"), 16, "a link-local address (cloud metadata services live here)"],
  [ipv4ToNumber("172.16.0.0"), 12, "a private address"],
  [ipv4ToNumber("192.0.0.0"), 24, "a special-purpose address"],
  [ipv4ToNumber("192.0.2.0"), 24, "a documentation address"],
  [ipv4ToNumber("192.88.99.0"), 24, "a relay address"],
  [ipv4ToNumber("192.168.0.0"), 16, "a private address"],
  [ipv4ToNumber("198.18.0.0"), 15, "a benchmarking address"],
  [ipv4ToNumber("198.51.100.0"), 24, "a documentation address"],
  [ipv4ToNumber("203.0.113.0"), 24, "a documentation address"],
  [ipv4ToNumber("224.0.0.0"), 4, "a multicast address"],
  [ipv4ToNumber("240.0.0.0"), 4, "a reserved address"],
];

/**
 * Why `address` (an IPv4 or IPv6 literal, brackets allowed) is not a public internet address, in
 * words for a message, or undefined when it is public. Anything that is not a valid IP literal is
 * refused too ("not an IP address"), so a caller can never mistake garbage for a public address.
 */
export function nonPublicAddressReason(address: string): string | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return ipv4Reason(ipv4ToNumber(bare));
  if (isIPv6(bare)) return ipv6Reason(bare);
  return "not an IP address";
}

/** Why a host name always means a local machine (`localhost`, `*.localhost`), else undefined. */
export function localHostNameReason(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "a name for this machine";
  return undefined;
}

function ipv4Reason(n: number): string | undefined {
  for (const [base, bits, what] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === base) return what;
  }
  return undefined;
}

function ipv6Reason(text: string): string | undefined {
  const g = ipv6Groups(text);
  if (!g) return "not an IP address";
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded = (hi: number, lo: number) => ((g[hi] << 16) | g[lo]) >>> 0;
  if (zeroUpTo(8)) return "the unspecified address (it reaches this machine)";
  if (zeroUpTo(7) && g[7] === 1) return "the IPv6 loopback address (this machine)";
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d) forms.
  if (zeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) return embeddedReason(embedded(6, 7));
  // NAT64 (64:ff9b::/96) translates to the IPv4 address in its last 32 bits.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return embeddedReason(embedded(6, 7));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "a local-use NAT64 address";
  // 6to4 (2002::/16) carries an IPv4 address in bits 16–47.
  if (g[0] === 0x2002) return embeddedReason(embedded(1, 2));
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "a documentation address";
  // Teredo (2001::/32) tunnels through an IPv4 relay whose address it hides.
  if (g[0] === 0x2001 && g[1] === 0) return "a Teredo tunnel address";
  if ((g[0] & 0xfe00) === 0xfc00) return "a unique-local address (a private network)";
  if ((g[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g[0] & 0xffc0) === 0xfec0) return "a site-local address (a private network)";
  if ((g[0] & 0xff00) === 0xff00) return "a multicast address";
  // Only 2000::/3 is global unicast; everything else is reserved or special.
  if ((g[0] & 0xe000) !== 0x2000) return "a reserved address";
  return undefined;
}

function embeddedReason(n: number): string | undefined {
  const reason = ipv4Reason(n);
  return reason && `${reason}, written as IPv6`;
}

/** The eight 16-bit groups of a valid IPv6 literal (a zone id like `%eth0` is ignored). */
function ipv6Groups(text: string): number[] | undefined {
  let s = text.split("%")[0].toLowerCase();
  // A trailing dotted quad becomes two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (quad) {
    const n = ipv4ToNumber(quad[1]);
    s = `${s.slice(0, quad.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = s.split("::");
  const part = (p: string | undefined) => (p ? p.split(":").map((x) => Number.parseInt(x, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups =
    tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff)
    ? groups
    : undefined;
}

function ipv4ToNumber(text: string): number {
  return text.split(".").reduce((n, octet) => ((n << 8) | Number(octet)) >>> 0, 0);
}
