/* Tests of the DAT 1.2 API: dat12 (see test-list.h for the macros). */

/*
 * test-dat12.c: the seed synopsis programs (test/seed12/), one DAT 1.2
 * program per seed page, built as its SYNOPSIS says and run over loopback
 */
TEST_ENTRY_TIMEOUT(dat12_seed_post_send, 60)
TEST_ENTRY_TIMEOUT(dat12_seed_post_recv, 60)
TEST_ENTRY_TIMEOUT(dat12_seed_post_rdma_write, 60)
TEST_ENTRY_TIMEOUT(dat12_seed_srq_post_recv, 60)
