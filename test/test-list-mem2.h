/* Tests of the provider: mem2 (see test-list.h for the macros). */

/* test-provider-mem2.c: memory windows, invalidate, read to RMR, LMR types */
TEST_ENTRY(provider_mem2_rmr_bind)
TEST_ENTRY(provider_mem2_rmr_bind_errors)
TEST_ENTRY(provider_mem2_rmr_bind_in_order)
TEST_ENTRY(provider_mem2_rmr_unbind_free)
TEST_ENTRY(provider_mem2_rmr_free_pending)
TEST_ENTRY(provider_mem2_rmr_for_ep)
TEST_ENTRY(provider_mem2_send_with_invalidate)
TEST_ENTRY(provider_mem2_read_to_rmr)
TEST_ENTRY(provider_mem2_lmr_over_lmr)
TEST_ENTRY(provider_mem2_lmr_over_lmr_rdma)
TEST_ENTRY(provider_mem2_shared_virtual)
TEST_ENTRY(provider_mem2_lmr_sync)

/* test-provider-data2.c: fences, order, edges, read depth, write-imm, atomics */
TEST_ENTRY(provider_data2_fence_after_read)
TEST_ENTRY(provider_data2_fence_write_after_read)
TEST_ENTRY(provider_data2_order_mixed)
TEST_ENTRY(provider_data2_write_too_long)
TEST_ENTRY(provider_data2_region_edges)
TEST_ENTRY(provider_data2_read_depth)
TEST_ENTRY(provider_data2_write_imm)
TEST_ENTRY(provider_data2_write_imm_errors)
TEST_ENTRY(provider_data2_atomics)
TEST_ENTRY(provider_data2_atomic_errors)
TEST_ENTRY(provider_data2_atomics_contended)
