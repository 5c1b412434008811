/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unreliable datagram EPs (provider/ud.c, udcm.c), the calls that follow
 * the RC EP's rules: dat_ep_modify (arguments, what changes, by state),
 * dat_ep_recv_query, dat_ep_set_watermark, dat_ep_dup_connect (in one
 * process and against a peer process) and dat_cr_handoff. Each test says
 * which rule of the provider it checks; the rules are written above the
 * functions of ud.c and udcm.c.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

#include "../provider/udproto.h"	/* the wire, for a requester by hand */
#include "provider-conn.h"
#include "provider-ud.h"
#include "provider-util.h"
#include "test.h"

/* The largest UD message (ud.c: a datagram less our header). */
#define UD_MAX_MSG (65507 - 40)

static DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/* ------------------------------------------------------------------ */
/* UD nodes                                                            */

/* This file's UD EPs: queues 16 deep, of 2 segments. */
static DAT_EP_ATTR u2_attr(void)
{
	return sdt_ud_attr(16, 2);
}

static void u2_init(struct sdt_ud *n, DAT_IA_HANDLE ia, size_t len, int psp)
{
	DAT_EP_ATTR a = u2_attr();

	sdt_ud_init(n, ia, &a, len, psp);
}

/*
 * Waits for a connection event @num on @evd (a DAT_EVENT_NUMBER or a
 * DAT_IB_* one: an int takes both); returns it.
 */
static DAT_EVENT u2_conn(DAT_EVD_HANDLE evd, int num)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);

	ASSERT_EQ(ev.event_number, num);
	return ev;
}

/* Waits for a UD connection request on @evd; its CR (and event in *@out). */
static DAT_CR_HANDLE u2_cr(DAT_EVD_HANDLE evd, DAT_CR_ARRIVAL_EVENT_DATA *out)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);

	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_REQUEST_EVENT);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_CONNECT_REQUEST);
	if (out)
		*out = ev.event_data.cr_arrival_event_data;
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

/*
 * The rest of a resolution @a started towards a PSP of @b's whose
 * request arrives on @b->cr_evd: @b's EP accepts it; both see
 * ESTABLISHED. *@ab: how @a sends to @b, *@ba (may be NULL) the reverse.
 * The CM objects are released.
 */
static void u2_finish(struct sdt_ud *a, struct sdt_ud *b,
		      DAT_IB_ADDR_HANDLE *ab, DAT_IB_ADDR_HANDLE *ba)
{
	DAT_EVENT ev;

	ASSERT_OK(dat_cr_accept(u2_cr(b->cr_evd, NULL), b->ep, 0, NULL));
	ev = u2_conn(a->conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_REMOTE_AH);
	ASSERT_PTR_EQ(ev.event_data.connect_event_data.ep_handle, a->ep);
	*ab = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(a->ep, sdt_ext_of(&ev)->context.as_ptr));
	ev = u2_conn(b->conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_PASSIVE_REMOTE_AH);
	if (ba)
		*ba = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(b->ep, sdt_ext_of(&ev)->context.as_ptr));
}

/* @a resolves handles to @b through @b's PSP. */
static void u2_resolve(struct sdt_ud *a, struct sdt_ud *b,
		       DAT_IB_ADDR_HANDLE *ab, DAT_IB_ADDR_HANDLE *ba)
{
	sdt_connect_to(a->ia, a->ep, b->port, DAT_TIMEOUT_INFINITE);
	u2_finish(a, b, ab, ba);
}

static DAT_EP_PARAM u2_query(DAT_EP_HANDLE ep)
{
	DAT_EP_PARAM p;

	ASSERT_OK(dat_ep_query(ep, DAT_EP_FIELD_ALL, &p));
	return p;
}

/* dat_ep_modify of one attribute field of @ep's current parameters. */
#define MODIFY_ATTR(ep, bit, field, value) ({				\
	DAT_EP_PARAM _p = u2_query(ep);					\
	_p.ep_attr.field = (value);					\
	dat_ep_modify((ep), (bit), &_p);				\
})

/* ---- a UD requester by hand (provider/udproto.h) ------------------ */

static int raw_socket(void)
{
	struct sockaddr_in me;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ASSERT(fd >= 0);
	memset(&me, 0, sizeof(me));
	me.sin_family = AF_INET;
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(bind(fd, (struct sockaddr *)&me, sizeof(me)));
	return fd;
}

/* Sends a connection datagram of @type from "qpn 5, qkey 7" to @port. */
static void raw_cm(int fd, uint8_t type, uint32_t dst_qpn, uint32_t dst_qkey,
		   uint64_t id, uint32_t arg, DAT_CONN_QUAL port)
{
	uint8_t b[SD_UD_HDR_SIZE];
	struct sockaddr_in to;
	struct sd_ud_hdr h;

	memset(&h, 0, sizeof(h));
	h.magic = SD_UD_MAGIC;
	h.version = SD_UD_VERSION;
	h.type = type;
	h.dst_qpn = dst_qpn;
	h.dst_qkey = dst_qkey;
	h.src_qpn = 5;
	h.src_qkey = 7;
	h.cm_id = id;
	h.arg = arg;
	ud_hdr_pack(&h, b);
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((uint16_t)port);
	ASSERT_EQ(sendto(fd, b, sizeof(b), 0, (struct sockaddr *)&to, sizeof(to)),
		  (ssize_t)sizeof(b));
}

/* The next datagram @fd receives (10 s at most), its header checked. */
static void raw_recv(int fd, struct sd_ud_hdr *h, struct sockaddr_in *from)
{
	struct timeval tv = { 10 * test_timeout_scale(), 0 };
	uint8_t b[SD_UD_HDR_SIZE + SD_UD_MAX_PDATA];
	socklen_t sl = sizeof(*from);
	ssize_t n;

	ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	n = recvfrom(fd, b, sizeof(b), 0, (struct sockaddr *)from, &sl);
	ASSERT_GE(n, SD_UD_HDR_SIZE);
	ud_hdr_unpack(h, b);
	ASSERT_OK(ud_hdr_check(h, (uint64_t)n));
}

/* ------------------------------------------------------------------ */
/* dat_ep_modify                                                       */

/*
 * ud.c ud_ep_modify, the argument rules, in ep.c's order: the EP handle,
 * a NULL parameter block (ARG3), the fields that cannot change and
 * unknown mask bits (ARG2), the handles the mask names (PZ and EVDs of
 * this IA, EVDs accepting their stream: DAT_INVALID_HANDLE with their
 * subtype), the service type (UD only) and the attribute values within
 * dat_ep_create's limits (ARG3). Handles the mask does not name are not
 * read. A failed call changes nothing.
 */
TEST_IMPL(provider_ud2_modify_args)
{
	static const DAT_EP_PARAM_MASK fixed[] = {
		DAT_EP_FIELD_IA_HANDLE, DAT_EP_FIELD_EP_STATE, DAT_EP_FIELD_COMM,
		DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR, DAT_EP_FIELD_LOCAL_PORT_QUAL,
		DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR,
		DAT_EP_FIELD_REMOTE_PORT_QUAL, DAT_EP_FIELD_SRQ_HANDLE,
		UINT64_C(0x80000000),	/* beyond DAT_EP_FIELD_ALL */
	};
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE async2 = DAT_HANDLE_NULL, evd2;
	DAT_PZ_HANDLE pz2;
	DAT_EP_PARAM p, before, after;
	char name[] = SDT_IA_NAME;
	struct sdt_ud n;
	size_t i;

	u2_init(&n, ia, 4096, 0);
	ASSERT_OK(dat_ia_open(name, 16, &async2, &ia2));
	ASSERT_OK(dat_pz_create(ia2, &pz2));
	ASSERT_OK(dat_evd_create(ia2, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd2));
	before = u2_query(n.ep);

	/* The EP handle, then the parameter block. */
	p = before;
	ASSERT_DAT_EQ(dat_ep_modify(n.buf, DAT_EP_FIELD_EP_ATTR_QOS, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_EP_ATTR_QOS, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	/* "Cannot be modified": each fixed field, and unknown bits. */
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		ASSERT_DAT_EQ(dat_ep_modify(n.ep, fixed[i] | DAT_EP_FIELD_EP_ATTR_QOS,
					    &p),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	/* Handles: not an object, another IA's, the wrong stream. */
	p.pz_handle = n.buf;
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_PZ_HANDLE, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	p.pz_handle = pz2;
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_PZ_HANDLE, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	p = before;
	p.recv_evd_handle = n.buf;
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV));
	p.recv_evd_handle = n.cr_evd;
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV));
	p.recv_evd_handle = evd2;
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV));
	p = before;
	p.request_evd_handle = n.conn_evd;
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST));
	p = before;
	p.connect_evd_handle = n.dto_evd;
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN));
	/* A bad handle is reported before a bad value. */
	p.ep_attr.max_recv_dtos = -1;
	ASSERT_DAT_EQ(dat_ep_modify(n.ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE |
				    DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN));
	/* Handles the mask does not name are never looked at. */
	p = before;
	p.pz_handle = (DAT_PZ_HANDLE)(uintptr_t)1;
	p.recv_evd_handle = (DAT_EVD_HANDLE)(uintptr_t)2;
	p.request_evd_handle = (DAT_EVD_HANDLE)(uintptr_t)3;
	p.connect_evd_handle = (DAT_EVD_HANDLE)(uintptr_t)4;
	ASSERT_OK(dat_ep_modify(n.ep, DAT_EP_FIELD_EP_ATTR_QOS, &p));

	/* Service type: a UD EP stays UD. */
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE,
				  service_type, DAT_SERVICE_TYPE_RC),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_OK(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE,
			      service_type,
			      (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD));

	/* Values beyond dat_ep_create's limits. */
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
				  max_recv_dtos, -1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS,
				  max_request_dtos, 16385),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV,
				  max_recv_iov, 33),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV,
				  max_request_iov, -3),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE,
				  max_message_size, UD_MAX_MSG + 1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
				  recv_completion_flags, 0x40),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep,
				  DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
				  request_completion_flags, 0x80),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW,
				  srq_soft_hw, -5),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR,
				  ep_transport_specific_count, 1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR,
				  ep_provider_specific_count, 2),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	/* None exist: a count of 0 is fine. */
	ASSERT_OK(MODIFY_ATTR(n.ep, DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR,
			      ep_provider_specific_count, 0));

	/* Nothing of it changed anything. */
	after = u2_query(n.ep);
	ASSERT_MEM_EQ(&after.ep_attr, &before.ep_attr, sizeof(before.ep_attr));
	ASSERT_PTR_EQ(after.pz_handle, n.pz);
	ASSERT_PTR_EQ(after.recv_evd_handle, n.dto_evd);
	ASSERT_PTR_EQ(after.request_evd_handle, n.dto_evd);
	ASSERT_PTR_EQ(after.connect_evd_handle, n.conn_evd);

	ASSERT_OK(dat_evd_free(evd2));
	ASSERT_OK(dat_pz_free(pz2));
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_ud_fini(&n);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * ud.c ud_ep_modify, what changes on a quiescent (UNCONNECTED) UD EP:
 * the EVDs (references move: the old ones can be freed, the new ones
 * cannot), the PZ, the completion flags, the queue depths and segment
 * counts (the queues are reallocated: the new limits hold at post), and
 * the RDMA attributes stay 0. With receives posted, the receive flags
 * and the depths cannot change (DAT_INVALID_STATE, the UNCONNECTED
 * subtype), the EVDs and the request flags can. Events and completions
 * then go to the new EVDs.
 */
TEST_IMPL(provider_ud2_modify_changes)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_EVD_HANDLE dto2, conn2;
	DAT_IB_ADDR_HANDLE ab, ba;
	DAT_LMR_TRIPLET t[2];
	DAT_PZ_HANDLE pz2;
	DAT_EP_PARAM p;
	struct sdt_ud a, b;
	DAT_EVENT ev;

	u2_init(&a, ia, 8192, 0);
	u2_init(&b, ia, 8192, 1);
	ASSERT_OK(dat_evd_create(ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto2));
	ASSERT_OK(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
				 &conn2));
	ASSERT_OK(dat_pz_create(ia, &pz2));

	/* The EVDs move; the references with them. */
	p = u2_query(a.ep);
	p.recv_evd_handle = dto2;
	p.request_evd_handle = dto2;
	p.connect_evd_handle = conn2;
	ASSERT_OK(dat_ep_modify(a.ep, DAT_EP_FIELD_RECV_EVD_HANDLE |
				DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p));
	p = u2_query(a.ep);
	ASSERT_PTR_EQ(p.recv_evd_handle, dto2);
	ASSERT_PTR_EQ(p.request_evd_handle, dto2);
	ASSERT_PTR_EQ(p.connect_evd_handle, conn2);
	ASSERT_DAT_EQ(dat_evd_free(dto2),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE));
	ASSERT_OK(dat_evd_free(a.dto_evd));	/* no EP uses it any more */
	ASSERT_OK(dat_evd_free(a.conn_evd));
	a.dto_evd = dto2;
	a.conn_evd = conn2;

	/* The PZ: a post against the old PZ's LMR is then refused. */
	p.pz_handle = pz2;
	ASSERT_OK(dat_ep_modify(a.ep, DAT_EP_FIELD_PZ_HANDLE, &p));
	ASSERT_PTR_EQ(u2_query(a.ep).pz_handle, pz2);
	ASSERT_DAT_EQ(DAT_GET_TYPE(sdt_ud_recv(&a, 0, 64, 1)),
		      DAT_PROTECTION_VIOLATION);
	ASSERT_DAT_EQ(dat_pz_free(pz2), ERR(DAT_INVALID_STATE,
					    DAT_INVALID_STATE_PZ_IN_USE));
	p.pz_handle = a.pz;
	ASSERT_OK(dat_ep_modify(a.ep, DAT_EP_FIELD_PZ_HANDLE, &p));
	ASSERT_OK(dat_pz_free(pz2));

	/* Depths and segment counts: new queues, new limits. */
	p = u2_query(a.ep);
	p.ep_attr.max_recv_dtos = 2;
	p.ep_attr.max_recv_iov = 1;
	p.ep_attr.max_request_dtos = 1;
	p.ep_attr.max_request_iov = 1;
	p.ep_attr.max_message_size = 0;		/* a datagram's worth */
	p.ep_attr.max_rdma_size = 4096;		/* no RDMA on UD: stays 0 */
	ASSERT_OK(dat_ep_modify(a.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS |
				DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV |
				DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS |
				DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV |
				DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE |
				DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, &p));
	p = u2_query(a.ep);
	ASSERT_EQ(p.ep_attr.max_recv_dtos, 2);
	ASSERT_EQ(p.ep_attr.max_recv_iov, 1);
	ASSERT_EQ(p.ep_attr.max_request_dtos, 1);
	ASSERT_EQ(p.ep_attr.max_request_iov, 1);
	ASSERT_EQ(p.ep_attr.max_message_size, UD_MAX_MSG);
	ASSERT_EQ(p.ep_attr.max_rdma_size, 0);
	ASSERT_EQ(p.ep_attr.service_type, DAT_IB_SERVICE_TYPE_UD);
	t[0] = sdt_ud_iov(&a, 0, 100);
	t[1] = sdt_ud_iov(&a, 100, 100);
	ASSERT_DAT_EQ(dat_ep_post_recv(a.ep, 2, t, ck(1), 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(sdt_ud_recv(&a, 0, 1024, 1));
	ASSERT_OK(sdt_ud_recv(&a, 1024, 1024, 2));
	ASSERT_DAT_EQ(sdt_ud_recv(&a, 2048, 1024, 3),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP));

	/* Receives are posted: no new depths, no new receive flags... */
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
				  max_recv_dtos, 3),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV,
				  max_request_iov, 2),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
				  recv_completion_flags,
				  DAT_COMPLETION_UNSIGNALLED_FLAG),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	/* ...but the request flags: UNSIGNALLED sends become allowed. */
	ASSERT_OK(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
			      request_completion_flags,
			      DAT_COMPLETION_UNSIGNALLED_FLAG));
	ASSERT_EQ(u2_query(a.ep).ep_attr.request_completion_flags,
		  DAT_COMPLETION_UNSIGNALLED_FLAG);

	/* The connection events come to the new EVD, the data to the new DTO EVD. */
	u2_resolve(&a, &b, &ab, &ba);
	ASSERT_OK(sdt_ud_recv(&b, 0, 1024, 10));
	memcpy(a.buf + 4096, "unsignalled", 12);
	ASSERT_OK(sdt_ud_send(&a, &ab, 4096, 12, 20, DAT_COMPLETION_UNSIGNALLED_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 20);
	sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 10);
	ASSERT_STR_EQ(b.buf + SDT_GRH, "unsignalled");
	memcpy(b.buf + 4096, "back", 5);
	ASSERT_OK(sdt_ud_send(&b, &ba, 4096, 5, 21, DAT_COMPLETION_SUPPRESS_FLAG));
	ev = sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
		  SDT_GRH + 5);
	ASSERT_STR_EQ(a.buf + SDT_GRH, "back");

	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * ud.c ud_ep_modify, by state: quiescent only. An address resolution in
 * progress refuses with DAT_INVALID_STATE_EP_ACTCONNPENDING (after
 * dat_ep_connect) or _PASSCONNPENDING (after dat_cr_accept, until the
 * RTU), as OFED's EP would be in those states; its end (reject, timeout,
 * established) lifts that. CONNECTED and DISCONNECTED refuse with their
 * subtypes; a bad value is still DAT_INVALID_PARAMETER there (arguments
 * before state). A disconnect ends the attempts at once: after
 * dat_ep_reset the EP is modifiable again, and the abandoned attempt
 * reports nothing even when its answer comes (udcm.c cm_abandoned).
 */
TEST_IMPL(provider_ud2_modify_by_state)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	struct sdt_ud a, b, c;
	DAT_IB_ADDR_HANDLE ab;
	DAT_CR_HANDLE cr;
	struct sd_ud_hdr h;
	struct sockaddr_in from;
	DAT_EVENT ev;
	int fd;

	u2_init(&a, ia, 4096, 0);
	u2_init(&b, ia, 4096, 1);
	u2_init(&c, ia, 4096, 1);

	/* Active, pending: refused; rejected: allowed again. */
	sdt_connect_to(a.ia, a.ep, b.port, DAT_TIMEOUT_INFINITE);
	ASSERT_EQ(sdt_ep_state(a.ep), DAT_EP_STATE_UNCONNECTED);
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
				  DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_ACTCONNPENDING));
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
				  max_recv_dtos, -1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_OK(dat_cr_reject(u2_cr(b.cr_evd, NULL), 0, NULL));
	ev = u2_conn(a.conn_evd, DAT_IB_UD_CONNECTION_REJECT_EVENT);
	ASSERT_OK(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_OK(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
			      DAT_QOS_BEST_EFFORT));

	/* Timed out (nobody at that port answers): allowed again. */
	sdt_connect_to(a.ia, a.ep, sdt_dead_port(), 300000);
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
				  DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_ACTCONNPENDING));
	ev = u2_conn(a.conn_evd, DAT_IB_UD_CONNECTION_ERROR_EVENT);
	ASSERT_OK(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_OK(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
			      DAT_QOS_BEST_EFFORT));

	/* Disconnected while pending; reset: modifiable at once. */
	sdt_connect_to(a.ia, a.ep, c.port, DAT_TIMEOUT_INFINITE);
	cr = u2_cr(c.cr_evd, NULL);
	ASSERT_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	u2_conn(a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
				  DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED));
	ASSERT_OK(dat_ep_reset(a.ep));
	ASSERT_OK(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
			      DAT_QOS_BEST_EFFORT));
	/* The abandoned attempt's answer changes nothing. */
	ASSERT_OK(dat_cr_accept(cr, c.ep, 0, NULL));
	sdt_expect_none(a.conn_evd, 300);
	ASSERT_EQ(sdt_ep_state(a.ep), DAT_EP_STATE_UNCONNECTED);
	ASSERT_OK(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
			      DAT_QOS_BEST_EFFORT));

	/* Passive, pending until the RTU: a requester by hand never sends it. */
	fd = raw_socket();
	raw_cm(fd, SD_UD_REQ, 0, 0, 77, (uint32_t)b.port, b.port);
	ASSERT_OK(dat_cr_accept(u2_cr(b.cr_evd, NULL), b.ep, 0, NULL));
	ASSERT_DAT_EQ(MODIFY_ATTR(b.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
				  DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_PASSCONNPENDING));
	raw_recv(fd, &h, &from);
	ASSERT_EQ(h.type, SD_UD_REP);
	ASSERT_UINT64_EQ(h.cm_id, 77);
	ASSERT_DAT_EQ(MODIFY_ATTR(b.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
				  DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_PASSCONNPENDING));
	/* The RTU: the handle is complete, the EP CONNECTED. */
	raw_cm(fd, SD_UD_RTU, h.src_qpn, h.src_qkey, 77, 0, ntohs(from.sin_port));
	ev = u2_conn(b.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(dat_ib_ud_cm_free(b.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_EQ(sdt_ep_state(b.ep), DAT_EP_STATE_CONNECTED);
	close(fd);

	/* CONNECTED: refused, arguments checked first. */
	ASSERT_DAT_EQ(MODIFY_ATTR(b.ep, DAT_EP_FIELD_EP_ATTR_QOS, qos,
				  DAT_QOS_BEST_EFFORT),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED));
	ASSERT_DAT_EQ(MODIFY_ATTR(b.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV,
				  max_recv_iov, 1000),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	u2_resolve(&a, &c, &ab, NULL);
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
				  max_recv_dtos, 4),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED));
	/* DISCONNECTED, then reset: UNCONNECTED and quiescent again. */
	ASSERT_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	u2_conn(a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_DAT_EQ(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
				  max_recv_dtos, 4),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED));
	ASSERT_OK(dat_ep_reset(a.ep));
	ASSERT_OK(MODIFY_ATTR(a.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
			      max_recv_dtos, 4));
	ASSERT_EQ(u2_query(a.ep).ep_attr.max_recv_dtos, 4);

	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	sdt_ud_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_ep_recv_query                                                   */

/*
 * ud.c ud_ep_recv_query: the receives the EP holds (posted, not
 * completed) and their span, which is the count (datagrams fill
 * receives in post order); either output may be NULL; every state;
 * DAT_INVALID_HANDLE for anything but an EP. A datagram consumes one; a
 * disconnect flushes them (0), and a receive posted on a DISCONNECTED
 * EP is flushed at once (RECV-7), never held.
 */
TEST_IMPL(provider_ud2_recv_query)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_IB_ADDR_HANDLE ab, ba;
	DAT_COUNT nb, span;
	struct sdt_ud a, b;
	int i;

	u2_init(&a, ia, 8192, 0);
	u2_init(&b, ia, 8192, 1);
	ASSERT_DAT_EQ(dat_ep_recv_query(a.buf, &nb, &span),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_recv_query(DAT_HANDLE_NULL, &nb, &span),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	nb = span = -1;
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, &span));
	ASSERT_EQ(nb, 0);
	ASSERT_EQ(span, 0);
	for (i = 0; i < 3; i++)
		ASSERT_OK(sdt_ud_recv(&a, (size_t)i * 1024, 1024, (uint64_t)i));
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, &span));
	ASSERT_EQ(nb, 3);
	ASSERT_EQ(span, 3);
	ASSERT_OK(dat_ep_recv_query(a.ep, NULL, &span));
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, NULL));
	ASSERT_OK(dat_ep_recv_query(a.ep, NULL, NULL));

	/* CONNECTED; one datagram consumes one. */
	u2_resolve(&a, &b, &ab, &ba);
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, &span));
	ASSERT_EQ(nb, 3);
	ASSERT_OK(sdt_ud_send(&b, &ba, 0, 10, 9, DAT_COMPLETION_SUPPRESS_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 0);
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, &span));
	ASSERT_EQ(nb, 2);
	ASSERT_EQ(span, 2);

	/* DISCONNECTED: flushed, and nothing more is held. */
	ASSERT_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED, 1);
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED, 2);
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, &span));
	ASSERT_EQ(nb, 0);
	ASSERT_EQ(span, 0);
	ASSERT_OK(sdt_ud_recv(&a, 0, 1024, 5));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED, 5);
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, &span));
	ASSERT_EQ(nb, 0);
	ASSERT_OK(dat_ep_reset(a.ep));
	ASSERT_OK(sdt_ud_recv(&a, 0, 1024, 6));
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, &span));
	ASSERT_EQ(nb, 1);
	ASSERT_EQ(span, 1);

	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_ep_set_watermark                                                */

/*
 * ud.c ud_ep_set_watermark: ep.c's argument checks (EP handle; >= 0 or
 * DAT_WATERMARK_INFINITE, ARG2 soft, ARG3 hard); the soft watermark is
 * reported as srq_soft_hw and fires once per setting, as an async event,
 * during the call or at the dat_ep_post_recv that exceeds it. The hard
 * one breaks a CONNECTED EP (BROKEN, everything flushed): at once when
 * its first address handle comes if the EP already holds more, or at
 * the post that exceeds it (that post succeeds and is flushed); an
 * UNCONNECTED EP has nothing to break.
 */
TEST_IMPL(provider_ud2_watermarks)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_IB_ADDR_HANDLE ab;
	struct sdt_ud a, b;
	DAT_COUNT nb;
	int i;

	u2_init(&a, ia, 8192, 0);
	u2_init(&b, ia, 8192, 1);
	ASSERT_DAT_EQ(dat_ep_set_watermark(a.buf, 1, 1),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_set_watermark(a.ep, -2, 1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ep_set_watermark(a.ep, 1, -2),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_OK(dat_ep_set_watermark(a.ep, DAT_WATERMARK_INFINITE,
				       DAT_WATERMARK_INFINITE));
	ASSERT_EQ(u2_query(a.ep).ep_attr.srq_soft_hw, DAT_WATERMARK_INFINITE);

	/* Soft: at the call if exceeded, once per setting. */
	for (i = 0; i < 3; i++)
		ASSERT_OK(sdt_ud_recv(&a, (size_t)i * 1024, 1024, (uint64_t)i));
	ASSERT_OK(dat_ep_set_watermark(a.ep, 3, DAT_WATERMARK_INFINITE));
	sdt_expect_none(async, 20);
	ASSERT_OK(dat_ep_set_watermark(a.ep, 2, DAT_WATERMARK_INFINITE));
	sdt_expect_watermark(async, a.ep, DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	ASSERT_EQ(u2_query(a.ep).ep_attr.srq_soft_hw, 2);
	ASSERT_OK(sdt_ud_recv(&a, 3072, 512, 3));
	sdt_expect_none(async, 20);			/* fired already */
	/* ...and at the post that exceeds it. */
	ASSERT_OK(dat_ep_set_watermark(a.ep, 4, DAT_WATERMARK_INFINITE));
	sdt_expect_none(async, 20);
	ASSERT_OK(sdt_ud_recv(&a, 3584, 512, 4));
	sdt_expect_watermark(async, a.ep, DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	ASSERT_OK(sdt_ud_recv(&a, 4096, 512, 5));
	sdt_expect_none(async, 20);

	/* Hard, UNCONNECTED: nothing to break yet. */
	ASSERT_OK(dat_ep_set_watermark(a.ep, DAT_WATERMARK_INFINITE, 1));
	sdt_expect_none(a.conn_evd, 20);
	ASSERT_EQ(sdt_ep_state(a.ep), DAT_EP_STATE_UNCONNECTED);
	/* Its first handle: ESTABLISHED, then BROKEN at once. */
	u2_resolve(&a, &b, &ab, NULL);
	u2_conn(a.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	ASSERT_EQ(sdt_ep_state(a.ep), DAT_EP_STATE_DISCONNECTED);
	for (i = 0; i < 6; i++)
		sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED,
			      (uint64_t)i);
	ASSERT_OK(dat_ep_recv_query(a.ep, &nb, NULL));
	ASSERT_EQ(nb, 0);
	sdt_expect_none(async, 0);

	/* CONNECTED, holding 0: the post that makes it 2 breaks it. */
	ASSERT_OK(dat_ep_reset(a.ep));
	ASSERT_OK(dat_ib_ud_ah_free(a.ep, &ab));
	u2_resolve(&a, &b, &ab, NULL);
	ASSERT_EQ(sdt_ep_state(a.ep), DAT_EP_STATE_CONNECTED);
	sdt_expect_none(a.conn_evd, 20);
	ASSERT_OK(sdt_ud_recv(&a, 0, 1024, 10));
	sdt_expect_none(a.conn_evd, 20);
	ASSERT_OK(sdt_ud_recv(&a, 1024, 1024, 11));
	u2_conn(a.conn_evd, DAT_CONNECTION_EVENT_BROKEN);
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED, 10);
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED, 11);
	ASSERT_EQ(sdt_ep_state(a.ep), DAT_EP_STATE_DISCONNECTED);
	/* Disarmed (INFINITE): nothing breaks any more. */
	ASSERT_OK(dat_ep_reset(a.ep));
	ASSERT_OK(dat_ep_set_watermark(a.ep, DAT_WATERMARK_INFINITE,
				       DAT_WATERMARK_INFINITE));
	u2_resolve(&a, &b, &ab, NULL);
	for (i = 0; i < 4; i++)
		ASSERT_OK(sdt_ud_recv(&a, (size_t)i * 1024, 1024, 20 + (uint64_t)i));
	sdt_expect_none(a.conn_evd, 20);
	sdt_expect_none(async, 0);
	ASSERT_EQ(sdt_ep_state(a.ep), DAT_EP_STATE_CONNECTED);

	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_ep_dup_connect                                                  */

/*
 * ud.c ud_ep_dup_connect: the handles (UD EPs of one IA, else
 * DAT_INVALID_HANDLE_EP: not an object, an RC EP, another IA's), the
 * timeout (ARG3) and private data (ARG4, ARG5); the dup EP must be
 * CONNECTED (else its state's subtype) through a connect of its own (one
 * that only accepted: ARG2); the EP must be able to connect (not
 * DISCONNECTED, a connection EVD). Then it is a dat_ep_connect to the
 * dup's service point: a request with our private data arrives at the
 * same PSP, and the handle reaches the EP that accepts it. The dup may
 * be the EP itself.
 */
TEST_IMPL(provider_ud2_dup_connect)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE async2 = DAT_HANDLE_NULL;
	DAT_IB_ADDR_HANDLE ab, ba, cb, bc, ab2;
	DAT_CR_ARRIVAL_EVENT_DATA cra;
	DAT_EP_ATTR attr = u2_attr();
	DAT_EP_HANDLE rc, bare;
	char name[] = SDT_IA_NAME;
	char again[] = "again";
	struct sdt_ud a, b, c, e;
	DAT_CR_PARAM crp;
	DAT_EVENT ev;

	u2_init(&a, ia, 8192, 0);
	u2_init(&b, ia, 8192, 1);
	u2_init(&c, ia, 8192, 0);
	ASSERT_OK(dat_ia_open(name, 16, &async2, &ia2));
	u2_init(&e, ia2, 4096, 0);
	ASSERT_OK(dat_ep_create(ia, a.pz, a.dto_evd, a.dto_evd, a.conn_evd, NULL,
				&rc));
	ASSERT_OK(dat_ep_create(ia, a.pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				DAT_HANDLE_NULL, &attr, &bare));

	/* Handles, then arguments. */
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, c.buf, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, rc, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_dup_connect(e.ep, a.ep, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, a.ep, 0, 0, NULL, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, a.ep, 1000000, -1, NULL, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, a.ep, 1000000, 1025, again, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, a.ep, 1000000, 4, NULL, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	/* The dup has no handle yet: its state says so. */
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, a.ep, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));

	u2_resolve(&a, &b, &ab, &ba);
	/* b is CONNECTED, but only by accepting: no service point to ask. */
	ASSERT_EQ(sdt_ep_state(b.ep), DAT_EP_STATE_CONNECTED);
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, b.ep, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	/* An EP that cannot connect: no connection EVD. */
	ASSERT_DAT_EQ(dat_ep_dup_connect(bare, a.ep, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_NOTREADY));
	sdt_expect_none(b.cr_evd, 0);

	/* c asks a's service point, with its own private data. */
	ASSERT_OK(dat_ep_dup_connect(c.ep, a.ep, DAT_TIMEOUT_INFINITE,
				     sizeof(again), again, DAT_QOS_BEST_EFFORT));
	ASSERT_OK(dat_cr_query(u2_cr(b.cr_evd, &cra), DAT_CR_FIELD_ALL, &crp));
	ASSERT_PTR_EQ(cra.sp_handle.psp_handle, b.psp);
	ASSERT_UINT64_EQ(cra.conn_qual, b.port);
	ASSERT_EQ(crp.private_data_size, sizeof(again));
	ASSERT_STR_EQ((char *)crp.private_data, again);
	ASSERT_OK(dat_cr_accept(cra.cr_handle, b.ep, 0, NULL));
	ev = u2_conn(c.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_REMOTE_AH);
	cb = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(c.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_EQ(cb.qpn, ab.qpn);		/* the same remote EP */
	ASSERT_MEM_EQ(&cb.ia_addr, &ab.ia_addr, sizeof(struct sockaddr_in));
	ev = u2_conn(b.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	bc = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(b.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_EQ(sdt_ep_state(c.ep), DAT_EP_STATE_CONNECTED);
	/* It works: c to b and back. */
	ASSERT_OK(sdt_ud_recv(&b, 0, 1024, 1));
	ASSERT_OK(sdt_ud_recv(&c, 0, 1024, 2));
	memcpy(c.buf + 4096, "dup", 4);
	ASSERT_OK(sdt_ud_send(&c, &cb, 4096, 4, 3, DAT_COMPLETION_SUPPRESS_FLAG));
	ev = sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);
	ASSERT_STR_EQ(b.buf + SDT_GRH, "dup");
	ASSERT_EQ(sdt_ext_of(&ev)->remote_ah.qpn, bc.qpn);
	ASSERT_OK(sdt_ud_send(&b, &bc, 4096, 4, 4, DAT_COMPLETION_SUPPRESS_FLAG));
	sdt_ud_expect(c.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 2);

	/* The dup may be the EP itself: one more handle to the same place. */
	ASSERT_OK(dat_ep_dup_connect(a.ep, a.ep, DAT_TIMEOUT_INFINITE, 0, NULL,
				     DAT_QOS_BEST_EFFORT));
	u2_finish(&a, &b, &ab2, NULL);
	ASSERT_EQ(ab2.qpn, ab.qpn);
	ASSERT_PTR_NE(ab2.ah, ab.ah);

	/* A DISCONNECTED EP cannot; nor can one dup a DISCONNECTED EP. */
	ASSERT_OK(dat_ep_disconnect(c.ep, DAT_CLOSE_ABRUPT_FLAG));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, a.ep, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED));
	ASSERT_OK(dat_ep_reset(c.ep));
	ASSERT_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, a.ep, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED));
	/* Reset forgets the remote (as ep.c does): UNCONNECTED again. */
	ASSERT_OK(dat_ep_reset(a.ep));
	ASSERT_DAT_EQ(dat_ep_dup_connect(c.ep, a.ep, 1000000, 0, NULL, 0),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED));
	sdt_expect_none(b.cr_evd, 0);

	ASSERT_OK(dat_ep_free(rc));
	ASSERT_OK(dat_ep_free(bare));
	sdt_ud_fini(&e);
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	sdt_ud_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * A UD peer in another process (run-tests --helper ud2_echo N): a PSP on
 * a port the kernel chose, reported on the readiness line; it accepts N
 * requests on one UD EP and echoes N datagrams, each to its sender
 * (found by the sender's qpn among the handles it got), then exits 0.
 */
HELPER_IMPL(ud2_echo)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_IB_ADDR_HANDLE ah[8];
	int n = atoi(argv[1]), i, j, recvs = 0, sends = 0;
	struct sdt_ud s;
	DAT_EVENT ev;

	ASSERT(n > 0 && n <= 8);
	u2_init(&s, ia, 16384, 1);
	for (i = 0; i < n; i++)
		ASSERT_OK(sdt_ud_recv(&s, (size_t)i * 1024, 1024, (uint64_t)i));
	test_helper_ready("%llu", (unsigned long long)s.port);
	for (i = 0; i < n; i++)
		ASSERT_OK(dat_cr_accept(u2_cr(s.cr_evd, NULL), s.ep, 0, NULL));
	for (i = 0; i < n; i++) {
		ev = u2_conn(s.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
		ah[i] = sdt_ext_of(&ev)->remote_ah;
		ASSERT_OK(dat_ib_ud_cm_free(s.ep, sdt_ext_of(&ev)->context.as_ptr));
	}
	while (recvs < n || sends < n) {
		DAT_DTO_COMPLETION_EVENT_DATA *d;

		ev = sdt_wait(s.dto_evd, 10000);
		ASSERT_EQ(ev.event_number, DAT_IB_DTO_EVENT);
		d = &ev.event_data.dto_completion_event_data;
		ASSERT_EQ(d->status, DAT_DTO_SUCCESS);
		if (sdt_ext_of(&ev)->type == DAT_IB_UD_SEND) {
			sends++;
			continue;
		}
		i = (int)d->user_cookie.as_64;
		for (j = 0; j < n; j++)
			if (ah[j].qpn == sdt_ext_of(&ev)->remote_ah.qpn)
				break;
		ASSERT(j < n);
		ASSERT_OK(sdt_ud_send(&s, &ah[j], (size_t)i * 1024 + SDT_GRH,
				      d->transfered_length - SDT_GRH,
				      100 + (uint64_t)i,
				      DAT_COMPLETION_DEFAULT_FLAG));
		recvs++;
	}
	sdt_ud_fini(&s);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * ud.c ud_ep_dup_connect across processes: c dups a, whose handle points
 * at an EP of another process; c gets a handle to the same remote EP
 * (same qpn and address), and a datagram from each comes back to its
 * sender only.
 */
TEST_IMPL(provider_ud2_dup_connect_peer_process)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_IB_ADDR_HANDLE ab, cb;
	const char *line;
	test_helper_t *hp;
	struct sdt_ud a, c;
	DAT_EVENT ev;
	int status;

	u2_init(&a, ia, 8192, 0);
	u2_init(&c, ia, 8192, 0);
	ASSERT_OK(sdt_ud_recv(&a, 0, 1024, 1));
	ASSERT_OK(sdt_ud_recv(&c, 0, 1024, 2));
	hp = test_spawn_helper("ud2_echo", "2", NULL);
	ASSERT_OK(test_helper_wait_ready(hp, &line));

	sdt_connect_to(a.ia, a.ep, (DAT_CONN_QUAL)strtoull(line, NULL, 10),
		       DAT_TIMEOUT_INFINITE);
	ev = u2_conn(a.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ab = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_OK(dat_ep_dup_connect(c.ep, a.ep, 10000000, 0, NULL,
				     DAT_QOS_BEST_EFFORT));
	ev = u2_conn(c.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	cb = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(c.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_EQ(cb.qpn, ab.qpn);
	ASSERT_MEM_EQ(&cb.ia_addr, &ab.ia_addr, sizeof(struct sockaddr_in));

	memcpy(a.buf + 4096, "from a", 7);
	memcpy(c.buf + 4096, "from c", 7);
	ASSERT_OK(sdt_ud_send(&a, &ab, 4096, 7, 3, DAT_COMPLETION_SUPPRESS_FLAG));
	ASSERT_OK(sdt_ud_send(&c, &cb, 4096, 7, 4, DAT_COMPLETION_SUPPRESS_FLAG));
	ev = sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
		  SDT_GRH + 7);
	ASSERT_STR_EQ(a.buf + SDT_GRH, "from a");
	ASSERT_EQ(sdt_ext_of(&ev)->remote_ah.qpn, ab.qpn);
	sdt_ud_expect(c.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 2);
	ASSERT_STR_EQ(c.buf + SDT_GRH, "from c");

	ASSERT_OK(test_helper_wait(hp, 30, &status));
	ASSERT_EXIT_OK(status);
	test_helper_free(hp);
	sdt_ud_fini(&a);
	sdt_ud_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* dat_cr_handoff                                                      */

/*
 * udcm.c sd_ud_cr_handoff: DAT_INVALID_HANDLE_CR for anything but a
 * pending UD CR; DAT_INVALID_ARG2 (cr.c's answer) for a qualifier that
 * folds to no port, or names no service point that takes UD requests
 * (none at all, a PSP with DAT_PSP_PROVIDER_FLAG, another IA's PSP),
 * the CR staying pending. Then the request moves: a new CR on the target
 * PSP's EVD (conn_qual the target's, same private data and requester),
 * none at the first PSP even as the requester resends its REQ there, and
 * accepting it gives the requester a handle to the accepting EP. A
 * qualifier above 65535 folds to its low 16 bits. Handed back to the
 * same PSP and rejected there, the requester sees the reject.
 */
TEST_IMPL(provider_ud2_cr_handoff)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE async2 = DAT_HANDLE_NULL;
	DAT_CR_ARRIVAL_EVENT_DATA cra, cra2;
	DAT_CR_PARAM crp, crp2;
	DAT_CONN_QUAL prov_port;
	DAT_PSP_HANDLE prov;
	DAT_IB_ADDR_HANDLE ac;
	DAT_CR_HANDLE cr, cr2;
	struct sockaddr_storage ss;
	char name[] = SDT_IA_NAME;
	char hello[] = "move me";
	char no[] = "no";
	struct sdt_ud a, b, c, e;
	DAT_EVENT ev;

	u2_init(&a, ia, 8192, 0);
	u2_init(&b, ia, 8192, 1);
	u2_init(&c, ia, 8192, 1);
	ASSERT_OK(dat_psp_create_any(ia, &prov_port, b.cr_evd,
				     DAT_PSP_PROVIDER_FLAG, &prov));
	ASSERT_OK(dat_ia_open(name, 16, &async2, &ia2));
	u2_init(&e, ia2, 4096, 1);

	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&ss, b.port,
				 DAT_TIMEOUT_INFINITE, sizeof(hello), hello,
				 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	cr = u2_cr(b.cr_evd, &cra);
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));

	/* Refusals; the CR stays pending through them. */
	ASSERT_DAT_EQ(dat_cr_handoff(a.buf, c.port),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR));
	ASSERT_DAT_EQ(dat_cr_handoff(cr, 0x10000),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_cr_handoff(cr, sdt_dead_port()),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_cr_handoff(cr, prov_port),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_cr_handoff(cr, e.port),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp2));

	/* To c's PSP, named by a qualifier that folds to its port. */
	ASSERT_OK(dat_cr_handoff(cr, c.port | 0x30000));
	cr2 = u2_cr(c.cr_evd, &cra2);
	ASSERT_PTR_NE(cr2, cr);
	ASSERT_PTR_EQ(cra2.sp_handle.psp_handle, c.psp);
	ASSERT_UINT64_EQ(cra2.conn_qual, c.port);
	ASSERT_OK(dat_cr_query(cr2, DAT_CR_FIELD_ALL, &crp2));
	ASSERT_EQ(crp2.private_data_size, sizeof(hello));
	ASSERT_STR_EQ((char *)crp2.private_data, hello);
	ASSERT_UINT64_EQ(crp2.remote_port_qual, crp.remote_port_qual);
	ASSERT_NULL(crp2.local_ep_handle);
	/* The requester resends its REQ to b's port meanwhile: still one CR. */
	sdt_expect_none(b.cr_evd, 700);
	sdt_expect_none(c.cr_evd, 0);
	ASSERT_OK(dat_cr_accept(cr2, c.ep, 0, NULL));
	ev = u2_conn(a.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ac = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr));
	ev = u2_conn(c.conn_evd, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_PASSIVE_REMOTE_AH);
	ASSERT_EQ(ev.event_data.connect_event_data.private_data_size,
		  sizeof(hello));
	ASSERT_OK(dat_ib_ud_cm_free(c.ep, sdt_ext_of(&ev)->context.as_ptr));
	/* The handle leads to c's EP. */
	ASSERT_OK(sdt_ud_recv(&c, 0, 1024, 1));
	memcpy(a.buf + 4096, "handed", 7);
	ASSERT_OK(sdt_ud_send(&a, &ac, 4096, 7, 2, DAT_COMPLETION_SUPPRESS_FLAG));
	sdt_ud_expect(c.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);
	ASSERT_STR_EQ(c.buf + SDT_GRH, "handed");
	sdt_expect_none(b.conn_evd, 0);

	/* To the same PSP, then rejected there: the requester is told. */
	ASSERT_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&ss, b.port,
				 DAT_TIMEOUT_INFINITE, 0, NULL,
				 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	cr = u2_cr(b.cr_evd, NULL);
	ASSERT_OK(dat_cr_handoff(cr, b.port));
	cr2 = u2_cr(b.cr_evd, &cra2);
	ASSERT_PTR_NE(cr2, cr);
	ASSERT_UINT64_EQ(cra2.conn_qual, b.port);
	ASSERT_OK(dat_cr_reject(cr2, sizeof(no), no));
	ev = u2_conn(a.conn_evd, DAT_IB_UD_CONNECTION_REJECT_EVENT);
	ASSERT_EQ(ev.event_data.connect_event_data.private_data_size, sizeof(no));
	ASSERT_STR_EQ((char *)ev.event_data.connect_event_data.private_data, no);
	ASSERT_OK(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr));
	sdt_expect_none(b.cr_evd, 0);

	sdt_ud_fini(&e);
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_psp_free(prov));
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	sdt_ud_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * udcm.c sd_ud_cr_handoff: a PSP freed before the call is no target
 * (DAT_INVALID_ARG2: its UDP side is closed with it), and the CR stays
 * the first PSP's to decide. (A target freed between the call and the
 * engine's move cannot be ordered from outside the provider; cr_handoff
 * refuses the requester then, as if nothing had listened.)
 */
TEST_IMPL(provider_ud2_cr_handoff_target_gone)
{
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, NULL);
	DAT_CONN_QUAL gone_port;
	struct sdt_ud a, b, c;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	u2_init(&a, ia, 4096, 0);
	u2_init(&b, ia, 4096, 1);
	u2_init(&c, ia, 4096, 1);
	gone_port = c.port;
	ASSERT_OK(dat_psp_free(c.psp));
	c.psp = DAT_HANDLE_NULL;
	sdt_connect_to(a.ia, a.ep, b.port, DAT_TIMEOUT_INFINITE);
	cr = u2_cr(b.cr_evd, NULL);
	ASSERT_DAT_EQ(dat_cr_handoff(cr, gone_port),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	/* Still b's to decide. */
	ASSERT_OK(dat_cr_reject(cr, 0, NULL));
	ev = u2_conn(a.conn_evd, DAT_IB_UD_CONNECTION_REJECT_EVENT);
	ASSERT_OK(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr));
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	sdt_ud_fini(&c);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Shared receive queues and address handles                           */

/* Posts @len bytes at @off of @n's buffer to @srq with @cookie. */
static void u2_srq_post(DAT_SRQ_HANDLE srq, struct sdt_ud *n, size_t off,
			size_t len, uint64_t cookie)
{
	DAT_LMR_TRIPLET t = sdt_ud_iov(n, off, len);

	ASSERT_OK(dat_srq_post_recv(srq, 1, &t, ck(cookie)));
}

/*
 * A UD EP whose receives come from an SRQ (ud.c, srqbuf.c:
 * sd_srqbuf_take_dgram; dtestsrq -u): dat_ep_create_with_srq's checks, the
 * SRQ named by dat_ep_query, dat_ep_post_recv refused and the SRQ held
 * while the EP lives. Datagrams take the SRQ's buffers in post order,
 * GRH first; one that finds none posted is lost (the next one lands in
 * the next buffer posted); one longer than the buffer completes it with
 * DAT_DTO_LENGTH_ERROR. A buffer reposted as soon as its completion is
 * seen finds room in an SRQ of exactly the buffers in use.
 */
TEST_IMPL(provider_ud2_srq)
{
	DAT_EP_ATTR a = u2_attr();
	DAT_IB_ADDR_HANDLE ab, ab2;
	struct sdt_ud na, nb;
	DAT_SRQ_ATTR sa;
	DAT_SRQ_HANDLE srq;
	DAT_EP_HANDLE ep;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	DAT_EP_PARAM p;
	uint64_t i;

	ia = sdt_open_ia(NULL, NULL);
	u2_init(&na, ia, 1 << 16, 0);
	u2_init(&nb, ia, 1 << 16, 1);
	ASSERT_OK(dat_ep_free(nb.ep));
	memset(&sa, 0, sizeof(sa));
	sa.max_recv_dtos = 2;
	sa.max_recv_iov = 1;
	ASSERT_OK(dat_srq_create(ia, nb.pz, &sa, &srq));

	/* dat_ep_create_with_srq's checks, in dat_ep_create's order. */
	ASSERT_DAT_EQ(dat_ep_create_with_srq(ia, nb.pz, nb.dto_evd, nb.dto_evd,
					     nb.conn_evd, DAT_HANDLE_NULL, &a, &ep),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ));
	ASSERT_DAT_EQ(dat_ep_create_with_srq(ia, nb.pz, nb.dto_evd, nb.dto_evd,
					     nb.conn_evd, (DAT_SRQ_HANDLE)nb.pz,
					     &a, &ep),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ));
	ASSERT_DAT_EQ(dat_ep_create_with_srq(ia, nb.pz, nb.dto_evd, nb.dto_evd,
					     nb.conn_evd, srq, &a, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8));
	a.max_request_iov = -1;
	ASSERT_DAT_EQ(dat_ep_create_with_srq(ia, nb.pz, nb.dto_evd, nb.dto_evd,
					     nb.conn_evd, srq, &a, &ep),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	a = u2_attr();
	a.max_recv_dtos = 0;	/* means nothing with an SRQ */
	ASSERT_OK(dat_ep_create_with_srq(ia, nb.pz, nb.dto_evd, nb.dto_evd,
					 nb.conn_evd, srq, &a, &nb.ep));
	ASSERT_OK(dat_ep_query(nb.ep, DAT_EP_FIELD_ALL, &p));
	ASSERT_PTR_EQ(p.srq_handle, srq);
	ASSERT_DAT_EQ(sdt_ud_recv(&nb, 0, 1024, 1),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE));
	ASSERT_DAT_EQ(dat_srq_free(srq),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE));

	u2_resolve(&na, &nb, &ab, NULL);
	for (i = 0; i < 4; i++)
		memset(na.buf + i * 1024, (int)('a' + i), 1024);

	/* Two buffers, three datagrams: the third is lost. */
	u2_srq_post(srq, &nb, 0, SDT_GRH + 512, 10);
	u2_srq_post(srq, &nb, 4096, SDT_GRH + 512, 11);
	for (i = 0; i < 3; i++) {
		ASSERT_OK(sdt_ud_send(&na, &ab, i * 1024, 100 + i, 20 + i,
				      DAT_COMPLETION_DEFAULT_FLAG));
		sdt_ud_expect(na.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 20 + i);
	}
	for (i = 0; i < 2; i++) {
		ev = sdt_ud_expect(nb.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS,
				   10 + i);
		ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
			  SDT_GRH + 100 + i);
		ASSERT_PTR_EQ(ev.event_data.dto_completion_event_data.ep_handle,
			      nb.ep);
		ASSERT_EQ(nb.buf[i * 4096 + SDT_GRH], 'a' + i);
		ASSERT_EQ(nb.buf[i * 4096 + SDT_GRH + 99 + i], 'a' + i);
		ASSERT_EQ(nb.buf[i * 4096 + SDT_GRH + 100 + i], 0);
	}
	/*
	 * The third is dropped once the engine reads it. Another resolution
	 * ends with an RTU from na's EP to nb's, which nb's engine reads
	 * after the third (one UDP flow, in order on loopback): nb's
	 * ESTABLISHED says the third is gone.
	 */
	u2_resolve(&na, &nb, &ab2, NULL);
	ASSERT_OK(dat_ib_ud_ah_free(na.ep, &ab2));
	/*
	 * Reposted at once: the SRQ holds 2, so each repost needs the
	 * buffer its completion named to be back.
	 */
	u2_srq_post(srq, &nb, 0, SDT_GRH + 512, 12);
	u2_srq_post(srq, &nb, 4096, SDT_GRH + 64, 13);
	ASSERT_OK(sdt_ud_send(&na, &ab, 3 * 1024, 103, 23,
			      DAT_COMPLETION_DEFAULT_FLAG));
	ev = sdt_ud_expect(nb.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 12);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
		  SDT_GRH + 103);
	ASSERT_EQ(nb.buf[SDT_GRH], 'd');	/* the 4th, not the lost 3rd */
	/* Longer than the next buffer: it completes with a length error. */
	ASSERT_OK(sdt_ud_send(&na, &ab, 0, 100, 24, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_ud_expect(nb.dto_evd, DAT_IB_UD_RECV, DAT_DTO_LENGTH_ERROR, 13);
	sdt_ud_expect(na.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 23);
	sdt_ud_expect(na.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 24);
	u2_srq_post(srq, &nb, 0, SDT_GRH + 512, 14);
	u2_srq_post(srq, &nb, 4096, SDT_GRH + 512, 15);
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_evd_dequeue(nb.dto_evd, &ev)),
		      DAT_QUEUE_EMPTY);

	/* The EP gone, the SRQ is free to go; its buffers were never taken. */
	ASSERT_OK(dat_ep_free(nb.ep));
	nb.ep = NULL;
	ASSERT_OK(dat_srq_free(srq));
	sdt_ud_fini(&na);
	sdt_ud_fini(&nb);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Address handles belong to a PZ, not to the EP that resolved them
 * (ext.h, struct sd_ud_ah): another UD EP of the same IA and PZ sends
 * through one, and it reaches the peer; an EP of another PZ may not use
 * it (DAT_INVALID_PARAMETER, ARG4), nor one of another IA. Any EP of
 * the IA may free it.
 */
TEST_IMPL(provider_ud2_ah_scope)
{
	DAT_EP_ATTR a = u2_attr();
	DAT_IB_ADDR_HANDLE ba;
	struct sdt_ud na, nb, nc;
	DAT_IA_HANDLE ia, ia2;
	DAT_EP_HANDLE ep2;
	DAT_LMR_TRIPLET t;

	ia = sdt_open_ia(NULL, NULL);
	ia2 = sdt_open_ia(NULL, NULL);
	u2_init(&na, ia, 8192, 1);
	u2_init(&nb, ia, 8192, 0);
	u2_init(&nc, ia2, 8192, 0);	/* another IA, of course another PZ */
	u2_resolve(&nb, &na, &ba, NULL);
	ASSERT_OK(sdt_ud_recv(&na, 0, SDT_GRH + 64, 1));
	ASSERT_OK(sdt_ud_recv(&na, 4096, SDT_GRH + 64, 2));

	/* A second EP of nb's PZ sends through nb's handle. */
	ASSERT_OK(dat_ep_create(ia, nb.pz, nb.dto_evd, nb.dto_evd, nb.conn_evd,
				&a, &ep2));
	memcpy(nb.buf, "through another EP", 18);
	t = sdt_ud_iov(&nb, 0, 18);
	ASSERT_OK(dat_ib_post_send_ud(ep2, 1, &t, &ba, ck(5),
				      DAT_COMPLETION_DEFAULT_FLAG));
	sdt_ud_expect(nb.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 5);
	sdt_ud_expect(na.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);
	ASSERT_MEM_EQ(na.buf + SDT_GRH, "through another EP", 18);

	/* Not from another PZ, nor from another IA. */
	ASSERT_DAT_EQ(sdt_ud_send(&na, &ba, 0, 8, 6, DAT_COMPLETION_DEFAULT_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(sdt_ud_send(&nc, &ba, 0, 8, 7, DAT_COMPLETION_DEFAULT_FLAG),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(dat_ib_ud_ah_free(nc.ep, &ba),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	/* Freed through the other EP; nb's own handle list no longer has it. */
	ASSERT_OK(dat_ib_ud_ah_free(ep2, &ba));
	ASSERT_OK(dat_ep_free(ep2));
	sdt_ud_fini(&na);
	sdt_ud_fini(&nb);
	sdt_ud_fini(&nc);
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
