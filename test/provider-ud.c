/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "provider-conn.h"
#include "provider-ud.h"
#include "test.h"

DAT_EP_ATTR sdt_ud_attr(DAT_COUNT dtos, DAT_COUNT iov)
{
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD;
	a.max_recv_dtos = dtos;
	a.max_request_dtos = dtos;
	a.max_recv_iov = iov;
	a.max_request_iov = iov;
	a.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	return a;
}

void sdt_ud_init(struct sdt_ud *n, DAT_IA_HANDLE ia, const DAT_EP_ATTR *attr,
		 size_t len, int psp)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;

	memset(n, 0, sizeof(*n));
	n->ia = ia;
	ASSERT_OK(dat_pz_create(ia, &n->pz));
	ASSERT_OK(dat_evd_create(ia, 512, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				 &n->dto_evd));
	ASSERT_OK(dat_evd_create(ia, 64, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
				 &n->conn_evd));
	ASSERT_OK(dat_evd_create(ia, 64, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
				 &n->cr_evd));
	ASSERT_OK(dat_ep_create(ia, n->pz, n->dto_evd, n->dto_evd, n->conn_evd,
				attr, &n->ep));
	n->len = len;
	n->buf = calloc(1, len);
	ASSERT_NOT_NULL(n->buf);
	rd.for_va = n->buf;
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, len, n->pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &n->lmr,
				 &n->lctx, &rctx, &rlen, &raddr));
	if (psp)
		ASSERT_OK(dat_psp_create_any(ia, &n->port, n->cr_evd,
					     DAT_PSP_CONSUMER_FLAG, &n->psp));
}

void sdt_ud_fini(struct sdt_ud *n)
{
	if (n->psp)
		ASSERT_OK(dat_psp_free(n->psp));
	if (n->ep)
		ASSERT_OK(dat_ep_free(n->ep));
	ASSERT_OK(dat_lmr_free(n->lmr));
	ASSERT_OK(dat_evd_free(n->dto_evd));
	ASSERT_OK(dat_evd_free(n->conn_evd));
	ASSERT_OK(dat_evd_free(n->cr_evd));
	ASSERT_OK(dat_pz_free(n->pz));
	free(n->buf);
}

DAT_LMR_TRIPLET sdt_ud_iov(const struct sdt_ud *n, size_t off, size_t len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = n->lctx;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(n->buf + off);
	t.segment_length = len;
	return t;
}

DAT_RETURN sdt_ud_recv(struct sdt_ud *n, size_t off, size_t len,
		       uint64_t cookie)
{
	DAT_LMR_TRIPLET t = sdt_ud_iov(n, off, len);
	DAT_DTO_COOKIE c;

	c.as_64 = cookie;
	return dat_ep_post_recv(n->ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG);
}

DAT_RETURN sdt_ud_send(struct sdt_ud *n, DAT_IB_ADDR_HANDLE *ah, size_t off,
		       size_t len, uint64_t cookie, DAT_COMPLETION_FLAGS flags)
{
	DAT_LMR_TRIPLET t = sdt_ud_iov(n, off, len);
	DAT_DTO_COOKIE c;

	c.as_64 = cookie;
	return dat_ib_post_send_ud(n->ep, 1, &t, ah, c, flags);
}

DAT_EVENT sdt_ud_expect(DAT_EVD_HANDLE evd, DAT_IB_EXT_TYPE type,
			DAT_DTO_COMPLETION_STATUS status, uint64_t cookie)
{
	DAT_EVENT ev = sdt_wait(evd, 10000);
	DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

	ASSERT_EQ(ev.event_number, DAT_IB_DTO_EVENT);
	ASSERT_EQ(sdt_ext_of(&ev)->type, type);
	ASSERT_EQ(d->status, status);
	ASSERT_EQ(sdt_ext_of(&ev)->status, status == DAT_DTO_SUCCESS ?
		  DAT_OP_SUCCESS : DAT_IB_OP_ERR);
	ASSERT_EQ(d->operation, type == DAT_IB_UD_SEND ? DAT_IB_DTO_SEND_UD :
		  DAT_IB_DTO_RECV_UD);
	ASSERT_UINT64_EQ(d->user_cookie.as_64, cookie);
	return ev;
}

DAT_IB_EXTENSION_EVENT_DATA *sdt_ext_of(DAT_EVENT *ev)
{
	return (DAT_IB_EXTENSION_EVENT_DATA *)(void *)ev->event_extension_data;
}

uint64_t sdt_counter(DAT_HANDLE h, int which)
{
	DAT_UINT64 v = 0;

	ASSERT_OK(dat_ib_query_counters(h, which, &v, 0));
	return v;
}
