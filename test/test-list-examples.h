/* Example programs (test/examples), registered once the provider runs them. */
TEST_ENTRY(example_send_recv)
TEST_ENTRY(example_rdma_write)
TEST_ENTRY(example_rdma_read)
TEST_ENTRY(example_srq)
TEST_ENTRY(example_refused)
TEST_ENTRY(example_flush)
TEST_ENTRY(example_rdma_write_imm)
TEST_ENTRY(example_atomics)
