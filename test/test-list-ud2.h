/* Tests of the provider: UD EPs, ud2 (see test-list.h for the macros). */

/* test-provider-ud2.c: ep_modify, recv_query, set_watermark, dup_connect
 * and cr_handoff on unreliable datagram EPs */
TEST_ENTRY(provider_ud2_modify_args)
TEST_ENTRY(provider_ud2_modify_changes)
TEST_ENTRY(provider_ud2_modify_by_state)
TEST_ENTRY(provider_ud2_recv_query)
TEST_ENTRY(provider_ud2_watermarks)
TEST_ENTRY(provider_ud2_dup_connect)
HELPER_ENTRY(ud2_echo)
TEST_ENTRY(provider_ud2_dup_connect_peer_process)
TEST_ENTRY(provider_ud2_cr_handoff)
TEST_ENTRY(provider_ud2_cr_handoff_target_gone)
TEST_ENTRY(provider_ud2_srq)
TEST_ENTRY(provider_ud2_ah_scope)
