/* Tests of the provider: hostile peers (see test-list.h for the macros). */

/* test-provider-hostile.c: a raw peer sends what no DAT peer would */
TEST_ENTRY_TIMEOUT(provider_hostile_access, 60)
TEST_ENTRY(provider_hostile_limits)
TEST_ENTRY_TIMEOUT(provider_hostile_lengths, 60)
TEST_ENTRY_TIMEOUT(provider_hostile_truncated, 60)
TEST_ENTRY_TIMEOUT(provider_hostile_opcodes, 60)
TEST_ENTRY_TIMEOUT(provider_hostile_acks, 60)
TEST_ENTRY(provider_hostile_handshake)
TEST_ENTRY_TIMEOUT(provider_hostile_handshake_stall, 60)
TEST_ENTRY_TIMEOUT(provider_hostile_flood, 60)
HELPER_ENTRY(hostile_good_peer)
