/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq: the path of each operation, and the parts of a session,
 * for the page (write_html) to highlight and fold. A step of its own,
 * after mark_folds(): it reads the rows in order and the pairs of frames
 * (item.match, item.peer) and writes item.path, item.path2 and item.part.
 *
 * An operation's path starts at its post (an api line with cookie= of
 * an ep_post_*, srq_post_recv or ib_post_* call) and takes, in row order:
 * the first frame on the post's lifeline of the kind the post sends
 * (post_frame) that no other post took, with its rx (item.match); for a
 * read or an atomic, the response its target sends next on that
 * connection's lifeline, with its rx; the place line of an RDMA its
 * initiator did itself; the post's completion (the first dto of its
 * cookie on its lifeline, or on the SRQ's for a receive); and for a
 * message that consumes a receive (SEND, WRITE_IMM, a datagram), the
 * receiver's next completion of a receive that was not flushed, as the
 * row's second path (path2: that receive's own path stays first). The
 * links are the trace's: nothing is guessed from times.
 *
 * The parts: setup is the rows before the first data transfer (a request
 * post, a data frame or a place line), teardown the rows after the last
 * row of a path that has a transfer in it; the rest is the body. With no
 * transfer at all, every row is body. A completion (a flushed receive
 * too), an error or an RNR line after the last transfer is body, and so
 * are the rows above it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softdapl-seq.h"

int npaths;

/*
 * What a path waits for, in row order: the post's frame, its completion,
 * the response to its request frame, the receive its message consumed,
 * the place line of its RDMA.
 */
enum wait_kind { W_FRAME, W_DONE, W_RESP, W_RECV, W_PLACE };

struct wait {
	enum wait_kind kind;
	int item;		/* the post's line, or the rx awaiting */
	int path;
	int done;		/* taken */
};

static struct wait *waits;
static int nwaits, awaits;

/*
 * The frame a request post sends, as a prefix of the tx's EVENT, or NULL
 * for a receive (it sends nothing) and calls that are not posts.
 */
static const char *post_frame(const char *call)
{
	static const struct {
		const char *call, *frame;
	} map[] = {
		{ "ep_post_send_with_invalidate", "SEND" },
		{ "ep_post_send", "SEND" },
		{ "ep_post_rdma_write", "WRITE" },
		{ "ep_post_rdma_read", "READ_REQ" },
		{ "ib_post_send_ud", "DATA" },
		{ "ib_post_rdma_write_immed", "WRITE_IMM" },
		{ "ib_post_fetch_and_add", "FETCH_ADD" },
		{ "ib_post_cmp_and_swap", "CMP_SWAP" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strncmp(call, map[i].call, strlen(map[i].call)) == 0)
			return map[i].frame;
	return NULL;
}

static int is_post(const struct item *it)
{
	return it->kind == K_API && find_kv(it, "cookie") != NULL &&
		(strncmp(it->ev, "ep_post_", 8) == 0 ||
		 strcmp(it->ev, "srq_post_recv") == 0 ||
		 strncmp(it->ev, "ib_post_", 8) == 0) &&
		(find_kv(it, "ret") == NULL ||
		 strcmp(find_kv(it, "ret"), "DAT_SUCCESS") == 0);
}

/* A frame that carries data (not a handshake, an ACK or an ending). */
static int is_data_frame(const char *op)
{
	static const char *const ops[] = {
		"SEND", "WRITE", "READ_REQ", "READ_RESP", "DATA",
		"FETCH_ADD", "CMP_SWAP", "ATOMIC_RESP", NULL,
	};
	int i;

	for (i = 0; ops[i] != NULL; i++)
		if (strncmp(op, ops[i], strlen(ops[i])) == 0)
			return 1;
	return 0;
}

/* A message that consumes a receive at its target. */
static int takes_receive(const char *op)
{
	return strncmp(op, "SEND", 4) == 0 ||
		strncmp(op, "WRITE_IMM", 9) == 0 || strcmp(op, "DATA") == 0;
}

/* The response a request frame asks for, or NULL. */
static const char *response_of(const char *op)
{
	if (strcmp(op, "READ_REQ") == 0)
		return "READ_RESP";
	if (strcmp(op, "FETCH_ADD") == 0 || strcmp(op, "CMP_SWAP") == 0)
		return "ATOMIC_RESP";
	return NULL;
}

static void wait_add(enum wait_kind kind, int item, int path)
{
	GROW(waits, nwaits, awaits);
	waits[nwaits].kind = kind;
	waits[nwaits].item = item;
	waits[nwaits].path = path;
	waits[nwaits].done = 0;
	nwaits++;
}

/* Whether @it is what the wait of line @w is for. */
typedef int (*wait_ok)(const struct item *w, const struct item *it);

/*
 * Takes the first wait of @kind that @ok accepts for @it: returns its
 * path, or -1 when none.
 */
static int wait_take(enum wait_kind kind, struct item *it, wait_ok ok)
{
	int i;

	for (i = 0; i < nwaits; i++) {
		struct wait *w = &waits[i];

		if (w->done || w->kind != kind ||
		    !ok(&items[w->item], it))
			continue;
		w->done = 1;
		return w->path;
	}
	return -1;
}

/* A post's frame: same lifeline, the kind it sends. */
static int ok_frame(const struct item *post, const struct item *it)
{
	const char *f = post_frame(post->ev);

	return post->lane == it->lane && f != NULL &&
		strncmp(it->ev, f, strlen(f)) == 0 &&
		(strcmp(f, "WRITE") != 0 || strncmp(it->ev, "WRITE_IMM", 9) != 0);
}

/* A place line of a post's RDMA. */
static int ok_place(const struct item *post, const struct item *it)
{
	return post->lane == it->lane &&
		strcmp(post->ev, place_is_read(it) ? "ep_post_rdma_read" :
		       "ep_post_rdma_write") == 0;
}

/* A post's completion: its cookie, in its process, on its lifeline or
 * (a receive taken from an SRQ) on the SRQ the dto line names. */
static int ok_done(const struct item *post, const struct item *it)
{
	const char *a = find_kv(post, "cookie"), *b = find_kv(it, "cookie");

	return post->pid == it->pid && a != NULL && b != NULL &&
		strcmp(a, b) == 0 && (post->lane == it->lane ||
		strcmp(lanes[post->lane].name, it->obj) == 0);
}

/* A response to the request frame whose rx is @rx: sent back on its
 * lifeline. */
static int ok_resp(const struct item *rx, const struct item *it)
{
	const char *r = response_of(rx->ev);

	return rx->lane == it->lane && r != NULL && strcmp(it->ev, r) == 0;
}

/* The receive a message whose rx is @rx consumed: its completion. */
static int ok_recv(const struct item *rx, const struct item *it)
{
	const char *st = find_kv(it, "status");

	return rx->lane == it->lane && it->kind == K_DTO &&
		(strcmp(it->ev, "RECEIVE") == 0 ||
		 strcmp(it->ev, "RECV_UD") == 0) &&
		(st == NULL || strcmp(st, "DAT_DTO_ERR_FLUSHED") != 0);
}

/* @it, and the other end of its frame, join @path. */
static void join(struct item *it, int path)
{
	it->path = path;
	if ((it->kind == K_TX || it->kind == K_RX) && it->match >= 0)
		items[it->match].path = path;
}

void mark_paths(void)
{
	int i, p, first = -1, last = -1, *transfer;

	for (i = 0; i < nitems; i++) {
		items[i].path = items[i].path2 = -1;
		items[i].part = PART_BODY;
	}
	npaths = 0;
	for (i = 0; i < norder; i++) {
		struct item *it = &items[order[i]];

		if (is_post(it)) {
			it->path = npaths++;
			wait_add(W_DONE, order[i], it->path);
			if (post_frame(it->ev) != NULL) {
				wait_add(W_FRAME, order[i], it->path);
				if (strstr(it->ev, "rdma_") != NULL)
					wait_add(W_PLACE, order[i], it->path);
			}
			continue;
		}
		switch (it->kind) {
		case K_TX:
			if (it->path >= 0)
				break;
			p = wait_take(W_FRAME, it, ok_frame);
			if (p < 0)
				p = wait_take(W_RESP, it, ok_resp);
			if (p >= 0)
				join(it, p);
			break;
		case K_RX:
			if (it->path < 0)
				break;
			if (response_of(it->ev) != NULL)
				wait_add(W_RESP, order[i], it->path);
			if (takes_receive(it->ev))
				wait_add(W_RECV, order[i], it->path);
			break;
		case K_PLACE:
			it->path = wait_take(W_PLACE, it, ok_place);
			break;
		case K_DTO:
			it->path = wait_take(W_DONE, it, ok_done);
			it->path2 = wait_take(W_RECV, it, ok_recv);
			if (it->path < 0) {
				it->path = it->path2;
				it->path2 = -1;
			}
			break;
		default:
			break;
		}
	}
	free(waits);
	waits = NULL;
	nwaits = awaits = 0;

	/* The parts: around the paths that transfer data. */
	transfer = xrealloc(NULL, (size_t)npaths * sizeof(int) + 1);
	memset(transfer, 0, (size_t)npaths * sizeof(int) + 1);
	for (i = 0; i < norder; i++) {
		const struct item *it = &items[order[i]];

		if (!it->shown)
			continue;
		if ((is_post(it) && post_frame(it->ev) != NULL) ||
		    it->kind == K_PLACE ||
		    ((it->kind == K_TX || it->kind == K_RX) &&
		     is_data_frame(it->ev))) {
			if (first < 0)
				first = i;
			last = i;
			if (it->path >= 0)
				transfer[it->path] = 1;
		}
	}
	for (i = 0; first >= 0 && i < norder; i++) {
		const struct item *it = &items[order[i]];

		/*
		 * A completion, an error or an RNR wait is never teardown:
		 * the receives a disconnect flushes are what a flush teaches.
		 */
		if (it->shown && i > last && ((it->path >= 0 &&
		    transfer[it->path]) || (it->path2 >= 0 &&
		    transfer[it->path2]) || it->kind == K_DTO ||
		    it->kind == K_ERROR || it->kind == K_RNR))
			last = i;
	}
	for (i = 0; first >= 0 && i < norder; i++)
		items[order[i]].part = i < first ? PART_SETUP :
			i > last ? PART_TEARDOWN : PART_BODY;
	free(transfer);
}
