/* Tests of the provider: trace (see test-list.h for the macros). */

/* test-trace.c: SOFTDAPL_TRACE, provider/TRACE.md */
TEST_ENTRY_TIMEOUT(trace_examples_parse, 120)
TEST_ENTRY(trace_rdma_read)
TEST_ENTRY(trace_rdma_read_placed)
TEST_ENTRY(trace_flush)
TEST_ENTRY(trace_refused)
TEST_ENTRY(trace_off)
TEST_ENTRY(trace_bad_path)
TEST_ENTRY(trace_pid_and_stderr)
TEST_ENTRY_TIMEOUT(trace_allocates_nothing, 300)
TEST_ENTRY(trace_refused_write)
TEST_ENTRY(trace_evd_states)
TEST_ENTRY(trace_overflow_dropped)
TEST_ENTRY(trace_error_line)
TEST_ENTRY(trace_two_processes)
HELPER_ENTRY(trace_server)
HELPER_ENTRY(trace_client)
