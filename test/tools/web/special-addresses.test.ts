/** Which addresses WebFetch treats as this machine or a private network, in each spelling. */
import { describe, expect, it } from "vitest";
import { localHostNameReason, nonPublicAddressReason } from "../../../src/tools/web/special-addresses.js";

describe("non-public addresses", () => {
  it.each([
    ["127.0.0.1", /loopback/],
    ["127.255.1.2", /loopback/],
    ["0.0.0.0", /this network/],
    ["10.20.30.40", /private/],
    ["172.16.0.1", /private/],
    ["172.31.255.255", /private/],
    ["192.168.0.10", /private/],
    ["169.254.169.254", /link-local/],
    ["100.64.1.1", /carrier-grade NAT/],
    ["224.0.0.1", /multicast/],
    ["255.255.255.255", /reserved/],
    ["::", /unspecified/],
    ["::1", /loopback/],
    ["[::1]", /loopback/],
    ["::ffff:127.0.0.1", /loopback.*written as IPv6/],
    ["::ffff:7f00:1", /loopback.*written as IPv6/],
    ["[::ffff:a00:1]", /private.*written as IPv6/],
    ["64:ff9b::a9fe:a9fe", /link-local.*written as IPv6/],
    ["2002:c0a8:0101::1", /private.*written as IPv6/],
    ["fd12:3456::1", /unique-local/],
    ["fc00::1", /unique-local/],
    ["fe80::1%eth0", /link-local/],
    ["ff02::1", /multicast/],
    ["2001:db8::1", /documentation/],
    ["not-an-ip", /not an IP address/],
  ])("%s is refused (%s)", (address, why) => {
    expect(nonPublicAddressReason(address)).toMatch(why);
  });

  it.each(["93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "[2a00:1450::1]"])(
    "%s is public",
    (address) => {
      expect(nonPublicAddressReason(address)).toBeUndefined();
    },
  );

  it("localhost names are this machine", () => {
    for (const name of ["localhost", "LOCALHOST.", "api.localhost"])
      expect(localHostNameReason(name)).toBeDefined();
    expect(localHostNameReason("localhost.example.com")).toBeUndefined();
  });
});
