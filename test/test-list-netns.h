/* Tests of the provider: netns (see test-list.h for the macros). */

/*
 * test-provider-netns.c: hosts as network namespaces on a bridge, IPv4
 * and IPv6, our DAT tests and Debian's dapltest/dtest across them, a link
 * taken down mid-traffic. Root only (skipped otherwise), except the IPv6
 * loopback test.
 */
TEST_ENTRY(provider_netns_ipv6_loopback)
TEST_ENTRY_TIMEOUT(provider_netns_ipv4, 60)
TEST_ENTRY_TIMEOUT(provider_netns_ipv6, 90)
TEST_ENTRY_TIMEOUT(provider_netns_link_down_ipv4, 90)
TEST_ENTRY_TIMEOUT(provider_netns_link_down_ipv6, 90)
TEST_ENTRY_TIMEOUT(provider_netns_link_down_rnr, 90)
TEST_ENTRY(provider_netns_rnr_outlasts_timeout)
TEST_ENTRY_TIMEOUT(provider_netns_dapltest, 300)
TEST_ENTRY_TIMEOUT(provider_netns_dtest, 180)
HELPER_ENTRY(provider_netns_server)
HELPER_ENTRY(provider_netns_client)
