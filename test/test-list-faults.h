/* Tests of the provider: faults (see test-list.h for the macros). */

/* test-provider-faults.c: fault injection, dying peers, exactly once */
TEST_ENTRY(provider_faults_switch)
TEST_ENTRY_TIMEOUT(provider_faults_exactly_once, 90)
TEST_ENTRY(provider_faults_sigkill_send)
TEST_ENTRY(provider_faults_sigkill_write)
TEST_ENTRY(provider_faults_sigkill_read)
TEST_ENTRY(provider_faults_peer_cut_mid_frame)
TEST_ENTRY(provider_faults_disconnect_both_sides)
TEST_ENTRY(provider_faults_free_close_in_flight)
TEST_ENTRY(provider_faults_out_of_fds)
TEST_ENTRY(provider_faults_queue_full)
HELPER_ENTRY(faults_probe)
HELPER_ENTRY(faults_stress)
HELPER_ENTRY(faults_victim)
HELPER_ENTRY(faults_survivor)
HELPER_ENTRY(faults_nofds)
