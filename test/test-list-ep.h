/* Tests of the provider: ep (see test-list.h for the macros). */

/* test-provider-ep.c: EPs, connection management */
TEST_ENTRY(provider_ep_create_query_free)
TEST_ENTRY(provider_ep_connect_disconnect)
TEST_ENTRY(provider_ep_two_ias)
TEST_ENTRY(provider_ep_reject)
TEST_ENTRY(provider_ep_no_listener)
TEST_ENTRY(provider_ep_connect_timeout)
TEST_ENTRY(provider_ep_states)
TEST_ENTRY(provider_ep_free_connected)
TEST_ENTRY(provider_ep_rsp)
TEST_ENTRY(provider_ep_ia_close_abrupt)
TEST_ENTRY_TIMEOUT(provider_ep_many_threads, 60)

/* test-provider-dto.c: the DTO path */
TEST_ENTRY(provider_dto_send_recv_segments)
TEST_ENTRY(provider_dto_zero_length)
TEST_ENTRY(provider_dto_rdma_write_read)
TEST_ENTRY(provider_dto_post_errors)
TEST_ENTRY(provider_dto_refusal_says_why)
TEST_ENTRY(provider_dto_recv_too_small)
TEST_ENTRY(provider_dto_write_remote_errors)
TEST_ENTRY(provider_dto_flush)
TEST_ENTRY(provider_dto_flush_abrupt_in_order)
TEST_ENTRY(provider_dto_rnr_then_recv)
TEST_ENTRY_TIMEOUT(provider_dto_threads, 60)
TEST_ENTRY(provider_dto_unsignalled_allowed)

/* test-provider-dapltest.c: OFED's dapltest under ThreadSanitizer */
TEST_ENTRY_TIMEOUT(provider_dapltest_tsan, 300)
TEST_ENTRY(provider_notify_solicited_wait)
TEST_ENTRY(provider_notify_unsignalled_send)
TEST_ENTRY(provider_notify_unsignalled_bind_ext)
TEST_ENTRY(provider_notify_unsignalled_ud_send)
TEST_ENTRY_TIMEOUT(provider_data_path_allocates_nothing, 300)
HELPER_ENTRY(alloc_probe)
HELPER_ENTRY(refusal_probe)
TEST_ENTRY(provider_wildcard_listens_everywhere)

/* test-provider-refuse.c: every refusal says why under SOFTDAPL_DEBUG */
TEST_ENTRY(provider_refusals_say_why)
HELPER_ENTRY(refusals_probe)
