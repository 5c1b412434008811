/* Tests of the provider: mem (see test-list.h for the macros). */

/* test-provider-mem.c: PZ, LMR, RMR and contexts, unit-tested */
TEST_ENTRY(provider_mem_pz)
TEST_ENTRY(provider_mem_lmr_create_errors)
TEST_ENTRY(provider_mem_lmr_query_free)
TEST_ENTRY(provider_mem_resolve_local)
TEST_ENTRY(provider_mem_resolve_remote)
TEST_ENTRY(provider_mem_contexts_unique)
TEST_ENTRY_TIMEOUT(provider_mem_lmr_limit, 60)
TEST_ENTRY(provider_mem_sync_rdma)
TEST_ENTRY(provider_mem_rmr)
TEST_ENTRY(provider_mem_destroy)
TEST_ENTRY(provider_assert_locks)
TEST_ENTRY(provider_mem_threads)

/* test-provider-ia.c: IAs and memory through the registry */
TEST_ENTRY(provider_ia_open_query_close)
TEST_ENTRY(provider_ia_named_attrs)
TEST_ENTRY(provider_ia_params)
TEST_ENTRY(provider_ia_close_graceful)
TEST_ENTRY(provider_ia_close_abrupt)
TEST_ENTRY(provider_ia_async_evd)
TEST_ENTRY(provider_ia_two_names)
TEST_ENTRY(provider_ia_handles)
TEST_ENTRY_TIMEOUT(provider_ia_threads, 60)
