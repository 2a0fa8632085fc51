/**
 * Keeps WebFetch off this machine and the local network: a host that is, or resolves to, a loopback,
 * private, link-local or other non-public address is refused unless the user allowed that host by a
 * rule. The check is made on the address actually connected to: the guard is the connection's own
 * `lookup`, so the name is resolved once, every address is checked, and the socket connects to a
 * checked address. A DNS answer that changes between a check and the connection (DNS rebinding) has
 * no second lookup to slip into.
 */
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import { GoatError } from "../../errors.js";
import { localHostNameReason, nonPublicAddressReason } from "./special-addresses.js";

/** A fetch refused because its host is (or resolves to) a non-public address. */
export class BlockedAddressError extends GoatError {
  override name = "BlockedAddressError";
  constructor(message: string) {
    super(message, { code: "blocked_address" });
  }
}

/** Resolves a host name to every address it has (`dns.lookup` with `all: true` by default). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolve: ResolveHost = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * Checks a URL's host before connecting: an IP literal (Node connects to it without a lookup) or a
 * name that always means this machine. `hostname` is the URL's (`new URL(u).hostname`, IPv6 in
 * brackets). Throws `BlockedAddressError` unless `allowed`.
 */
export function checkHost(hostname: string, allowed: boolean): void {
  if (allowed) return;
  const byName = localHostNameReason(hostname);
  if (byName) throw blocked(hostname, byName);
  const literal = hostname.startsWith("[") || /^[\d.]+$/.test(hostname);
  if (!literal) return;
  const reason = nonPublicAddressReason(hostname);
  if (reason) throw blocked(hostname, reason);
}

/**
 * A `lookup` for one connection to `hostname`: resolves with `resolve`, refuses when any address is
 * not public (unless `allowed`), and hands the socket only addresses it checked.
 */
export function guardedLookup(hostname: string, allowed: boolean, resolve = systemResolve): LookupFunction {
  return (name, options, callback) => {
    resolve(name)
      .then((found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        if (!allowed) {
          for (const { address } of found) {
            const reason = nonPublicAddressReason(address);
            if (reason) throw blocked(hostname, `resolves to ${address}, ${reason}`);
          }
        }
        const addresses = found.filter((a) => family === undefined || a.family === family);
        if (addresses.length > 0) return addresses;
        const error: NodeJS.ErrnoException = new Error(`${name} has no address`);
        error.code = "ENOTFOUND";
        throw error;
      })
      .then(
        (addresses) =>
          options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family),
        (error: NodeJS.ErrnoException) => callback(error, ""),
      );
  };
}

function blocked(hostname: string, why: string): BlockedAddressError {
  const rule = `WebFetch(domain:${hostname})`;
  return new BlockedAddressError(
    `${hostname} is ${why.startsWith("resolves") ? "a name that " : ""}${why}. WebFetch does not fetch from this machine or a private network unless the user allows the host by a rule: add ${rule} to allowedTools or to permissions.allow in the settings.`,
  );
}
