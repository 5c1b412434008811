/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every refusal says why (provider/refuse.h): with SOFTDAPL_DEBUG=1 a call
 * the provider refuses prints one line naming the call, the object it was
 * made on, the argument and what is wrong with it, and the DAT_RETURN's
 * names; without it nothing is printed, and the codes are the same
 * either way. The refused segments of a post are test-provider-dto.c's
 * provider_dto_refusal_says_why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

/* Prints what @call returned, as "label: 0x%08x". */
#define SAY(label, call) \
	printf("%s: 0x%08x\n", label, (unsigned)(call))

/* A completion flag DAT 2.0 does not define. */
#define BAD_FLAG ((DAT_COMPLETION_FLAGS)0x40)

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/*
 * The refusals, made in a process of their own (SOFTDAPL_DEBUG is read
 * when the provider loads). Two connected nodes on one IA (ia1; node c:
 * pz1, evd2..evd5, ep1, lmr1; node s: pz2, evd6..evd9, ep2, lmr2; evd1
 * is the async EVD), ep3, an UNCONNECTED EP of c's, ep4, one that holds
 * one receive, and evd10, a DTO EVD of 8 events. Each call's return is
 * printed; the lines of the provider go to stderr, which the runner
 * reads together with stdout.
 */
HELPER_IMPL(refusals_probe)
{
	DAT_EP_ATTR one = {
		.service_type = DAT_SERVICE_TYPE_RC,
		.qos = DAT_QOS_BEST_EFFORT,
		.max_recv_dtos = 1,
		.max_request_dtos = 1,
		.max_recv_iov = 1,
		.max_request_iov = 1,
		.srq_soft_hw = DAT_HW_DEFAULT,
	};
	struct sockaddr_storage ss;
	struct sdt_node c, s;
	DAT_EVD_HANDLE e8;
	DAT_EP_HANDLE u, q1;
	DAT_PSP_HANDLE psp;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_LMR_PARAM lmr_param;
	DAT_PZ_PARAM pz_param;
	DAT_RMR_PARAM rmr_param;
	DAT_EVD_PARAM evd_param;
	DAT_CNO_PARAM cno_param;
	DAT_EP_PARAM ep_param;
	DAT_PSP_PARAM psp_param;
	DAT_RSP_PARAM rsp_param;
	DAT_CR_PARAM cr_param;
	DAT_SRQ_PARAM srq_param;
	DAT_CSP_PARAM csp_param;

	ia = sdt_open_ia(NULL, NULL);
	sdt_node_init(&c, ia, NULL, 4096);
	sdt_node_init(&s, ia, NULL, 4096);
	sdt_connect(&c, &s);
	ASSERT_OK(dat_ep_create(ia, c.pz, c.recv_evd, c.req_evd, c.conn_evd,
				NULL, &u));
	ASSERT_OK(dat_ep_create(ia, c.pz, c.recv_evd, c.req_evd, c.conn_evd,
				&one, &q1));
	ASSERT_OK(dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &e8));
	sdt_ia_addr(ia, &ss);

	/* A live handle of another kind, to each object's free and query. */
	SAY("lmr_free", dat_lmr_free(c.ep));
	SAY("lmr_query", dat_lmr_query(c.pz, DAT_LMR_FIELD_ALL, &lmr_param));
	SAY("pz_free", dat_pz_free(c.lmr));
	SAY("pz_query", dat_pz_query(c.ep, DAT_PZ_FIELD_ALL, &pz_param));
	SAY("rmr_free", dat_rmr_free(c.pz));
	SAY("rmr_query", dat_rmr_query(c.pz, DAT_RMR_FIELD_ALL, &rmr_param));
	SAY("evd_free", dat_evd_free(c.pz));
	SAY("evd_query", dat_evd_query(c.pz, DAT_EVD_FIELD_ALL, &evd_param));
	SAY("cno_free", dat_cno_free(c.pz));
	SAY("cno_query", dat_cno_query(c.pz, DAT_CNO_FIELD_ALL, &cno_param));
	SAY("ep_free", dat_ep_free(c.pz));
	SAY("ep_query", dat_ep_query(c.lmr, DAT_EP_FIELD_ALL, &ep_param));
	SAY("psp_free", dat_psp_free(c.pz));
	SAY("psp_query", dat_psp_query(c.pz, DAT_PSP_FIELD_ALL, &psp_param));
	SAY("rsp_free", dat_rsp_free(c.pz));
	SAY("rsp_query", dat_rsp_query(c.pz, DAT_RSP_FIELD_ALL, &rsp_param));
	SAY("cr_query", dat_cr_query(c.pz, DAT_CR_FIELD_ALL, &cr_param));
	SAY("srq_free", dat_srq_free(c.pz));
	SAY("srq_query", dat_srq_query(c.pz, DAT_SRQ_FIELD_ALL, &srq_param));
	SAY("csp_free", dat_csp_free(c.pz));
	SAY("csp_query", dat_csp_query(c.pz, DAT_CSP_FIELD_ALL, &csp_param));

	/* Flags: undefined bits, and one the EP's attributes do not allow. */
	SAY("post_send_flags", dat_ep_post_send(c.ep, 0, NULL, ck(1), BAD_FLAG));
	SAY("post_recv_flags", dat_ep_post_recv(c.ep, 0, NULL, ck(2), BAD_FLAG));
	SAY("post_send_unsignalled",
	    dat_ep_post_send(c.ep, 0, NULL, ck(3),
			     DAT_COMPLETION_UNSIGNALLED_FLAG));
	SAY("evd_create_flags",
	    dat_evd_create(ia, 8, DAT_HANDLE_NULL, (DAT_EVD_FLAGS)0x4000, &e8));

	/* States. */
	SAY("connect_connected",
	    dat_ep_connect(c.ep, (DAT_IA_ADDRESS_PTR)&ss, s.port,
			   DAT_TIMEOUT_INFINITE, 0, NULL, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_DEFAULT_FLAG));
	SAY("post_send_unconnected", dat_ep_post_send(u, 0, NULL, ck(4), 0));
	SAY("disconnect_unconnected",
	    dat_ep_disconnect(u, DAT_CLOSE_GRACEFUL_FLAG));

	/* Thresholds. */
	SAY("wait_threshold", dat_evd_wait(e8, 0, 9, &ev, &nmore));
	SAY("wait_threshold_zero", dat_evd_wait(e8, 0, 0, &ev, &nmore));

	/* Mask bits DAT 2.0 does not define. */
	SAY("evd_query_mask",
	    dat_evd_query(c.req_evd, (DAT_EVD_PARAM_MASK)0x20, &evd_param));
	SAY("lmr_query_mask",
	    dat_lmr_query(c.lmr, (DAT_LMR_PARAM_MASK)0x800, &lmr_param));
	SAY("ep_modify_mask",
	    dat_ep_modify(u, (DAT_EP_PARAM_MASK)0x80000000u, &ep_param));

	/* A NULL output, a model, a port in use, objects in use, a full queue. */
	SAY("ep_query_null", dat_ep_query(c.ep, DAT_EP_FIELD_ALL, NULL));
	SAY("connect_multipath",
	    dat_ep_connect(u, (DAT_IA_ADDRESS_PTR)&ss, s.port,
			   DAT_TIMEOUT_INFINITE, 0, NULL, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_MULTIPATH_REQUIRED_FLAG));
	SAY("psp_in_use", dat_psp_create(ia, s.port, s.cr_evd,
					 DAT_PSP_CONSUMER_FLAG, &psp));
	SAY("pz_in_use", dat_pz_free(c.pz));
	SAY("evd_in_use", dat_evd_free(c.req_evd));
	ASSERT_OK(dat_ep_post_recv(q1, 0, NULL, ck(5), 0));
	SAY("recv_queue_full", dat_ep_post_recv(q1, 0, NULL, ck(6), 0));
	fflush(stdout);

	ASSERT_OK(dat_evd_free(e8));
	ASSERT_OK(dat_ep_free(q1));
	ASSERT_OK(dat_ep_free(u));
	sdt_disconnect(&c, &s);
	sdt_node_fini(&c);
	sdt_node_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/*
 * What each call of the probe returns, and the line it says: @line is in
 * one line of the output, and so is @more (when not NULL), in the same
 * line (a handle's address stands between them).
 */
struct refusal {
	const char	*label;
	DAT_RETURN	ret;
	const char	*line, *more;
};

static const struct refusal refusals[] = {
	{ "lmr_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR),
	  "softdapl: dat_lmr_free: refused: lmr_handle 0x",
	  " is ep1 (an EP), not an LMR (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_LMR)" },
	{ "lmr_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR),
	  "dat_lmr_query: refused: lmr_handle 0x",
	  " is pz1 (a PZ), not an LMR (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_LMR)" },
	{ "pz_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ),
	  "dat_pz_free: refused: pz_handle 0x",
	  " is lmr1 (an LMR), not a PZ (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_PZ)" },
	{ "pz_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ),
	  "dat_pz_query: refused: pz_handle 0x", " is ep1 (an EP), not a PZ" },
	{ "rmr_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR),
	  "dat_rmr_free: refused: rmr_handle 0x",
	  " is pz1 (a PZ), not an RMR (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_RMR)" },
	{ "rmr_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR),
	  "dat_rmr_query: refused: rmr_handle 0x", " is pz1 (a PZ), not an RMR" },
	/* OFED's subtype for every EVD call. */
	{ "evd_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST),
	  "dat_evd_free: refused: evd_handle 0x",
	  " is pz1 (a PZ), not an EVD (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_EVD_REQUEST)" },
	{ "evd_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST),
	  "dat_evd_query: refused: evd_handle 0x", " is pz1 (a PZ), not an EVD" },
	{ "cno_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO),
	  "dat_cno_free: refused: cno_handle 0x",
	  " is pz1 (a PZ), not a CNO (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_CNO)" },
	{ "cno_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO),
	  "dat_cno_query: refused: cno_handle 0x", " is pz1 (a PZ), not a CNO" },
	{ "ep_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
	  "dat_ep_free: refused: ep_handle 0x",
	  " is pz1 (a PZ), not an EP (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_EP)" },
	{ "ep_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
	  "dat_ep_query: refused: ep_handle 0x", " is lmr1 (an LMR), not an EP" },
	{ "psp_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP),
	  "dat_psp_free: refused: psp_handle 0x",
	  " is pz1 (a PZ), not a PSP (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_PSP)" },
	{ "psp_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP),
	  "dat_psp_query: refused: psp_handle 0x", " is pz1 (a PZ), not a PSP" },
	{ "rsp_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP),
	  "dat_rsp_free: refused: rsp_handle 0x",
	  " is pz1 (a PZ), not an RSP (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_RSP)" },
	{ "rsp_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP),
	  "dat_rsp_query: refused: rsp_handle 0x", " is pz1 (a PZ), not an RSP" },
	{ "cr_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR),
	  "dat_cr_query: refused: cr_handle 0x",
	  " is pz1 (a PZ), not a CR (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_CR)" },
	{ "srq_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ),
	  "dat_srq_free: refused: srq_handle 0x",
	  " is pz1 (a PZ), not an SRQ (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_SRQ)" },
	{ "srq_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ),
	  "dat_srq_query: refused: srq_handle 0x", " is pz1 (a PZ), not an SRQ" },
	{ "csp_free", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CSP),
	  "dat_csp_free: refused: csp_handle 0x",
	  " is pz1 (a PZ), not a CSP (DAT_INVALID_HANDLE "
	  "DAT_INVALID_HANDLE_CSP)" },
	{ "csp_query", ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CSP),
	  "dat_csp_query: refused: csp_handle 0x", " is pz1 (a PZ), not a CSP" },

	{ "post_send_flags", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
	  "softdapl: dat_ep_post_send(ep1): refused: completion_flags 0x40 "
	  "has bits DAT 2.0 does not define (0x40) (DAT_INVALID_PARAMETER "
	  "DAT_INVALID_ARG5)", NULL },
	{ "post_recv_flags", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
	  "dat_ep_post_recv(ep1): refused: completion_flags 0x40 has bits "
	  "DAT 2.0 does not define (0x40) (DAT_INVALID_PARAMETER "
	  "DAT_INVALID_ARG5)", NULL },
	{ "post_send_unsignalled", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
	  "dat_ep_post_send(ep1): refused: completion_flags 0x4 asks for "
	  "DAT_COMPLETION_UNSIGNALLED_FLAG, which the EP's "
	  "request_completion_flags 0x10 does not allow", NULL },
	{ "evd_create_flags", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
	  "dat_evd_create(ia1): refused: evd_flags 0x4000 has bits DAT 2.0 "
	  "does not define (0x4000) (DAT_INVALID_PARAMETER DAT_INVALID_ARG4)",
	  NULL },

	{ "connect_connected",
	  ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED),
	  "softdapl: dat_ep_connect(ep1): refused: state CONNECTED, needs "
	  "UNCONNECTED (DAT_INVALID_STATE DAT_INVALID_STATE_EP_CONNECTED)",
	  NULL },
	{ "post_send_unconnected",
	  ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED),
	  "dat_ep_post_send(ep3): refused: state UNCONNECTED, needs "
	  "CONNECTED or DISCONNECTED", "(DAT_INVALID_STATE "
	  "DAT_INVALID_STATE_EP_UNCONNECTED)" },
	{ "disconnect_unconnected",
	  ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED),
	  "dat_ep_disconnect(ep3): refused: state UNCONNECTED, needs ", NULL },

	{ "wait_threshold", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	  "softdapl: dat_evd_wait(evd10): refused: threshold 9 above the "
	  "EVD's qlen 8 (DAT_INVALID_PARAMETER DAT_INVALID_ARG3)", NULL },
	{ "wait_threshold_zero", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	  "dat_evd_wait(evd10): refused: threshold 0 is not positive", NULL },

	{ "evd_query_mask", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
	  "dat_evd_query(evd2): refused: evd_param_mask 0x20 has bits DAT 2.0 "
	  "does not define (0x20) (DAT_INVALID_PARAMETER DAT_INVALID_ARG2)",
	  NULL },
	{ "lmr_query_mask", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
	  "dat_lmr_query(lmr1): refused: lmr_param_mask 0x800 has bits", NULL },
	{ "ep_modify_mask", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
	  "dat_ep_modify(ep3): refused: ep_param_mask 0x80000000 has bits DAT "
	  "2.0 does not define (0x80000000)", NULL },

	{ "ep_query_null", ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	  "dat_ep_query(ep1): refused: ep_param is NULL (DAT_INVALID_PARAMETER "
	  "DAT_INVALID_ARG3)", NULL },
	{ "connect_multipath", ERR(DAT_MODEL_NOT_SUPPORTED, 0),
	  "dat_ep_connect(ep3): refused: connect_flags 0x2: "
	  "DAT_CONNECT_MULTIPATH_REQUIRED_FLAG, and softdapl has one path "
	  "(DAT_MODEL_NOT_SUPPORTED)", NULL },
	{ "psp_in_use", ERR(DAT_CONN_QUAL_IN_USE, 0),
	  "dat_psp_create(ia1): refused: conn_qual ",
	  ": its port is in use (DAT_CONN_QUAL_IN_USE)" },
	{ "pz_in_use", ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE),
	  "dat_pz_free(pz1): refused: ", " still use it (free them first) "
	  "(DAT_INVALID_STATE DAT_INVALID_STATE_PZ_IN_USE)" },
	{ "evd_in_use", ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE),
	  "dat_evd_free(evd2): refused: EPs, service points or another IA's "
	  "async errors still use it", NULL },
	{ "recv_queue_full", ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP),
	  "dat_ep_post_recv(ep4): refused: the receive queue is full: 1 "
	  "posted, none completed yet (max_recv_dtos 1) (COMMON-8) "
	  "(DAT_INSUFFICIENT_RESOURCES DAT_RESOURCE_TEP)", NULL },
};

/* Fails unless one line of @out holds @a, and @b after it when not NULL. */
static void expect_line(const char *out, const char *a, const char *b)
{
	const char *p = out, *hit, *eol, *tail;

	while ((hit = strstr(p, a)) != NULL) {
		eol = strchr(hit, '\n');
		if (eol == NULL)
			eol = hit + strlen(hit);
		tail = b != NULL ? strstr(hit + strlen(a), b) : hit;
		if (tail != NULL && tail < eol)
			return;
		p = eol;
	}
	printf("%s", out);
	TEST_FAIL("no line holds \"%s\"%s%s%s", a, b ? " then \"" : "",
		  b ? b : "", b ? "\"" : "");
}

/* Runs the probe, with SOFTDAPL_DEBUG=@debug (NULL: unset); its output. */
static char *probe(const char *debug)
{
	const char *argv[] = { test_self_exe(), "--helper", "refusals_probe",
			       NULL };
	test_helper_t *h;
	char *out;
	int status;

	test_setenv("SOFTDAPL_DEBUG", debug);
	h = test_spawn_cmd(argv);
	test_setenv("SOFTDAPL_DEBUG", NULL);
	ASSERT_OK(test_helper_wait(h, 60, &status));
	out = strdup(test_helper_output(h));
	ASSERT_NOT_NULL(out);
	test_helper_free(h);
	if (status != 0)
		printf("%s", out);
	ASSERT_EXIT_OK(status);
	return out;
}

TEST_IMPL(provider_refusals_say_why)
{
	char *on = probe("1"), *off = probe(NULL);
	char code[128];
	size_t i;

	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *r = &refusals[i];

		/* The code, the same with debugging on and off. */
		snprintf(code, sizeof(code), "%s: 0x%08x\n", r->label,
			 (unsigned)r->ret);
		ASSERT_STR_CONTAINS(on, code);
		ASSERT_STR_CONTAINS(off, code);
		expect_line(on, r->line, r->more);
	}
	/* One line per refusal, and not a word of it without debugging. */
	ASSERT_NULL(strstr(off, "refused"));
	ASSERT_NULL(strstr(off, "softdapl: "));
	free(on);
	free(off);
	return 0;
}
