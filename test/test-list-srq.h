/* Tests of the provider: srq (see test-list.h for the macros). */

/* test-provider-srq.c: shared receive queues */
TEST_ENTRY(provider_srq_shared)
TEST_ENTRY(provider_srq_post_checks)
TEST_ENTRY(provider_srq_post_bad_segment)
TEST_ENTRY(provider_srq_rnr_and_length)
