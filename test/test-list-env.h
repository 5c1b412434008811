/* Tests of the provider: env (see test-list.h for the macros). */

/* test-provider-env.c: the SOFTDAPL_* numbers, read one way */
TEST_ENTRY(provider_env_numbers)
