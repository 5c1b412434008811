/* Tests of the provider: evd2 (see test-list.h for the macros). */

/* test-provider-evd2.c: fd CNO, dat_cno_trigger, notification rules, overflow */
TEST_ENTRY(provider_evd2_cno_fd)
TEST_ENTRY(provider_evd2_cno_fd_thread)
TEST_ENTRY(provider_evd2_cno_trigger)
TEST_ENTRY(provider_evd2_cno_rules)
TEST_ENTRY(provider_evd2_cno_dto_notification)
TEST_ENTRY(provider_evd2_cno_release)
TEST_ENTRY(provider_evd2_cno_ia_close)
TEST_ENTRY_TIMEOUT(provider_evd2_cno_agent_dto, 30)
TEST_ENTRY_TIMEOUT(provider_evd2_cno_agent_deferred, 30)
TEST_ENTRY(provider_evd2_cno_modify_agent)
TEST_ENTRY(provider_evd2_wait_threshold_config)
TEST_ENTRY(provider_evd2_threshold_flag)
TEST_ENTRY(provider_evd2_unwaitable_release)
TEST_ENTRY(provider_evd2_resize_rules)
TEST_ENTRY(provider_evd2_overflow_state)
TEST_ENTRY(provider_evd2_overflow_receives)
