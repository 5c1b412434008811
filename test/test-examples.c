/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The example programs of test/examples, run as a learner would run them
 * (one process, both ends over loopback) against our provider: each must
 * exit 0 and print what its comments promise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "provider-util.h"
#include "test.h"

static int run_example(const char *name, const char *const expect[])
{
	char path[1024], *out = NULL;
	int status, i;

	sdt_conf("lo");
	snprintf(path, sizeof(path), "%s/examples/%s", test_builddir(), name);
	ASSERT_OK(test_run_cmdl(60, &status, &out, path, SDT_IA_NAME, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		TEST_FAIL("%s failed:\n%s", name, out);
	for (i = 0; expect[i] != NULL; i++)
		ASSERT_STR_CONTAINS(out, expect[i]);
	printf("%s", out);
	free(out);
	return 0;
}

/* RECV-1, SEND-1, SEND-6, COMMON-2 */
TEST_IMPL(example_send_recv)
{
	static const char *const expect[] = {
		"receive completed: cookie 0x1111, 20 bytes: \"hello over softdapl\"",
		"send-recv: ok", NULL };

	return run_example("send-recv", expect);
}

/* WRITE-1, WRITE-6 */
TEST_IMPL(example_rdma_write)
{
	static const char *const expect[] = {
		"target now holds: \"written without a receive\"",
		"rdma-write: ok", NULL };

	return run_example("rdma-write", expect);
}

TEST_IMPL(example_rdma_read)
{
	static const char *const expect[] = {
		"read 32 bytes: \"read from the other side\"", "rdma-read: ok", NULL };

	return run_example("rdma-read", expect);
}

/* SRQ-1, SRQ-4 */
TEST_IMPL(example_srq)
{
	static const char *const expect[] = {
		"taken by server endpoint 0: \"from client 0\"",
		"taken by server endpoint 1: \"from client 1\"", "srq: ok", NULL };

	return run_example("srq", expect);
}

TEST_IMPL(example_refused)
{
	static const char *const expect[] = {
		"no listener: DAT_CONNECTION_EVENT_NON_PEER_REJECTED",
		"rejected: DAT_CONNECTION_EVENT_PEER_REJECTED (\"not today",
		"refused: ok", NULL };

	return run_example("refused", expect);
}

/* RECV-7 */
TEST_IMPL(example_flush)
{
	static const char *const expect[] = {
		"receive 0: message", "receive 1: flushed", "receive 2: flushed",
		"receive 3: flushed", "posted after the disconnect: flushed",
		"flush: ok", NULL };

	return run_example("flush", expect);
}

/* WRITE-1 for the IB extension's write with immediate data */
TEST_IMPL(example_rdma_write_imm)
{
	static const char *const expect[] = {
		"target completion: immediate data 7, 32 bytes written",
		"target now holds: \"placed, then the doorbell\"",
		"receive buffer untouched", "rdma-write-imm: ok", NULL };

	return run_example("rdma-write-imm", expect);
}

/* The IB extension's atomics: old values back, the target silent */
TEST_IMPL(example_atomics)
{
	static const char *const expect[] = {
		"fetch-and-add 2: old 40, counter now 42",
		"compare-and-swap 42 -> 100: old 42 (swapped), counter now 100",
		"compare-and-swap 42 -> 7: old 100 (not swapped), counter now 100",
		"target completions: none", "atomics: ok", NULL };

	return run_example("atomics", expect);
}

/* A SEND before its receive: it waits, nothing is lost (RECV-1) */
TEST_IMPL(example_rnr)
{
	static const char *const expect[] = {
		"300 ms later: no completion on either side",
		"received \"are you ready?\"; the send completed after more "
		"than 300 ms", "rnr: ok", NULL };

	return run_example("rnr", expect);
}

/* SEND-2: a BARRIER_FENCE send waits for the EP's earlier RDMA reads */
TEST_IMPL(example_fence)
{
	static const char *const expect[] = {
		"server received: \"price: 42 euros\"",
		"client completions: cookie 2 (read), then 3 (send)",
		"fence: ok", NULL };

	return run_example("fence", expect);
}

/* RECV-3, SEND-2 */
TEST_IMPL(example_solicited)
{
	static const char *const expect[] = {
		"client completion: cookie 2",
		"two messages received, the server's thread sleeps on",
		"woken with receive 10, 2 more queued",
		"server received: \"quiet\", \"plain\", \"wake up\"",
		"client completion: cookie 3",
		"no completion for the suppressed send", "solicited: ok", NULL };

	return run_example("solicited", expect);
}

/* WRITE-6 */
TEST_IMPL(example_access_error)
{
	static const char *const expect[] = {
		"initiator: write cookie 2 completed with DAT_DTO_ERR_REMOTE_ACCESS",
		"both sides: DAT_CONNECTION_EVENT_BROKEN",
		"target: receive cookie 1 completed with DAT_DTO_ERR_FLUSHED",
		"target still holds: \"read-only data\"",
		"both endpoints: DISCONNECTED", "access-error: ok", NULL };

	return run_example("access-error", expect);
}
