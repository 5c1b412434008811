/* Tests of the provider: the IB extensions (see test-list.h for the macros). */

/* test-provider-ext.c */
TEST_ENTRY(provider_ext_attributes)
TEST_ENTRY(provider_ext_open_query)
TEST_ENTRY(provider_ext_open_query_bad_params)
TEST_ENTRY(provider_ext_refusals)
TEST_ENTRY(provider_ext_counters)
TEST_ENTRY(provider_ext_ud_create_query_free)
TEST_ENTRY(provider_ext_ud_send_recv)
TEST_ENTRY(provider_ext_ud_recv_too_small)
TEST_ENTRY(provider_ext_ud_reject)
TEST_ENTRY(provider_ext_ud_timeout_and_refusal)
TEST_ENTRY(provider_ext_ud_disconnect_flush)
TEST_ENTRY(provider_ext_ud_many_and_ia_close)
TEST_ENTRY(provider_ext_ud_hostile)
TEST_ENTRY_TIMEOUT(provider_ext_ud_threads, 60)
TEST_ENTRY(provider_ext_rc_immediate_atomics)
