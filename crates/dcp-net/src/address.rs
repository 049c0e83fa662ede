//! Which resolved addresses a plugin request may reach (§14 "Private
//! addresses").
//!
//! This module owns one judgement: given an IP address the network filter
//! is about to connect to, is it a public, globally reachable unicast
//! address? Everything in the IANA special-purpose registries that is not
//! meant to be reached on the public internet is refused, and so is
//! everything outside the IPv6 global unicast block `2000::/3` (all public
//! IPv6 space lives there; the rest is unassigned or special).
//!
//! Addresses are canonicalised first (`::ffff:a.b.c.d` is judged as
//! `a.b.c.d`). Addresses that embed an IPv4 address are handled so that no
//! private IPv4 address can be reached through a translation prefix:
//!
//! * `::ffff:0:0/96` (IPv4-mapped): judged by the IPv4 inside.
//! * `64:ff9b::/96` (well-known NAT64 prefix): judged by the IPv4 inside, so
//!   DNS64 networks still reach public IPv4-only sites.
//! * `::/96` (IPv4-compatible, deprecated), `64:ff9b:1::/48` (local-use
//!   NAT64, embedding position varies), `2002::/16` (6to4) and Teredo
//!   (inside `2001::/23`): refused whole.
//!
//! Pure: no I/O, so it is table-tested below and can be fuzzed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// `true` when `ip` may be connected to for a plugin request: a public,
/// globally reachable unicast address. `false` for every range of the
/// table in §14 and the security notes.
pub fn is_public(ip: IpAddr) -> bool {
    match ip.to_canonical() {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

/// IPv4 ranges refused: `(network, prefix length)`.
const REFUSED_V4: &[([u8; 4], u8)] = &[
    ([0, 0, 0, 0], 8),       // "this network"
    ([10, 0, 0, 0], 8),      // private
    ([100, 64, 0, 0], 10),   // carrier-grade NAT
    ([127, 0, 0, 0], 8),     // loopback
    ([169, 254, 0, 0], 16),  // link-local, cloud metadata
    ([172, 16, 0, 0], 12),   // private
    ([192, 0, 0, 0], 24),    // IETF protocol assignments
    ([192, 0, 2, 0], 24),    // documentation TEST-NET-1
    ([192, 88, 99, 0], 24),  // 6to4 relay anycast
    ([192, 168, 0, 0], 16),  // private
    ([198, 18, 0, 0], 15),   // benchmarking
    ([198, 51, 100, 0], 24), // documentation TEST-NET-2
    ([203, 0, 113, 0], 24),  // documentation TEST-NET-3
    ([224, 0, 0, 0], 4),     // multicast
    ([240, 0, 0, 0], 4),     // reserved, includes 255.255.255.255
];

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let bits = u32::from(ip);
    !REFUSED_V4.iter().any(|(net, len)| {
        let mask = u32::MAX << (32 - u32::from(*len));
        bits & mask == u32::from(Ipv4Addr::from(*net))
    })
}

/// IPv6 ranges refused: `(network, prefix length)`. Checked before the
/// `2000::/3` rule and the NAT64 rule.
const REFUSED_V6: &[(u128, u8)] = &[
    (0, 96),                                         // ::/96 IPv4-compatible, ::, ::1
    (0x0064_ff9b_0001_0000_0000_0000_0000_0000, 48), // 64:ff9b:1::/48 local-use NAT64
    (0x0100_0000_0000_0000_0000_0000_0000_0000, 64), // 100::/64 discard
    (0x2001_0000_0000_0000_0000_0000_0000_0000, 23), // 2001::/23 IETF, incl. Teredo 2001::/32
    (0x2001_0db8_0000_0000_0000_0000_0000_0000, 32), // documentation
    (0x2002_0000_0000_0000_0000_0000_0000_0000, 16), // 6to4
    (0x3fff_0000_0000_0000_0000_0000_0000_0000, 20), // documentation
    (0x5f00_0000_0000_0000_0000_0000_0000_0000, 16), // SRv6 SIDs
    (0xfc00_0000_0000_0000_0000_0000_0000_0000, 7),  // unique local
    (0xfe80_0000_0000_0000_0000_0000_0000_0000, 10), // link-local
    (0xfec0_0000_0000_0000_0000_0000_0000_0000, 10), // site-local (deprecated)
    (0xff00_0000_0000_0000_0000_0000_0000_0000, 8),  // multicast
];

const NAT64_WELL_KNOWN: u128 = 0x0064_ff9b_0000_0000_0000_0000_0000_0000;

fn in_prefix(bits: u128, net: u128, len: u8) -> bool {
    let mask = if len == 0 { 0 } else { u128::MAX << (128 - u32::from(len)) };
    bits & mask == net
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let bits = u128::from(ip);
    if REFUSED_V6.iter().any(|(net, len)| in_prefix(bits, *net, *len)) {
        return false;
    }
    if in_prefix(bits, NAT64_WELL_KNOWN, 96) {
        // The low 32 bits are the IPv4 address the translator will reach.
        return is_public_v4(Ipv4Addr::from(bits as u32));
    }
    // Global unicast only: everything public is in 2000::/3.
    in_prefix(bits, 0x2000_0000_0000_0000_0000_0000_0000_0000, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(addr: &str, public: bool) {
        let ip: IpAddr = addr.parse().unwrap_or_else(|e| panic!("{addr}: {e}"));
        assert_eq!(is_public(ip), public, "{addr} should be {}", if public { "public" } else { "refused" });
    }

    #[test]
    fn s14_address_table() {
        let table: &[(&str, bool)] = &[
            // Public IPv4.
            ("93.184.216.34", true),
            ("8.8.8.8", true),
            ("1.1.1.1", true),
            ("100.63.255.255", true),
            ("100.128.0.0", true),
            ("172.15.255.255", true),
            ("172.32.0.0", true),
            ("192.0.1.1", true),
            ("192.88.98.1", true),
            ("192.169.0.1", true),
            ("198.17.255.255", true),
            ("198.20.0.0", true),
            ("223.255.255.255", true),
            ("11.0.0.1", true),
            ("126.255.255.255", true),
            ("128.0.0.1", true),
            ("169.253.255.255", true),
            ("169.255.0.0", true),
            // Refused IPv4, both ends of each range.
            ("0.0.0.0", false),
            ("0.255.255.255", false),
            ("10.0.0.0", false),
            ("10.0.0.7", false),
            ("10.255.255.255", false),
            ("100.64.0.0", false),
            ("100.127.255.255", false),
            ("127.0.0.1", false),
            ("127.255.255.254", false),
            ("169.254.169.254", false),
            ("169.254.0.0", false),
            ("172.16.0.0", false),
            ("172.31.255.255", false),
            ("192.0.0.0", false),
            ("192.0.0.255", false),
            ("192.0.2.1", false),
            ("192.88.99.1", false),
            ("192.168.0.1", false),
            ("192.168.255.255", false),
            ("198.18.0.0", false),
            ("198.19.255.255", false),
            ("198.51.100.7", false),
            ("203.0.113.9", false),
            ("224.0.0.1", false),
            ("239.255.255.250", false),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            // Public IPv6.
            ("2606:2800:220:1::1", true),
            ("2a00:1450:4001:82b::200e", true),
            ("2001:4860:4860::8888", true),
            ("2001:200::1", true),
            ("3ffe::1", true),
            ("3fff:1000::1", true), // just past 3fff::/20
            // IPv6 specials.
            ("::", false),
            ("::1", false),
            ("::7f00:1", false),         // IPv4-compatible 127.0.0.1
            ("::808:808", false),        // IPv4-compatible, refused whole
            ("::ffff:127.0.0.1", false), // IPv4-mapped, judged inside
            ("::ffff:10.0.0.1", false),
            ("::ffff:169.254.169.254", false),
            ("::ffff:7f00:1", false),
            ("::ffff:93.184.216.34", true),
            ("::ffff:0:0", false),
            ("64:ff9b::7f00:1", false), // NAT64 to 127.0.0.1
            ("64:ff9b::10.0.0.1", false),
            ("64:ff9b::169.254.169.254", false),
            ("64:ff9b::93.184.216.34", true), // NAT64 to a public address
            ("64:ff9b:1::1", false),          // local-use NAT64
            ("64:ff9b:1:ffff::1", false),
            ("64:ff9c::1", false), // outside 2000::/3
            ("100::", false),
            ("100::ffff:ffff:ffff:ffff", false),
            ("2001::1", false), // Teredo
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", false),
            ("2001:1::1", false),
            ("2001:1ff:ffff::1", false),
            ("2001:db8::1", false),
            ("2001:db8:ffff::1", false),
            ("2002::1", false),
            ("2002:7f00:1::1", false),    // 6to4 of 127.0.0.1
            ("2002:5db8:d822::1", false), // 6to4 of a public address: refused whole
            ("3fff::1", false),
            ("3fff:fff::1", false),
            ("5f00::1", false),
            ("fc00::1", false),
            ("fd12:3456::1", false),
            ("fe80::1", false),
            ("febf::1", false),
            ("fec0::1", false),
            ("feff::1", false),
            ("ff02::1", false),
            ("ff0e::1", false),
            ("4000::1", false), // unassigned, outside 2000::/3
            ("1234::1", false),
            ("e000::1", false),
        ];
        for (addr, public) in table {
            check(addr, *public);
        }
    }
}
