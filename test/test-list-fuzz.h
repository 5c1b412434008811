/* Tests of the fuzzers' inputs, fuzz (see test-list.h for the macros). */

/* test-fuzz.c: every corpus seed and regression input replayed */
TEST_ENTRY(fuzz_replay_conf)
TEST_ENTRY_TIMEOUT(fuzz_replay_cm, 120)
TEST_ENTRY_TIMEOUT(fuzz_replay_rx, 120)
TEST_ENTRY_TIMEOUT(fuzz_replay_ud, 120)
TEST_ENTRY_TIMEOUT(fuzz_replay_ring, 120)
