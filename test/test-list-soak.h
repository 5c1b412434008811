/*
 * test-soak.c: traffic with random disconnects between two processes,
 * their RSS and descriptors watched. soak runs for SOAK_SECONDS (make
 * soak gives it its timeout); soak_quick, 20 s of it, in make check.
 */
TEST_ENTRY_TIMEOUT(soak_quick, 60)
TEST_ENTRY_HIDDEN(soak)
HELPER_ENTRY(soak_server)
HELPER_ENTRY(soak_client)
