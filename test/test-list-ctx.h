/* Tests of the provider: ctx (see test-list.h for the macros). */

/* test-provider-ctx.c: LMR and RMR contexts, random and single use */
TEST_ENTRY(provider_ctx_random)
TEST_ENTRY(provider_ctx_stale_refused)
TEST_ENTRY(provider_ctx_per_process)
TEST_ENTRY(provider_ctx_siphash)
TEST_ENTRY_TIMEOUT(provider_ctx_tags_spent, 120)
HELPER_ENTRY(provider_ctx_print)
