/* test-bench.c: softbench completes (a smoke test; no test asserts a time) */
TEST_ENTRY_TIMEOUT(bench_smoke, 90)
