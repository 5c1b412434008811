/* Tests of the provider: transport (see test-list.h for the macros). */

/* test-provider-transport.c: SOFTDAPL_TRANSPORT, shared memory, hostile rings */
TEST_ENTRY(provider_transport_default_shm)
TEST_ENTRY(provider_transport_forced_tcp)
TEST_ENTRY(provider_transport_forced_copy)
TEST_ENTRY(provider_transport_bad_setting)
TEST_ENTRY(provider_transport_two_processes_shm)
TEST_ENTRY(provider_transport_listener_tcp)
TEST_ENTRY(provider_transport_requester_tcp)
TEST_ENTRY(provider_transport_peer_killed)
TEST_ENTRY(provider_transport_offer_declined)
TEST_ENTRY(provider_hostile_ring_tail_jump)
TEST_ENTRY(provider_hostile_ring_tail_back)
TEST_ENTRY(provider_hostile_ring_end_mid_frame)
TEST_ENTRY(provider_hostile_ring_head_jump)
TEST_ENTRY(provider_hostile_ring_garbage)
TEST_ENTRY(provider_hostile_ring_peer_gone)
TEST_ENTRY(provider_hostile_ring_send_by_address)
TEST_ENTRY(provider_hostile_ring_lying_echo)
TEST_ENTRY(provider_hostile_ring_address_unmapped)
TEST_ENTRY(provider_hostile_ring_busy_forever)
TEST_ENTRY(provider_hostile_ring_busy_peer_dead)
HELPER_ENTRY(transport_listener)

/* test-provider-cma.c: RDMA placed by the initiator on one host */
TEST_ENTRY(provider_cma_one_sided)
TEST_ENTRY(provider_cma_copy_forced)
TEST_ENTRY(provider_cma_revoke)
TEST_ENTRY(provider_cma_send_by_address)
TEST_ENTRY(provider_cma_send_copy_forced)
TEST_ENTRY(provider_cma_send_withdrawn)
TEST_ENTRY(provider_cma_refused_copies)
TEST_ENTRY(provider_cma_unprivileged_one_sided)
HELPER_ENTRY(cma_target)
HELPER_ENTRY(cma_initiator)

/* test-transport-tcp.c: the tests of connections again, over TCP */
TEST_ENTRY_TIMEOUT(transport_tcp_suite, 3000)
