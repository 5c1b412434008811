/* Tests of the provider: counters2 (see test-list.h for the macros). */

/* test-provider-counters2.c: the IB counters on the RC paths */
TEST_ENTRY(provider_counters2_objects)
TEST_ENTRY(provider_counters2_async_watermark)
TEST_ENTRY(provider_counters2_connect)
TEST_ENTRY(provider_counters2_timeout_reject)
TEST_ENTRY(provider_counters2_errors)
