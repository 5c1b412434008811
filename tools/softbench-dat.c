/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DAT side: opening the IA, the main endpoint pair, and the data
 * transfer tests (both roles), written as any DAT consumer would write them,
 * with nothing but dat2/udat.h.
 *
 * Each process registers one buffer of 2 * SB_MAX_SIZE bytes: sends, writes
 * and read responses come from its first half (tx), receives, writes and
 * reads land in its second (rx). Every request is signalled; the client
 * counts requests outstanding and reaps their completions from req_evd,
 * receives complete on recv_evd.
 */
#include <stdlib.h>
#include <string.h>

#include "softbench.h"

/* Open the IA, register the buffer, make the EVDs and (server) the PSP. */
void sb_dat_open(struct sb_ctx *c)
{
	struct sb_dat *d = &c->dat;
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_CONTEXT lctx;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;
	char name[DAT_NAME_MAX_LENGTH];

	d->max_size = SB_MAX_SIZE;
	d->buf = aligned_alloc(4096, 2 * d->max_size);
	if (d->buf == NULL)
		sb_die("out of memory for the buffers");
	memset(d->buf, 0x5a, 2 * d->max_size);	/* touched: counted in RSS now */

	snprintf(name, sizeof(name), "%s", c->ia_name);
	d->async_evd = DAT_HANDLE_NULL;
	sb_check(dat_ia_open(name, 16, &d->async_evd, &d->ia), "dat_ia_open");
	sb_check(dat_pz_create(d->ia, &d->pz), "dat_pz_create");
	region.for_va = d->buf;
	sb_check(dat_lmr_create(d->ia, DAT_MEM_TYPE_VIRTUAL, region,
				2 * d->max_size, d->pz,
				DAT_MEM_PRIV_LOCAL_READ_FLAG |
				DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
				DAT_MEM_PRIV_REMOTE_READ_FLAG |
				DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
				DAT_VA_TYPE_VA, &d->lmr, &lctx, &d->rctx,
				&reg_len, &reg_addr), "dat_lmr_create");
	d->tx.lmr_context = lctx;
	d->tx.virtual_address = (DAT_VADDR)(uintptr_t)d->buf;
	d->tx.segment_length = (DAT_SEG_LENGTH)d->max_size;
	d->rx = d->tx;
	d->rx.virtual_address += d->max_size;

	sb_check(dat_evd_create(d->ia, 1024, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				&d->req_evd), "dat_evd_create");
	sb_check(dat_evd_create(d->ia, 1024, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				&d->recv_evd), "dat_evd_create");
	sb_check(dat_evd_create(d->ia, 16, DAT_HANDLE_NULL,
				DAT_EVD_CONNECTION_FLAG, &d->conn_evd),
		 "dat_evd_create");
	sb_check(dat_evd_create(d->ia, 16, DAT_HANDLE_NULL,
				DAT_EVD_CONNECTION_FLAG, &d->c_conn_evd),
		 "dat_evd_create");

	/* Deep enough queues for any window the options allow. */
	memset(&d->attr, 0, sizeof(d->attr));
	d->attr.service_type = DAT_SERVICE_TYPE_RC;
	d->attr.qos = DAT_QOS_BEST_EFFORT;
	d->attr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	d->attr.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	d->attr.max_recv_dtos = 1024;
	d->attr.max_request_dtos = 1024;
	d->attr.max_recv_iov = 1;
	d->attr.max_request_iov = 1;
	d->attr.max_rdma_read_in = 64;
	d->attr.max_rdma_read_out = 64;
	d->attr.max_rdma_read_iov = 1;
	d->attr.max_rdma_write_iov = 1;

	if (c->server) {
		sb_check(dat_evd_create(d->ia, 1024, DAT_HANDLE_NULL,
					DAT_EVD_CR_FLAG, &d->cr_evd),
			 "dat_evd_create");
		sb_check(dat_psp_create_any(d->ia, &d->port, d->cr_evd,
					    DAT_PSP_CONSUMER_FLAG, &d->psp),
			 "dat_psp_create_any");
	}
}

/* What the peer needs to reach our buffer: our half of the hello. */
void sb_dat_hello(const struct sb_dat *d, struct sb_hello *h)
{
	h->max_size = (uint32_t)d->max_size;
	h->rmr.rmr_context = d->rctx;
	h->rmr.virtual_address = d->tx.virtual_address;
	h->rmr.segment_length = (DAT_SEG_LENGTH)(2 * d->max_size);
}

/* The peer's buffer, from its hello. */
void sb_dat_peer(struct sb_dat *d, const struct sb_hello *h)
{
	if (h->max_size < d->max_size)
		sb_die("the peer's buffers are smaller (%u bytes)", h->max_size);
	d->peer_tx = h->rmr;
	d->peer_tx.segment_length = h->max_size;
	d->peer_rx = d->peer_tx;
	d->peer_rx.virtual_address += h->max_size;
}

/* Waits for the next event of @evd in @mode; dies after SB_TIMEOUT_S. */
void sb_dat_wait(DAT_EVD_HANDLE evd, enum sb_mode mode, DAT_EVENT *e)
{
	DAT_RETURN r;
	DAT_COUNT more;

	if (mode == SB_POLL) {
		double start = sb_now();
		uint64_t spins = 0;

		while ((r = dat_evd_dequeue(evd, e)) != DAT_SUCCESS) {
			if (DAT_GET_TYPE(r) != DAT_QUEUE_EMPTY)
				sb_check(r, "dat_evd_dequeue");
			sb_deadline_check(start, &spins, "a DAT event");
		}
		return;
	}
	r = dat_evd_wait(evd, (DAT_TIMEOUT)SB_TIMEOUT_S * 1000000, 1, e, &more);
	if (DAT_GET_TYPE(r) == DAT_TIMEOUT_EXPIRED)
		sb_die("timed out after %d s waiting for a DAT event", SB_TIMEOUT_S);
	sb_check(r, "dat_evd_wait");
}

/* Waits for an event that must be @number (a DTO one must have succeeded). */
void sb_dat_expect(DAT_EVD_HANDLE evd, enum sb_mode mode,
		   DAT_EVENT_NUMBER number, DAT_EVENT *e)
{
	DAT_EVENT ev;

	if (e == NULL)
		e = &ev;
	sb_dat_wait(evd, mode, e);
	if (e->event_number != number)
		sb_die("expected %s, got %s", dat_event_name(number),
		       dat_event_name(e->event_number));
	if (number == DAT_DTO_COMPLETION_EVENT &&
	    e->event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS)
		sb_die("a DTO completed with %s",
		       dat_dto_status_name(e->event_data.dto_completion_event_data.status));
}

/* The main endpoint pair: the client connects, the server accepts. */
void sb_dat_connect(struct sb_ctx *c)
{
	struct sb_dat *d = &c->dat;
	DAT_EVENT e;

	sb_check(dat_ep_create(d->ia, d->pz, d->recv_evd, d->req_evd,
			       d->conn_evd, &d->attr, &d->ep), "dat_ep_create");
	if (c->server) {
		sb_dat_expect(d->cr_evd, SB_BLOCK, DAT_CONNECTION_REQUEST_EVENT, &e);
		sb_check(dat_cr_accept(e.event_data.cr_arrival_event_data.cr_handle,
				       d->ep, 0, NULL), "dat_cr_accept");
	} else {
		sb_check(dat_ep_connect(d->ep, (DAT_IA_ADDRESS_PTR)&c->peer,
					d->port, (DAT_TIMEOUT)SB_TIMEOUT_S * 1000000,
					0, NULL, DAT_QOS_BEST_EFFORT,
					DAT_CONNECT_DEFAULT_FLAG), "dat_ep_connect");
	}
	sb_dat_expect(d->conn_evd, SB_BLOCK, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}

/* Frees everything sb_dat_open made; the main EP closes abruptly if up. */
void sb_dat_close(struct sb_ctx *c)
{
	struct sb_dat *d = &c->dat;

	if (d->ep != DAT_HANDLE_NULL)
		sb_check(dat_ep_free(d->ep), "dat_ep_free");
	if (c->server) {
		sb_check(dat_psp_free(d->psp), "dat_psp_free");
		sb_check(dat_evd_free(d->cr_evd), "dat_evd_free");
	}
	sb_check(dat_evd_free(d->c_conn_evd), "dat_evd_free");
	sb_check(dat_evd_free(d->conn_evd), "dat_evd_free");
	sb_check(dat_evd_free(d->recv_evd), "dat_evd_free");
	sb_check(dat_evd_free(d->req_evd), "dat_evd_free");
	sb_check(dat_lmr_free(d->lmr), "dat_lmr_free");
	sb_check(dat_pz_free(d->pz), "dat_pz_free");
	sb_check(dat_ia_close(d->ia, DAT_CLOSE_ABRUPT_FLAG), "dat_ia_close");
	free(d->buf);
}

/* --- posts ------------------------------------------------------------- */

static DAT_DTO_COOKIE cookie(uint64_t v)
{
	DAT_DTO_COOKIE k;

	k.as_64 = v;
	return k;
}

void sb_dat_post_recv(struct sb_dat *d, DAT_EP_HANDLE ep, size_t size)
{
	DAT_LMR_TRIPLET iov = d->rx;

	iov.segment_length = (DAT_SEG_LENGTH)size;
	sb_check(dat_ep_post_recv(ep, 1, &iov, cookie(0),
				  DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_recv");
}

void sb_dat_post_send(struct sb_dat *d, DAT_EP_HANDLE ep, size_t size)
{
	DAT_LMR_TRIPLET iov = d->tx;

	iov.segment_length = (DAT_SEG_LENGTH)size;
	sb_check(dat_ep_post_send(ep, 1, &iov, cookie(0),
				  DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_send");
	d->outstanding++;
}

/*
 * An RDMA write on @ep of @size bytes from our tx half into the peer's rx
 * half; not counted in d->outstanding (the caller counts).
 */
void sb_dat_post_write(struct sb_dat *d, DAT_EP_HANDLE ep, size_t size,
		       uint64_t k)
{
	DAT_LMR_TRIPLET iov = d->tx;
	DAT_RMR_TRIPLET to = d->peer_rx;

	iov.segment_length = (DAT_SEG_LENGTH)size;
	to.segment_length = (DAT_SEG_LENGTH)size;
	sb_check(dat_ep_post_rdma_write(ep, 1, &iov, cookie(k), &to,
					DAT_COMPLETION_DEFAULT_FLAG),
		 "dat_ep_post_rdma_write");
}

static void post_write(struct sb_dat *d, size_t size)
{
	sb_dat_post_write(d, d->ep, size, 0);
	d->outstanding++;
}

/* An RDMA read of @size bytes from the peer's tx half into our rx half. */
static void post_read(struct sb_dat *d, size_t size)
{
	DAT_LMR_TRIPLET iov = d->rx;
	DAT_RMR_TRIPLET from = d->peer_tx;

	iov.segment_length = (DAT_SEG_LENGTH)size;
	from.segment_length = (DAT_SEG_LENGTH)size;
	sb_check(dat_ep_post_rdma_read(d->ep, 1, &iov, cookie(0), &from,
				       DAT_COMPLETION_DEFAULT_FLAG),
		 "dat_ep_post_rdma_read");
	d->outstanding++;
}

/* Reaps request completions until at most @keep are outstanding. */
void sb_dat_reap(struct sb_dat *d, enum sb_mode mode, int keep)
{
	while (d->outstanding > keep) {
		sb_dat_expect(d->req_evd, mode, DAT_DTO_COMPLETION_EVENT, NULL);
		d->outstanding--;
	}
}

/* Takes the request completions already there, without waiting. */
static void reap_ready(struct sb_dat *d)
{
	DAT_EVENT e;

	while (d->outstanding > 0 && dat_evd_dequeue(d->req_evd, &e) == DAT_SUCCESS) {
		if (e.event_number != DAT_DTO_COMPLETION_EVENT ||
		    e.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS)
			sb_die("a request failed (%s, %s)",
			       dat_event_name(e.event_number),
			       dat_dto_status_name(e.event_data.dto_completion_event_data.status));
		d->outstanding--;
	}
}

/* --- ping-pong latency ------------------------------------------------- */

/*
 * send-lat: the client posts a receive for the answer, sends, and waits
 * for the answer; the server answers each message with one of the same
 * size. Each side's receive for the next message is posted before the
 * message that provokes it goes out.
 */
double sb_dat_client_send_lat(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	double t0;
	uint64_t i;

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < cmd->iters; i++) {
		sb_dat_post_recv(d, d->ep, cmd->size);
		sb_dat_post_send(d, d->ep, cmd->size);
		sb_dat_expect(d->recv_evd, mode, DAT_DTO_COMPLETION_EVENT, NULL);
		reap_ready(d);
		sb_dat_reap(d, mode, 4);
	}
	sb_dat_reap(d, mode, 0);
	return sb_now() - t0;
}

double sb_dat_server_send_lat(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t i;

	if (cmd->iters > 0)
		sb_dat_post_recv(d, d->ep, cmd->size);
	sb_ctl_ready(c);
	for (i = 0; i < cmd->iters; i++) {
		sb_dat_expect(d->recv_evd, mode, DAT_DTO_COMPLETION_EVENT, NULL);
		if (i + 1 < cmd->iters)
			sb_dat_post_recv(d, d->ep, cmd->size);
		sb_dat_post_send(d, d->ep, cmd->size);
		reap_ready(d);
		sb_dat_reap(d, mode, 4);
	}
	sb_dat_reap(d, mode, 0);
	return 0;
}

/*
 * write-lat, as dtest does it: each side RDMA-writes into the other's
 * buffer and learns of the peer's write by polling the last byte of its
 * own, which changes with every round (the data is placed in order, so the
 * last byte arrives last). There is no event to block on: this test polls
 * memory in both modes; only the writes' own completions follow @mode.
 */
static void spin_on_byte(const unsigned char *p, unsigned char v)
{
	double start = sb_now();
	uint64_t spins = 0;

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != v)
		sb_deadline_check(start, &spins, "the peer's RDMA write");
}

double sb_dat_client_write_lat(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	unsigned char *tx_last = d->buf + cmd->size - 1;
	unsigned char *rx_last = d->buf + d->max_size + cmd->size - 1;
	double t0;
	uint64_t i;

	*rx_last = 0;
	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < cmd->iters; i++) {
		unsigned char seq = (unsigned char)(1 + i % 255);

		*tx_last = seq;
		post_write(d, cmd->size);
		spin_on_byte(rx_last, seq);
		reap_ready(d);
		sb_dat_reap(d, mode, 4);
	}
	sb_dat_reap(d, mode, 0);
	return sb_now() - t0;
}

double sb_dat_server_write_lat(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	unsigned char *tx_last = d->buf + cmd->size - 1;
	unsigned char *rx_last = d->buf + d->max_size + cmd->size - 1;
	uint64_t i;

	*rx_last = 0;
	sb_ctl_ready(c);
	for (i = 0; i < cmd->iters; i++) {
		unsigned char seq = (unsigned char)(1 + i % 255);

		spin_on_byte(rx_last, seq);
		*tx_last = seq;
		post_write(d, cmd->size);
		reap_ready(d);
		sb_dat_reap(d, mode, 4);
	}
	sb_dat_reap(d, mode, 0);
	return 0;
}

/* read-lat: one RDMA read at a time; the server's CPU takes no part. */
double sb_dat_client_read_lat(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	double t0;
	uint64_t i;

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	for (i = 0; i < cmd->iters; i++) {
		post_read(d, cmd->size);
		sb_dat_reap(d, mode, 0);
	}
	return sb_now() - t0;
}

/* --- streams ----------------------------------------------------------- */

/*
 * send-bw, write-bw, read-bw and msg-rate: the client keeps cmd->window
 * requests outstanding until cmd->iters have completed. A send or write
 * completes once the server has placed it, a read once its data is here,
 * so the last completion ends the run.
 */
double sb_dat_client_stream(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t posted = 0, n = cmd->iters;
	int window = (int)cmd->window;
	double t0;

	sb_ctl_wait_ready(c);
	t0 = sb_now();
	while (posted < n || d->outstanding > 0) {
		while (posted < n && d->outstanding < window) {
			if (cmd->test == SB_WRITE_BW)
				post_write(d, cmd->size);
			else if (cmd->test == SB_READ_BW)
				post_read(d, cmd->size);
			else
				sb_dat_post_send(d, d->ep, cmd->size);
			posted++;
		}
		sb_dat_reap(d, mode, d->outstanding - 1);
	}
	return sb_now() - t0;
}

/* The receiver of send-bw and msg-rate: twice the window posted ahead. */
double sb_dat_server_stream(struct sb_ctx *c, const struct sb_cmd *cmd)
{
	struct sb_dat *d = &c->dat;
	enum sb_mode mode = (enum sb_mode)cmd->mode;
	uint64_t posted = 0, got, ahead = 2 * (uint64_t)cmd->window;

	while (posted < cmd->iters && posted < ahead) {
		sb_dat_post_recv(d, d->ep, cmd->size);
		posted++;
	}
	sb_ctl_ready(c);
	for (got = 0; got < cmd->iters; got++) {
		sb_dat_expect(d->recv_evd, mode, DAT_DTO_COMPLETION_EVENT, NULL);
		if (posted < cmd->iters) {
			sb_dat_post_recv(d, d->ep, cmd->size);
			posted++;
		}
	}
	return 0;
}
