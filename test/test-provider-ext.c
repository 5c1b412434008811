/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IB extensions (provider/ext.h): what the IA advertises, the fast
 * query, the counters, unreliable datagram EPs (address handles,
 * datagrams, rejects, timeouts, flushes, teardown, threads), the RC
 * extension posts through the extension entry point and the refusals.
 * OFED's dtestx runs in the conformance matrix (conformance.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

#include "../provider/udproto.h"	/* the wire, for hostile datagrams */
#include "provider-conn.h"
#include "provider-ud.h"
#include "provider-util.h"
#include "test.h"

#define EXT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* dat_ib_open_query takes a (non-const) DAT_NAME_PTR. */
static char ia_name[] = SDT_IA_NAME;
static char no_such[] = "no-such-ia";

static const char *attr_value(const DAT_PROVIDER_ATTR *pa, const char *name)
{
	DAT_COUNT i;

	for (i = 0; i < pa->num_provider_specific_attr; i++)
		if (strcmp(pa->provider_specific_attr[i].name, name) == 0)
			return pa->provider_specific_attr[i].value;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* UD nodes                                                            */

/* This file's UD EPs: queues 128 deep, of 4 segments. */
static DAT_EP_ATTR ud_attr(void)
{
	return sdt_ud_attr(128, 4);
}

static void ud_init(struct sdt_ud *n, DAT_IA_HANDLE ia, size_t len, int psp)
{
	DAT_EP_ATTR a = ud_attr();

	sdt_ud_init(n, ia, &a, len, psp);
}

/*
 * @a resolves an address handle to @b through @b's PSP, with private data
 * both ways; both see ESTABLISHED. *@ab: how @a sends to @b, *@ba: how
 * @b sends to @a. The CM objects are released.
 */
static void ud_resolve(struct sdt_ud *a, struct sdt_ud *b,
		       DAT_IB_ADDR_HANDLE *ab, DAT_IB_ADDR_HANDLE *ba)
{
	static char req[] = "from a";
	static char rep[] = "b here";
	struct sockaddr_storage ss;
	DAT_CR_ARRIVAL_EVENT_DATA *cra;
	DAT_CONNECTION_EVENT_DATA *c;
	DAT_CR_PARAM p;
	DAT_EVENT ev;

	sdt_ia_addr(a->ia, &ss);
	ASSERT_OK(dat_ep_connect(a->ep, (DAT_IA_ADDRESS_PTR)&ss, b->port,
				 DAT_TIMEOUT_INFINITE, sizeof(req), req,
				 DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	ev = sdt_wait(b->cr_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_REQUEST_EVENT);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_CONNECT_REQUEST);
	cra = &ev.event_data.cr_arrival_event_data;
	ASSERT_PTR_EQ(cra->sp_handle.psp_handle, b->psp);
	ASSERT_UINT64_EQ(cra->conn_qual, b->port);
	ASSERT_OK(dat_cr_query(cra->cr_handle, DAT_CR_FIELD_ALL, &p));
	ASSERT_EQ(p.private_data_size, sizeof(req));
	ASSERT_STR_EQ((char *)p.private_data, req);
	ASSERT_NULL(p.local_ep_handle);
	ASSERT_OK(dat_cr_accept(cra->cr_handle, b->ep, sizeof(rep), rep));

	ev = sdt_wait(a->conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_REMOTE_AH);
	c = &ev.event_data.connect_event_data;
	ASSERT_PTR_EQ(c->ep_handle, a->ep);
	ASSERT_EQ(c->private_data_size, sizeof(rep));
	ASSERT_STR_EQ((char *)c->private_data, rep);
	ASSERT_NOT_NULL(sdt_ext_of(&ev)->remote_ah.ah);
	ASSERT_NE(sdt_ext_of(&ev)->remote_ah.qpn, 0);
	ASSERT_EQ(((struct sockaddr *)&sdt_ext_of(&ev)->remote_ah.ia_addr)->sa_family,
		  ss.ss_family);
	*ab = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(a->ep, sdt_ext_of(&ev)->context.as_ptr));

	ev = sdt_wait(b->conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_PASSIVE_REMOTE_AH);
	c = &ev.event_data.connect_event_data;
	ASSERT_PTR_EQ(c->ep_handle, b->ep);
	ASSERT_EQ(c->private_data_size, sizeof(req));
	ASSERT_STR_EQ((char *)c->private_data, req);
	ASSERT_NOT_NULL(sdt_ext_of(&ev)->remote_ah.ah);
	*ba = sdt_ext_of(&ev)->remote_ah;
	ASSERT_OK(dat_ib_ud_cm_free(b->ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_NE(ab->qpn, ba->qpn);
}

/* ------------------------------------------------------------------ */
/* Attributes and the fast query                                       */

TEST_IMPL(provider_ext_attributes)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_PROVIDER_ATTR pa;
	DAT_IA_ATTR a;
	DAT_COUNT i;

	ASSERT_OK(dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &a,
			       DAT_PROVIDER_FIELD_ALL, &pa));
	ASSERT_EQ(a.extension_supported, DAT_EXTENSION_IB);
	ASSERT_EQ(a.extension_version, DAT_IB_EXTENSION_VERSION);
	ASSERT_STR_EQ(attr_value(&pa, "DAT_EXTENSION_INTERFACE"), "TRUE");
	ASSERT_STR_EQ(attr_value(&pa, DAT_IB_ATTR_UD), "TRUE");
	ASSERT_STR_EQ(attr_value(&pa, DAT_IB_ATTR_COUNTERS), "TRUE");
	ASSERT_STR_EQ(attr_value(&pa, DAT_IB_ATTR_IMMED_DATA), "TRUE");
	ASSERT_STR_EQ(attr_value(&pa, DAT_IB_ATTR_FETCH_AND_ADD), "TRUE");
	ASSERT_STR_EQ(attr_value(&pa, DAT_IB_ATTR_CMP_AND_SWAP), "TRUE");
	/* Collectives are not implemented: none is advertised. */
	for (i = 0; i < pa.num_provider_specific_attr; i++)
		ASSERT(strncmp(pa.provider_specific_attr[i].name, "DAT_COLL", 8) != 0);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ext_open_query)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_PROVIDER_ATTR pa, pa2;
	DAT_IA_ATTR a, a2;
	DAT_IA_HANDLE q = DAT_HANDLE_NULL, ia;

	sdt_conf(NULL);
	/* No IA is open: the registry routes by name. */
	ASSERT_OK(dat_ib_open_query(ia_name, &q, DAT_IA_FIELD_ALL, &a,
				    DAT_PROVIDER_FIELD_ALL, &pa));
	ASSERT_NOT_NULL(q);
	ASSERT_EQ(a.extension_supported, DAT_EXTENSION_IB);
	ASSERT_EQ(a.extension_version, DAT_IB_EXTENSION_VERSION);
	ASSERT_NOT_NULL(a.ia_address_ptr);
	ASSERT_EQ(a.ia_address_ptr->sa_family, AF_INET);
	ASSERT_STR_EQ(attr_value(&pa, DAT_IB_ATTR_UD), "TRUE");

	/* The same as an open IA reports. */
	ia = sdt_open_ia(NULL, &async);
	ASSERT_OK(dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &a2,
			       DAT_PROVIDER_FIELD_ALL, &pa2));
	ASSERT_MEM_EQ(a.ia_address_ptr, a2.ia_address_ptr,
		      sizeof(struct sockaddr_in));
	ASSERT_EQ(a.max_eps, a2.max_eps);
	ASSERT_EQ(pa.num_provider_specific_attr, pa2.num_provider_specific_attr);
	/* An IA is not a query handle, nor the reverse. */
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_close_query(ia)), DAT_INVALID_HANDLE);
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_pz_create(q, &(DAT_PZ_HANDLE){ 0 })),
		      DAT_INVALID_HANDLE);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ib_close_query(q));

	/* Either output alone is enough; neither, or no handle, is not. */
	ASSERT_OK(dat_ib_open_query(ia_name, &q, 0, NULL,
				    DAT_PROVIDER_FIELD_ALL, &pa));
	ASSERT_OK(dat_ib_close_query(q));
	ASSERT_DAT_EQ(dat_ib_open_query(ia_name, &q, 0, NULL, 0, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	ASSERT_DAT_EQ(dat_ib_open_query(ia_name, NULL, DAT_IA_FIELD_ALL, &a,
					0, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_open_query(no_such, &q,
						     DAT_IA_FIELD_ALL, &a, 0,
						     NULL)),
		      DAT_PROVIDER_NOT_FOUND);
	return 0;
}

/* A bad ia_params is the open query's error, as dat_ia_open's. */
TEST_IMPL(provider_ext_open_query_bad_params)
{
	DAT_IA_HANDLE q = DAT_HANDLE_NULL;
	DAT_IA_ATTR a;

	sdt_conf("no-such-interface-xyz");
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_open_query(ia_name, &q,
						     DAT_IA_FIELD_ALL, &a, 0,
						     NULL)),
		      DAT_INVALID_ADDRESS);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Refusals                                                            */

TEST_IMPL(provider_ext_refusals)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_IB_COLLECTIVE_MEMBER member = NULL;
	DAT_UINT32 size = 0;
	DAT_CONTEXT ctx;
	struct sdt_node n;
	DAT_LMR_TRIPLET l;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE c;
	DAT_IB_ADDR_HANDLE ah;

	memset(&ctx, 0, sizeof(ctx));
	c.as_64 = 1;
	/* Unknown operations and the collectives: DAT_NOT_IMPLEMENTED. */
	ASSERT_DAT_EQ(dat_extension_op(ia, (DAT_EXTENDED_OP)999),
		      ERR(DAT_NOT_IMPLEMENTED, 0));
	ASSERT_DAT_EQ(dat_ib_collective_create_member(ia, NULL, &member, &size),
		      ERR(DAT_NOT_IMPLEMENTED, 0));
	ASSERT_DAT_EQ(dat_ib_collective_barrier(ia, ctx, 0),
		      ERR(DAT_NOT_IMPLEMENTED, 0));
	ASSERT_DAT_EQ(dat_ib_collective_free_group(ia),
		      ERR(DAT_NOT_IMPLEMENTED, 0));

	/* The RC posts check their handle: an IA is not an EP... */
	memset(&l, 0, sizeof(l));
	memset(&r, 0, sizeof(r));
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_post_rdma_write_immed(ia, 1, &l, c, &r,
								 7, 0)),
		      DAT_INVALID_HANDLE);
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_post_fetch_and_add(ia, 1, &l, c, &r, 0)),
		      DAT_INVALID_HANDLE);
	/* ...nor is an RC EP a UD one. */
	sdt_node_init(&n, ia, NULL, 4096);
	memset(&ah, 0, sizeof(ah));
	ASSERT_DAT_EQ(dat_ib_post_send_ud(n.ep, 1, &l, &ah, c, 0),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ib_ud_ah_free(n.ep, &ah),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_ib_ud_cm_free(n.ep, (void *)&ah),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	/* An unconnected RC EP refuses write immediate by its state. */
	l = sdt_iov(&n, 0, 8);
	r = sdt_rmr(&n, 0, 8);
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_post_rdma_write_immed(n.ep, 1, &l, c,
								 &r, 7, 0)),
		      DAT_INVALID_STATE);
	ASSERT_DAT_EQ(dat_ib_post_rdma_write_immed(n.ep, 1, &l, c, NULL, 7, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	sdt_node_fini(&n);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counters                                                            */

TEST_IMPL(provider_ext_counters)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_UINT64 ia_c[DCNT_IA_ALL_COUNTERS], ep_c[DCNT_EP_ALL_COUNTERS];
	DAT_UINT64 evd_c[DCNT_EVD_ALL_COUNTERS], v;
	DAT_IB_ADDR_HANDLE ab, ba;
	struct sdt_ud a, b;
	int i;

	ud_init(&a, ia, 4096, 0);
	ud_init(&b, ia, 4096, 1);
	ASSERT_EQ(sdt_counter(ia, DCNT_IA_EP_CREATE), 2);
	ASSERT_EQ(sdt_counter(ia, DCNT_IA_CM_LISTEN), 1);

	ASSERT_OK(sdt_ud_recv(&b, 0, 1024, 1));
	ASSERT_OK(sdt_ud_recv(&b, 1024, 1024, 2));
	ud_resolve(&a, &b, &ab, &ba);
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 100, 3, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 3);
	sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);

	/* All of one object's counters at once. */
	ASSERT_OK(dat_ib_query_counters(a.ep, DCNT_EP_ALL_COUNTERS, ep_c, 0));
	ASSERT_EQ(ep_c[DCNT_EP_CONNECT], 1);
	ASSERT_EQ(ep_c[DCNT_EP_POST_SEND_UD], 1);
	ASSERT_EQ(ep_c[DCNT_EP_POST_SEND_UD_DATA], 100);
	ASSERT_OK(dat_ib_query_counters(b.ep, DCNT_EP_ALL_COUNTERS, ep_c, 0));
	ASSERT_EQ(ep_c[DCNT_EP_POST_RECV], 2);
	ASSERT_EQ(ep_c[DCNT_EP_POST_RECV_DATA], 2048);
	ASSERT_EQ(ep_c[DCNT_EP_RECV_UD], 1);
	ASSERT_EQ(ep_c[DCNT_EP_RECV_UD_DATA], 100);
	ASSERT_OK(dat_ib_query_counters(ia, DCNT_IA_ALL_COUNTERS, ia_c, 0));
	ASSERT_EQ(ia_c[DCNT_IA_CM_AH_REQ_TX], 1);
	ASSERT_EQ(ia_c[DCNT_IA_CM_AH_REQ_RX], 1);
	ASSERT_EQ(ia_c[DCNT_IA_SP_CR], 1);
	ASSERT_EQ(ia_c[DCNT_IA_SP_CR_ACCEPTED], 1);
	ASSERT_EQ(ia_c[DCNT_IA_CM_AH_RESOLVED], 2);
	ASSERT_EQ(ia_c[DCNT_IA_CM_ACTIVE_EST], 1);
	ASSERT_EQ(ia_c[DCNT_IA_CM_PASSIVE_EST], 1);
	ASSERT_OK(dat_ib_query_counters(b.dto_evd, DCNT_EVD_ALL_COUNTERS, evd_c, 0));

	/* One counter; reset clears what it read, and only that. */
	ASSERT_OK(dat_ib_query_counters(b.ep, DCNT_EP_RECV_UD, &v, 1));
	ASSERT_EQ(v, 1);
	ASSERT_EQ(sdt_counter(b.ep, DCNT_EP_RECV_UD), 0);
	ASSERT_EQ(sdt_counter(b.ep, DCNT_EP_RECV_UD_DATA), 100);
	ASSERT_OK(dat_ib_query_counters(b.ep, DCNT_EP_ALL_COUNTERS, ep_c, 1));
	for (i = 0; i < DCNT_EP_ALL_COUNTERS; i++)
		ASSERT_EQ(sdt_counter(b.ep, i), 0);
	ASSERT_OK(dat_ib_print_counters(a.ep, DCNT_EP_ALL_COUNTERS, 0));
	ASSERT_OK(dat_ib_print_counters(ia, DCNT_IA_EP_CREATE, 0));
	ASSERT_OK(dat_ib_print_counters(a.dto_evd, DCNT_EVD_ALL_COUNTERS, 0));

	/* Checks. */
	ASSERT_DAT_EQ(dat_ib_query_counters(a.ep, DCNT_EP_ALL_COUNTERS + 1, &v, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ib_query_counters(a.ep, -1, &v, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ib_query_counters(a.ep, DCNT_EP_CONNECT, NULL, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_query_counters(a.pz, 0, &v, 0)),
		      DAT_INVALID_HANDLE);
	ASSERT_DAT_EQ(dat_ib_print_counters(a.ep, 1000, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	/* Sampled groups: accepted on an IA, and only there. */
	ASSERT_OK(dat_ib_start_counter(ia, DCNT_IA_CM));
	ASSERT_OK(dat_ib_start_counter(ia, DCNT_IA_LNK));
	ASSERT_OK(dat_ib_stop_counter(ia, DCNT_IA_LNK));
	ASSERT_OK(dat_ib_stop_counter(ia, DCNT_IA_DIAG));
	ASSERT_DAT_EQ(dat_ib_start_counter(ia, 7),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_ib_start_counter(a.ep, DCNT_IA_CM),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));

	ASSERT_OK(dat_ib_ud_ah_free(a.ep, &ab));
	ASSERT_OK(dat_ib_ud_ah_free(b.ep, &ba));
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_EQ(sdt_counter(ia, DCNT_IA_EP_FREE), 2);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* UD endpoints                                                        */

TEST_IMPL(provider_ext_ud_create_query_free)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_EP_ATTR a = ud_attr();
	DAT_HANDLE_TYPE type;
	DAT_CONTEXT ctx, got;
	DAT_LMR_TRIPLET l;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE c;
	DAT_EP_PARAM p;
	DAT_EP_HANDLE ep;
	struct sdt_ud n;
	DAT_EP_STATE s;
	DAT_BOOLEAN ri, qi;

	ud_init(&n, ia, 4096, 0);
	ASSERT_OK(dat_ep_query(n.ep, DAT_EP_FIELD_ALL, &p));
	ASSERT_EQ(p.ep_attr.service_type, DAT_IB_SERVICE_TYPE_UD);
	ASSERT_EQ(p.ep_state, DAT_EP_STATE_UNCONNECTED);
	/* A datagram's worth by default; no RDMA. */
	ASSERT_EQ(p.ep_attr.max_message_size, 65507 - 40);
	ASSERT_EQ(p.ep_attr.max_rdma_size, 0);
	ASSERT_EQ(p.ep_attr.max_recv_dtos, 128);
	ASSERT_PTR_EQ(p.recv_evd_handle, n.dto_evd);
	ASSERT_PTR_EQ(p.connect_evd_handle, n.conn_evd);
	ASSERT_PTR_EQ(p.pz_handle, n.pz);
	ASSERT_NE(p.local_port_qual, 0);
	ASSERT_OK(dat_get_handle_type(n.ep, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_EP);
	ctx.as_64 = 0x1234;
	ASSERT_OK(dat_set_consumer_context(n.ep, ctx));
	ASSERT_OK(dat_get_consumer_context(n.ep, &got));
	ASSERT_UINT64_EQ(got.as_64, 0x1234);
	ASSERT_OK(dat_ep_get_status(n.ep, &s, &ri, &qi));
	ASSERT_EQ(s, DAT_EP_STATE_UNCONNECTED);
	ASSERT_EQ(ri, DAT_TRUE);

	/* No RDMA, no send without an address handle. */
	c.as_64 = 1;
	l = sdt_ud_iov(&n, 0, 8);
	memset(&r, 0, sizeof(r));
	ASSERT_DAT_EQ(dat_ep_post_send(n.ep, 1, &l, c, 0),
		      ERR(DAT_MODEL_NOT_SUPPORTED, 0));
	ASSERT_DAT_EQ(dat_ep_post_rdma_write(n.ep, 1, &l, c, &r, 0),
		      ERR(DAT_MODEL_NOT_SUPPORTED, 0));
	ASSERT_DAT_EQ(dat_ep_post_rdma_read(n.ep, 1, &l, c, &r, 0),
		      ERR(DAT_MODEL_NOT_SUPPORTED, 0));
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_post_rdma_write_immed(n.ep, 1, &l, c,
								 &r, 7, 0)),
		      DAT_INVALID_HANDLE);
	/* Send argument checks (ep, segments, lbuf, ah, cookie, flags). */
	ASSERT_DAT_EQ(dat_ib_post_send_ud(n.ep, 1, &l, NULL, c, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	{
		DAT_IB_ADDR_HANDLE bogus;

		memset(&bogus, 0, sizeof(bogus));
		ASSERT_DAT_EQ(dat_ib_post_send_ud(n.ep, 1, &l, &bogus, c, 0),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
		ASSERT_DAT_EQ(dat_ib_post_send_ud(n.ep, 99, &l, &bogus, c, 0),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
		ASSERT_DAT_EQ(dat_ib_post_send_ud(n.ep, 1, &l, &bogus, c, 0x1000),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
		ASSERT_DAT_EQ(dat_ib_ud_ah_free(n.ep, &bogus),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
		ASSERT_DAT_EQ(dat_ib_ud_cm_free(n.ep, (void *)&bogus),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	}
	/* Receive checks as for RC. */
	ASSERT_DAT_EQ(dat_ep_post_recv(n.ep, 5, &l, c, 0),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	l.lmr_context ^= 0x5555;
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ep_post_recv(n.ep, 1, &l, c, 0)),
		      DAT_PRIVILEGES_VIOLATION);
	/* ep_modify works on a UD EP (test-provider-ud2.c tests it). */
	ASSERT_OK(dat_ep_modify(n.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p));
	sdt_ud_fini(&n);

	/* Attributes beyond a datagram are refused. */
	a.max_message_size = 70000;
	ASSERT_DAT_EQ(dat_ep_create(ia, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				    DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	a = ud_attr();
	a.max_recv_iov = 1000;
	ASSERT_DAT_EQ(dat_ep_create(ia, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				    DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	/* A bare UD EP: created, refused a connect without its EVD, freed. */
	a = ud_attr();
	ASSERT_OK(dat_ep_create(ia, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep));
	{
		struct sockaddr_storage ss;

		sdt_ia_addr(ia, &ss);
		ASSERT_DAT_EQ(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&ss, 1,
					     1000000, 0, NULL, 0, 0),
			      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_NOTREADY));
		ASSERT_DAT_EQ(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&ss, 1,
					     0, 0, NULL, 0, 0),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
		ASSERT_DAT_EQ(dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&ss, 65536,
					     1000, 0, NULL, 0, 0),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
		ASSERT_DAT_EQ(dat_ep_connect(ep, NULL, 1, 1000, 0, NULL, 0, 0),
			      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	}
	ASSERT_OK(dat_ep_free(ep));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Address handles both ways, then datagrams both ways: scattered sends,
 * the GRH area, the sender's identity, in-order receive completion.
 */
TEST_IMPL(provider_ext_ud_send_recv)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_IB_ADDR_HANDLE ab, ba;
	DAT_LMR_TRIPLET t[3];
	struct sdt_ud a, b;
	DAT_DTO_COOKIE c;
	DAT_EVENT ev;
	DAT_EP_STATE s;
	size_t i;

	ud_init(&a, ia, 8192, 1);
	ud_init(&b, ia, 8192, 1);
	for (i = 0; i < 4; i++)
		ASSERT_OK(sdt_ud_recv(&b, 1024 * i, 1024, 10 + i));
	ASSERT_OK(sdt_ud_recv(&a, 4096, 1024, 20));
	ud_resolve(&a, &b, &ab, &ba);
	ASSERT_OK(dat_ep_get_status(a.ep, &s, NULL, NULL));
	ASSERT_EQ(s, DAT_EP_STATE_CONNECTED);

	/* Three segments make one datagram. */
	for (i = 0; i < 300; i++)
		a.buf[6000 + i] = (char)(i * 7);
	t[0] = sdt_ud_iov(&a, 6000, 100);
	t[1] = sdt_ud_iov(&a, 6100, 0);
	t[2] = sdt_ud_iov(&a, 6100, 200);
	c.as_64 = 1;
	ASSERT_OK(dat_ib_post_send_ud(a.ep, 3, t, &ab, c,
				      DAT_COMPLETION_DEFAULT_FLAG));
	ev = sdt_ud_expect(a.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 1);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length, 300);
	ev = sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 10);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
		  SDT_GRH + 300);
	ASSERT_MEM_EQ(b.buf + SDT_GRH, a.buf + 6000, 300);
	/* The pseudo-GRH: IPv6 version, payload length, loopback SGID. */
	ASSERT_EQ((unsigned char)b.buf[0], 0x60);
	ASSERT_EQ(((unsigned char)b.buf[4] << 8) | (unsigned char)b.buf[5], 300);
	ASSERT_EQ((unsigned char)b.buf[8 + 15], 1);	/* ::ffff:127.0.0.1 */
	/* Who sent it: a's qpn (as b's handle to a names it), a's socket. */
	ASSERT_EQ(sdt_ext_of(&ev)->remote_ah.qpn, ba.qpn);
	ASSERT_MEM_EQ(&sdt_ext_of(&ev)->remote_ah.ia_addr, &ba.ia_addr,
		      sizeof(struct sockaddr_in));
	ASSERT_NULL(sdt_ext_of(&ev)->remote_ah.ah);

	/* Suppressed sends complete silently; receives in post order. */
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 10, 2, DAT_COMPLETION_SUPPRESS_FLAG));
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 20, 3, DAT_COMPLETION_SUPPRESS_FLAG));
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 0, 4, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 4);
	ev = sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 11);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
		  SDT_GRH + 10);
	ev = sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 12);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
		  SDT_GRH + 20);
	ev = sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 13);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length, SDT_GRH);

	/* And back, through the passive side's handle. */
	memcpy(b.buf + 7000, "pong", 5);
	ASSERT_OK(sdt_ud_send(&b, &ba, 7000, 5, 5, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_ud_expect(b.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 5);
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 20);
	ASSERT_STR_EQ(a.buf + 4096 + SDT_GRH, "pong");

	/* A datagram larger than any is refused at post. */
	{
		char *big = calloc(1, 70000);
		DAT_REGION_DESCRIPTION rd;
		DAT_LMR_HANDLE lmr;
		DAT_LMR_CONTEXT lctx;
		DAT_RMR_CONTEXT rctx;
		DAT_VLEN rlen;
		DAT_VADDR raddr;
		DAT_LMR_TRIPLET bt;

		ASSERT_NOT_NULL(big);
		rd.for_va = big;
		ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 70000, a.pz,
					 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
					 &lmr, &lctx, &rctx, &rlen, &raddr));
		bt.lmr_context = lctx;
		bt.virtual_address = (DAT_VADDR)(uintptr_t)big;
		bt.segment_length = 65507 - 40 + 1;
		ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ib_post_send_ud(a.ep, 1, &bt, &ab,
							       c, 0)),
			      DAT_LENGTH_ERROR);
		ASSERT_OK(dat_lmr_free(lmr));
		free(big);
	}

	ASSERT_DAT_EQ(dat_ib_ud_ah_free(b.ep, &ab),	/* not b's */
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_ib_ud_ah_free(a.ep, &ab));
	ASSERT_OK(dat_ib_ud_ah_free(b.ep, &ba));
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* A receive too small for the datagram completes in error; the EP goes on. */
TEST_IMPL(provider_ext_ud_recv_too_small)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_IB_ADDR_HANDLE ab, ba;
	struct sdt_ud a, b;
	DAT_EVENT ev;

	ud_init(&a, ia, 8192, 0);
	ud_init(&b, ia, 8192, 1);
	ASSERT_OK(sdt_ud_recv(&b, 0, SDT_GRH + 10, 1));
	ASSERT_OK(sdt_ud_recv(&b, 1024, 20, 2));	/* not even a GRH */
	ASSERT_OK(sdt_ud_recv(&b, 2048, 1024, 3));
	ud_resolve(&a, &b, &ab, &ba);
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 11, 1, DAT_COMPLETION_SUPPRESS_FLAG));
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 1, 2, DAT_COMPLETION_SUPPRESS_FLAG));
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 500, 3, DAT_COMPLETION_SUPPRESS_FLAG));
	sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_LENGTH_ERROR, 1);
	sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_LENGTH_ERROR, 2);
	ev = sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 3);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
		  SDT_GRH + 500);
	sdt_ud_fini(&a);	/* with its address handle */
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

TEST_IMPL(provider_ext_ud_reject)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	static char no[] = "go away";
	struct sockaddr_storage ss;
	struct sdt_ud a, b;
	DAT_EVENT ev;
	DAT_CR_HANDLE cr;

	ud_init(&a, ia, 4096, 0);
	ud_init(&b, ia, 4096, 1);
	sdt_ia_addr(ia, &ss);
	ASSERT_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&ss, b.port, 10000000,
				 0, NULL, DAT_QOS_BEST_EFFORT, 0));
	ev = sdt_wait(b.cr_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_REQUEST_EVENT);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	/* A UD request goes to a UD EP: not NULL, not an RC EP. */
	ASSERT_DAT_EQ(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	ASSERT_DAT_EQ(dat_cr_reject(cr, -1, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_cr_reject(cr, sizeof(no), no));
	ASSERT_DAT_EQ(dat_cr_reject(cr, 0, NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR));
	ev = sdt_wait(a.conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_REJECT_EVENT);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_CONNECT_REJECT);
	ASSERT_EQ(ev.event_data.connect_event_data.private_data_size, sizeof(no));
	ASSERT_STR_EQ((char *)ev.event_data.connect_event_data.private_data, no);
	ASSERT_OK(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr));
	ASSERT_DAT_EQ(dat_ib_ud_cm_free(a.ep, sdt_ext_of(&ev)->context.as_ptr),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	sdt_expect_none(b.cr_evd, 300);
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Nothing answers at a port: the connect timeout ends the attempt with
 * DAT_IB_UD_CONNECTION_ERROR_EVENT. A PSP of the provider kind refuses.
 */
TEST_IMPL(provider_ext_ud_timeout_and_refusal)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	struct sockaddr_storage ss, bound;
	socklen_t bl = sizeof(bound);
	DAT_PSP_HANDLE ppsp;
	DAT_CONN_QUAL pport;
	struct sdt_ud a;
	DAT_EVENT ev;
	int fd;

	ud_init(&a, ia, 4096, 0);
	sdt_ia_addr(ia, &ss);
	/* A UDP port that is bound but never answers. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT(fd >= 0);
	memcpy(&bound, &ss, sizeof(struct sockaddr_in));
	((struct sockaddr_in *)&bound)->sin_port = 0;
	ASSERT_OK(bind(fd, (struct sockaddr *)&bound, sizeof(struct sockaddr_in)));
	ASSERT_OK(getsockname(fd, (struct sockaddr *)&bound, &bl));
	ASSERT_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&ss,
				 ntohs(((struct sockaddr_in *)&bound)->sin_port),
				 300000, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
	ev = sdt_wait(a.conn_evd, 20000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_ERROR_EVENT);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_UD_CONNECT_ERROR);
	ASSERT_EQ(sdt_ext_of(&ev)->status, DAT_IB_OP_ERR);
	close(fd);

	ASSERT_OK(dat_psp_create_any(ia, &pport, a.cr_evd, DAT_PSP_PROVIDER_FLAG,
				     &ppsp));
	ASSERT_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&ss, pport,
				 DAT_TIMEOUT_INFINITE, 0, NULL,
				 DAT_QOS_BEST_EFFORT, 0));
	ev = sdt_wait(a.conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_REJECT_EVENT);
	sdt_expect_none(a.cr_evd, 100);
	ASSERT_OK(dat_psp_free(ppsp));
	sdt_ud_fini(&a);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* dat_ep_disconnect flushes a UD EP; reset makes it usable again. */
TEST_IMPL(provider_ext_ud_disconnect_flush)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	struct sockaddr_storage ss;
	DAT_IB_ADDR_HANDLE ab, ba;
	struct sdt_ud a, b;
	DAT_EP_STATE s;

	ud_init(&a, ia, 4096, 0);
	ud_init(&b, ia, 4096, 1);
	ud_resolve(&a, &b, &ab, &ba);
	ASSERT_OK(sdt_ud_recv(&a, 0, 512, 1));
	ASSERT_OK(sdt_ud_recv(&a, 512, 512, 2));
	ASSERT_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED, 1);
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED, 2);
	sdt_expect_conn(a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
	ASSERT_OK(dat_ep_get_status(a.ep, &s, NULL, NULL));
	ASSERT_EQ(s, DAT_EP_STATE_DISCONNECTED);
	/* Posts on a DISCONNECTED EP are flushed at once; connects refused. */
	ASSERT_OK(sdt_ud_recv(&a, 0, 512, 3));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_RECV, DAT_DTO_ERR_FLUSHED, 3);
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 8, 4, DAT_COMPLETION_SUPPRESS_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_SEND, DAT_DTO_ERR_FLUSHED, 4);
	sdt_ia_addr(ia, &ss);
	ASSERT_DAT_EQ(DAT_GET_TYPE(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&ss,
						  b.port, 1000000, 0, NULL, 0, 0)),
		      DAT_INVALID_STATE);
	ASSERT_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG));	/* no-op */
	ASSERT_OK(dat_ep_reset(a.ep));
	ASSERT_OK(dat_ep_get_status(a.ep, &s, NULL, NULL));
	ASSERT_EQ(s, DAT_EP_STATE_UNCONNECTED);
	/* The handle resolved before still works. */
	ASSERT_OK(sdt_ud_recv(&b, 0, 512, 5));
	ASSERT_OK(sdt_ud_send(&a, &ab, 0, 8, 6, DAT_COMPLETION_DEFAULT_FLAG));
	sdt_ud_expect(a.dto_evd, DAT_IB_UD_SEND, DAT_DTO_SUCCESS, 6);
	sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 5);
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * One EP resolving many handles to the same peer and to several (dtestx's
 * pattern), across two IAs; then ia_close with everything still open: a
 * pending request, resolved handles, unreleased CM objects.
 */
TEST_IMPL(provider_ext_ud_many_and_ia_close)
{
	DAT_EVD_HANDLE async1 = DAT_HANDLE_NULL, async2 = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia1 = sdt_open_ia(NULL, &async1), ia2;
	struct sdt_ud a, b[3];
	struct sockaddr_storage ss;
	DAT_IB_ADDR_HANDLE ab, ba;
	DAT_EVENT ev;
	int i;

	ASSERT_OK(dat_ia_open(ia_name, 8, &async2, &ia2));
	ud_init(&a, ia1, 4096, 1);
	for (i = 0; i < 3; i++)
		ud_init(&b[i], ia2, 4096, 1);
	for (i = 0; i < 6; i++)
		ud_resolve(&a, &b[i % 3], &ab, &ba);
	/* The graceful close refuses while UD objects remain. */
	ASSERT_DAT_EQ(dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE));
	/* A request left pending, a resolution left unreleased. */
	sdt_ia_addr(ia2, &ss);
	ASSERT_OK(dat_ep_connect(b[0].ep, (DAT_IA_ADDRESS_PTR)&ss, a.port,
				 DAT_TIMEOUT_INFINITE, 0, NULL, 0, 0));
	ev = sdt_wait(a.cr_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_ep_connect(b[1].ep, (DAT_IA_ADDRESS_PTR)&ss, a.port,
				 DAT_TIMEOUT_INFINITE, 0, NULL, 0, 0));
	ev = sdt_wait(a.cr_evd, 10000);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				a.ep, 0, NULL));
	ev = sdt_wait(b[1].conn_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	ASSERT_OK(dat_ia_close(ia1, DAT_CLOSE_ABRUPT_FLAG));
	free(a.buf);
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
	for (i = 0; i < 3; i++)
		free(b[i].buf);
	return 0;
}

/* A datagram of ours, packed as udproto.h says; its length. */
static size_t raw_msg(uint8_t *b, uint8_t type, uint32_t dst_qpn,
		      uint32_t dst_qkey, uint64_t id, uint32_t arg,
		      const char *pdata, uint16_t plen)
{
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
	h.pdata_len = plen;
	ud_hdr_pack(&h, b);
	memcpy(b + SD_UD_HDR_SIZE, pdata, plen);
	return SD_UD_HDR_SIZE + plen;
}

static void raw_to(int fd, const void *b, size_t n, DAT_CONN_QUAL port)
{
	struct sockaddr_in to;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((uint16_t)port);
	ASSERT_EQ(sendto(fd, b, n, 0, (struct sockaddr *)&to, sizeof(to)),
		  (ssize_t)n);
}

/* The next datagram @fd receives (10 s at most), unpacked. */
static size_t raw_recv(int fd, struct sd_ud_hdr *h, uint8_t *b, size_t len)
{
	struct timeval tv = { 10 * test_timeout_scale(), 0 };
	ssize_t n;

	ASSERT_OK(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	n = recv(fd, b, len, 0);
	ASSERT_GE(n, SD_UD_HDR_SIZE);
	ud_hdr_unpack(h, b);
	ASSERT_OK(ud_hdr_check(h, (uint64_t)n));
	return (size_t)n;
}

/*
 * Datagrams from anyone: malformed ones, strays and copies change
 * nothing; a well-formed request is one CR however often it comes; the
 * answer to it goes back. Then a service point freed with its request
 * pending, with no UD EP left in the process.
 */
TEST_IMPL(provider_ext_ud_hostile)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	uint8_t b[SD_UD_HDR_SIZE + 64];
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp, ppsp;
	DAT_CONN_QUAL port, pport;
	struct sockaddr_in me;
	struct sd_ud_hdr h;
	DAT_CR_PARAM p;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	size_t n;
	int fd;

	ASSERT_OK(dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd));
	ASSERT_OK(dat_psp_create_any(ia, &port, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	ASSERT_OK(dat_psp_create_any(ia, &pport, cr_evd, DAT_PSP_PROVIDER_FLAG,
				     &ppsp));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT(fd >= 0);
	memset(&me, 0, sizeof(me));
	me.sin_family = AF_INET;
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(bind(fd, (struct sockaddr *)&me, sizeof(me)));

	/* Short, bad magic, wrong length, another port, not a request. */
	raw_to(fd, "junk", 4, port);
	memset(b, 0xa5, sizeof(b));
	raw_to(fd, b, SD_UD_HDR_SIZE, port);
	n = raw_msg(b, SD_UD_REQ, 0, 0, 42, (uint32_t)port, "hi", 3);
	raw_to(fd, b, n - 1, port);
	n = raw_msg(b, SD_UD_REQ, 0, 0, 42, (uint32_t)port + 1, "hi", 3);
	raw_to(fd, b, n, port);
	n = raw_msg(b, SD_UD_RTU, 0, 0, 42, 0, "", 0);
	raw_to(fd, b, n, port);
	sdt_expect_none(cr_evd, 200);

	/* A request, and a copy of it: one CR. */
	n = raw_msg(b, SD_UD_REQ, 0, 0, 42, (uint32_t)port, "hi", 3);
	raw_to(fd, b, n, port);
	raw_to(fd, b, n, port);
	ev = sdt_wait(cr_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_UD_CONNECTION_REQUEST_EVENT);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	ASSERT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &p));
	ASSERT_EQ(p.private_data_size, 3);
	ASSERT_STR_EQ((char *)p.private_data, "hi");
	ASSERT_EQ(p.remote_port_qual,
		  ntohs(((struct sockaddr_in *)p.remote_ia_address_ptr)->sin_port));
	sdt_expect_none(cr_evd, 200);

	/* The PSP goes (and with it the last UD socket); the CR stays valid. */
	ASSERT_OK(dat_psp_free(psp));
	{
		static char no[] = "no";

		ASSERT_OK(dat_cr_reject(cr, sizeof(no), no));
	}
	n = raw_recv(fd, &h, b, sizeof(b));
	ASSERT_EQ(h.type, SD_UD_REJ);
	ASSERT_EQ(h.dst_qpn, 5);
	ASSERT_EQ(h.dst_qkey, 7);
	ASSERT_UINT64_EQ(h.cm_id, 42);
	ASSERT_EQ(h.arg, SD_UD_REJ_CONSUMER);
	ASSERT_EQ(h.pdata_len, 3);
	ASSERT_STR_EQ((char *)b + SD_UD_HDR_SIZE, "no");

	/* A provider PSP takes no UD request: refused at once. */
	n = raw_msg(b, SD_UD_REQ, 0, 0, 43, (uint32_t)pport, "", 0);
	raw_to(fd, b, n, pport);
	raw_recv(fd, &h, b, sizeof(b));
	ASSERT_EQ(h.type, SD_UD_REJ);
	ASSERT_UINT64_EQ(h.cm_id, 43);
	ASSERT_EQ(h.arg, SD_UD_REJ_NO_SP);
	sdt_expect_none(cr_evd, 100);

	/* Strays at a UD EP: a DATA under the wrong key is not placed. */
	{
		struct sdt_ud a, c;
		DAT_IB_ADDR_HANDLE ab, ba;
		DAT_EP_PARAM ep;

		ud_init(&a, ia, 4096, 0);
		ud_init(&c, ia, 4096, 1);
		ud_resolve(&a, &c, &ab, &ba);
		ASSERT_OK(dat_ep_query(c.ep, DAT_EP_FIELD_ALL, &ep));
		ASSERT_OK(sdt_ud_recv(&c, 0, 1024, 1));
		n = raw_msg(b, SD_UD_DATA, ab.qpn, 0, 0, 0, "", 0);
		raw_to(fd, b, n + 8, ep.local_port_qual);
		n = raw_msg(b, SD_UD_REP, ab.qpn, 0, 99, 0, "", 0);
		raw_to(fd, b, n, ep.local_port_qual);
		raw_to(fd, "x", 1, ep.local_port_qual);
		ASSERT_OK(sdt_ud_send(&a, &ab, 0, 16, 2, DAT_COMPLETION_SUPPRESS_FLAG));
		ev = sdt_ud_expect(c.dto_evd, DAT_IB_UD_RECV, DAT_DTO_SUCCESS, 1);
		ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
			  SDT_GRH + 16);
		ASSERT_EQ(sdt_ext_of(&ev)->remote_ah.qpn, ba.qpn);
		sdt_ud_fini(&a);
		sdt_ud_fini(&c);
	}
	close(fd);
	ASSERT_OK(dat_psp_free(ppsp));
	ASSERT_OK(dat_evd_free(cr_evd));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* Several threads send on one UD EP while the engine receives. */
struct sender {
	struct sdt_ud		*n;
	DAT_IB_ADDR_HANDLE	*ah;
	int			id;
};

#define THREADS		4
#define PER_THREAD	25

static void *send_thread(void *arg)
{
	struct sender *s = arg;
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		DAT_RETURN r;

		/* The request queue may be full for a moment: retry. */
		while ((r = sdt_ud_send(s->n, s->ah, (size_t)s->id * 64, 32,
					(uint64_t)(s->id * 1000 + i),
					DAT_COMPLETION_SUPPRESS_FLAG)) ==
		       ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP))
			usleep(1000);
		ASSERT_OK(r);
	}
	return NULL;
}

TEST_IMPL(provider_ext_ud_threads)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	struct sender s[THREADS];
	pthread_t t[THREADS];
	DAT_IB_ADDR_HANDLE ab, ba;
	struct sdt_ud a, b;
	int i, got[THREADS] = { 0 };

	ud_init(&a, ia, 4096, 0);
	ud_init(&b, ia, 256 * THREADS * PER_THREAD, 1);
	for (i = 0; i < THREADS * PER_THREAD; i++)
		ASSERT_OK(sdt_ud_recv(&b, (size_t)i * 256, 256, (uint64_t)i));
	ud_resolve(&a, &b, &ab, &ba);
	for (i = 0; i < THREADS; i++) {
		memset(a.buf + i * 64, 'a' + i, 32);
		s[i].n = &a;
		s[i].ah = &ab;
		s[i].id = i;
		ASSERT_OK(pthread_create(&t[i], NULL, send_thread, &s[i]));
	}
	for (i = 0; i < THREADS; i++)
		ASSERT_OK(pthread_join(t[i], NULL));
	/* Loopback loses nothing at this rate; receives complete in order. */
	for (i = 0; i < THREADS * PER_THREAD; i++) {
		DAT_EVENT ev = sdt_ud_expect(b.dto_evd, DAT_IB_UD_RECV,
					     DAT_DTO_SUCCESS, (uint64_t)i);
		char *p = b.buf + (size_t)i * 256 + SDT_GRH;

		ASSERT_EQ(ev.event_data.dto_completion_event_data.transfered_length,
			  SDT_GRH + 32);
		ASSERT(p[0] >= 'a' && p[0] < 'a' + THREADS);
		ASSERT_EQ(p[31], p[0]);
		got[p[0] - 'a']++;
	}
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(got[i], PER_THREAD);
	ASSERT_EQ(sdt_counter(a.ep, DCNT_EP_POST_SEND_UD), THREADS * PER_THREAD);
	sdt_ud_fini(&a);
	sdt_ud_fini(&b);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* ------------------------------------------------------------------ */
/* The RC operations through the extension entry point                 */

TEST_IMPL(provider_ext_rc_immediate_atomics)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = sdt_open_ia(NULL, &async);
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE alma, almb;
	DAT_LMR_CONTEXT actx, bctx;
	DAT_RMR_CONTEXT arctx, brctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_LMR_TRIPLET l;
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE c;
	struct sdt_node cli, srv;
	uint64_t *word, *old;
	DAT_EVENT ev;

	sdt_node_init(&cli, ia, NULL, 4096);
	sdt_node_init(&srv, ia, NULL, 4096);
	sdt_connect(&cli, &srv);
	ASSERT_OK(sdt_recv(&srv, 0, 64, 77));

	/* Write with immediate data: the data, then a receive consumed. */
	memcpy(cli.buf + 100, "immediate", 10);
	l = sdt_iov(&cli, 100, 10);
	r = sdt_rmr(&srv, 200, 10);
	c.as_64 = 5;
	ASSERT_OK(dat_ib_post_rdma_write_immed(cli.ep, 1, &l, c, &r, 0xabcd,
					       DAT_COMPLETION_DEFAULT_FLAG));
	ev = sdt_wait(cli.req_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_DTO_EVENT);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_RDMA_WRITE_IMMED);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
	ev = sdt_wait(srv.recv_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_DTO_EVENT);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_RDMA_WRITE_IMMED_DATA);
	ASSERT_EQ(sdt_ext_of(&ev)->val.immed.data, 0xabcd);
	ASSERT_UINT64_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 77);
	ASSERT_STR_EQ(srv.buf + 200, "immediate");
	ASSERT_EQ(sdt_counter(cli.ep, DCNT_EP_POST_WRITE_IMM), 1);
	ASSERT_EQ(sdt_counter(cli.ep, DCNT_EP_POST_WRITE_IMM_DATA), 10);

	/* Atomics need buffers registered with the atomic privilege. */
	word = calloc(1, 64);
	old = calloc(1, 64);
	ASSERT_NOT_NULL(word);
	ASSERT_NOT_NULL(old);
	rd.for_va = word;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 64, srv.pz,
				 (DAT_MEM_PRIV_FLAGS)(DAT_MEM_PRIV_ALL_FLAG |
						      DAT_IB_MEM_PRIV_REMOTE_ATOMIC),
				 DAT_VA_TYPE_VA, &almb, &bctx, &brctx, &rlen,
				 &raddr));
	rd.for_va = old;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 64, cli.pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &alma,
				 &actx, &arctx, &rlen, &raddr));
	*word = 40;
	l.lmr_context = actx;
	l.virtual_address = (DAT_VADDR)(uintptr_t)old;
	l.segment_length = 8;
	r.rmr_context = brctx;
	r.virtual_address = (DAT_VADDR)(uintptr_t)word;
	r.segment_length = 8;
	c.as_64 = 6;
	ASSERT_OK(dat_ib_post_fetch_and_add(cli.ep, 2, &l, c, &r,
					    DAT_COMPLETION_DEFAULT_FLAG));
	ev = sdt_wait(cli.req_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_IB_DTO_EVENT);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_FETCH_AND_ADD);
	ASSERT_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
	ASSERT_UINT64_EQ(*old, 40);
	ASSERT_UINT64_EQ(*word, 42);
	c.as_64 = 7;
	ASSERT_OK(dat_ib_post_cmp_and_swap(cli.ep, 42, 99, &l, c, &r,
					   DAT_COMPLETION_DEFAULT_FLAG));
	ev = sdt_wait(cli.req_evd, 10000);
	ASSERT_EQ(sdt_ext_of(&ev)->type, DAT_IB_CMP_AND_SWAP);
	ASSERT_UINT64_EQ(*old, 42);
	ASSERT_UINT64_EQ(*word, 99);
	ASSERT_EQ(sdt_counter(cli.ep, DCNT_EP_POST_FETCH_ADD), 1);
	ASSERT_EQ(sdt_counter(cli.ep, DCNT_EP_POST_CMP_SWAP), 1);

	sdt_disconnect(&cli, &srv);
	ASSERT_OK(dat_lmr_free(alma));
	ASSERT_OK(dat_lmr_free(almb));
	free(word);
	free(old);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
