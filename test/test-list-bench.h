/* test-bench.c: softbench completes (a smoke test; no test asserts a time) */
TEST_ENTRY_TIMEOUT(bench_smoke, 90)
TEST_ENTRY_TIMEOUT(bench_one_transport, 90)
TEST_ENTRY_TIMEOUT(bench_fi_missing, 90)
