/*
 * test-mpi.c: Open MPI 1.6.5's udapl BTL over our provider, the programs
 * of test/mpi/ (see test-list.h for the macros). Each row's timeout is
 * its program's mpirun time in test-mpi.c (progs[]) plus 40 s.
 */

/* Our registry, 2 and 4 ranks. */
TEST_ENTRY_TIMEOUT(conformance_mpi_hello_np2, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_hello_np4, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_ring_np2, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_ring_np4, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_pingpong_np2, 220)
TEST_ENTRY_TIMEOUT(conformance_mpi_pingpong_np4, 220)
TEST_ENTRY_TIMEOUT(conformance_mpi_bw_np2, 160)
TEST_ENTRY_TIMEOUT(conformance_mpi_bw_np4, 160)
TEST_ENTRY_TIMEOUT(conformance_mpi_collectives_np2, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_collectives_np4, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_onesided_np2, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_onesided_np4, 100)

/* OFED's registry (Debian's libdat2.so.2 under our libdat.so.1), 2 ranks. */
TEST_ENTRY_TIMEOUT(conformance_mpi_ofed_hello_np2, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_ofed_ring_np2, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_ofed_pingpong_np2, 220)
TEST_ENTRY_TIMEOUT(conformance_mpi_ofed_bw_np2, 160)
TEST_ENTRY_TIMEOUT(conformance_mpi_ofed_collectives_np2, 100)
TEST_ENTRY_TIMEOUT(conformance_mpi_ofed_onesided_np2, 100)

/*
 * Every program over tcp,self at 2 ranks, and pingpong (2 ranks) and bw
 * (2 and 4 ranks) over udapl,self and tcp,self side by side: the sum of
 * its mpirun times.
 */
TEST_ENTRY_TIMEOUT(conformance_mpi_tcp_baseline, 1100)
