/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * solicited: which completions wake a waiting thread, and which a sender
 * never sees.
 *
 * A thread that sleeps in dat_evd_wait wakes for every completion by
 * default. A receiver that only cares about whole requests can ask to be
 * woken only by the messages their sender marks: with
 * DAT_COMPLETION_SOLICITED_WAIT_FLAG in its endpoint's
 * recv_completion_flags, a receive still completes for every message, but
 * only a message sent with DAT_COMPLETION_SOLICITED_WAIT_FLAG (a
 * "solicited event", SEND_SE on the wire) ends the wait. The other
 * completions wait in the queue and come out with it.
 *
 * On the sending side, DAT_COMPLETION_SUPPRESS_FLAG asks for no
 * completion at all when a send succeeds (an error would still complete):
 * a sender that posts many messages saves the work of reaping them. Its
 * buffer may be reused once a later request of the endpoint completes,
 * since requests complete in order.
 *
 * Here the client sends three messages: the first suppressed, the second
 * plain, the third solicited. The server's thread sleeps through the first
 * two and wakes on the third, with all three receives queued; the client
 * gets completions for the second and the third only.
 *
 * Seed rules shown: RECV-3 (on a SOLICITED_WAIT endpoint only a solicited
 * message wakes the waiter), SEND-2 (a suppressed request that succeeds
 * has no completion).
 */
#include <pthread.h>
#include <time.h>

#include "example.h"

/* The server's thread in dat_evd_wait, and what woke it. */
struct waiter {
	pthread_t	thread;
	DAT_EVD_HANDLE	evd;
	DAT_EVENT	event;		/* the event it returned */
	DAT_COUNT	more;		/* events still queued then */
	pthread_mutex_t	lock;
	int		woken;		/* under lock */
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	DAT_EVENT e;
	DAT_COUNT more;

	CHECK(dat_evd_wait(w->evd, EXAMPLE_TIMEOUT, 1, &e, &more));
	pthread_mutex_lock(&w->lock);
	w->event = e;
	w->more = more;
	w->woken = 1;
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static int woken(struct waiter *w)
{
	int v;

	pthread_mutex_lock(&w->lock);
	v = w->woken;
	pthread_mutex_unlock(&w->lock);
	return v;
}

/* Posts a send of @iov with @flags. */
static void post_send(struct side *s, DAT_LMR_TRIPLET *iov, uint64_t cookie,
		      DAT_COMPLETION_FLAGS flags)
{
	DAT_DTO_COOKIE c;

	c.as_64 = cookie;
	CHECK(dat_ep_post_send(s->ep, 1, iov, c, flags));
}

int main(int argc, char **argv)
{
	static char msgs[3][16] = { "quiet", "plain", "wake up" };
	static char inbox[3][16];
	const struct timespec pause = { 0, 100 * 1000 * 1000 };
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET msg_iov, in_iov, iov;
	DAT_LMR_HANDLE lmr_msgs, lmr_inbox;
	DAT_EP_PARAM param;
	struct side server, client;
	struct waiter w;
	DAT_DTO_COOKIE cookie;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVENT e;
	DAT_RETURN r;
	int i;

	CHECK(dat_ia_open(example_ia_name(argc, argv), 8, &async, &ia));
	CHECK(dat_pz_create(ia, &pz));
	lmr_msgs = example_register(ia, pz, msgs, sizeof(msgs), 0, &msg_iov,
				    NULL);
	lmr_inbox = example_register(ia, pz, inbox, sizeof(inbox), 0, &in_iov,
				     NULL);
	example_side(ia, pz, NULL, &server);
	example_side(ia, pz, NULL, &client);

	/* The server's receives wake a waiter only when solicited. */
	memset(&param, 0, sizeof(param));
	param.ep_attr.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	CHECK(dat_ep_modify(server.ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
			    &param));
	for (i = 0; i < 3; i++) {
		iov = in_iov;
		iov.virtual_address += (DAT_VADDR)(i * 16);
		iov.segment_length = 16;
		cookie.as_64 = (DAT_UINT64)(10 + i);
		CHECK(dat_ep_post_recv(server.ep, 1, &iov, cookie,
				       DAT_COMPLETION_DEFAULT_FLAG));
	}
	example_connect(ia, &server, &client);

	/*
	 * The server's thread goes to sleep in dat_evd_wait. While it waits
	 * it owns the EVD: a dequeue by anyone else is refused with
	 * DAT_INVALID_STATE, which tells us it is asleep.
	 */
	memset(&w, 0, sizeof(w));
	w.evd = server.dto_evd;
	pthread_mutex_init(&w.lock, NULL);
	if (pthread_create(&w.thread, NULL, wait_thread, &w) != 0)
		return 1;
	while ((r = dat_evd_dequeue(server.dto_evd, &e)) != DAT_SUCCESS &&
	       DAT_GET_TYPE(r) != DAT_INVALID_STATE)
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
	if (r == DAT_SUCCESS)
		return 1;

	/* Two messages that do not solicit an event. */
	iov = msg_iov;
	iov.segment_length = 16;
	post_send(&client, &iov, 1, DAT_COMPLETION_SUPPRESS_FLAG);
	iov.virtual_address += 16;
	post_send(&client, &iov, 2, DAT_COMPLETION_DEFAULT_FLAG);
	/*
	 * The client's first completion is the second send's: the first
	 * succeeded without one. A send completes once its message has
	 * landed, so both receives have completed by now.
	 */
	printf("client completion: cookie %llu\n", (unsigned long long)
	       example_wait_dto(client.dto_evd).user_cookie.as_64);
	nanosleep(&pause, NULL);
	printf("two messages received, the server's thread %s\n",
	       woken(&w) ? "woke up" : "sleeps on");
	if (woken(&w))
		return 1;

	/* The solicited one. */
	iov.virtual_address += 16;
	post_send(&client, &iov, 3, DAT_COMPLETION_SOLICITED_WAIT_FLAG);
	pthread_join(w.thread, NULL);
	pthread_mutex_destroy(&w.lock);
	printf("woken with receive %llu, %d more queued\n",
	       (unsigned long long)w.event.event_data.dto_completion_event_data.user_cookie.as_64,
	       (int)w.more);
	if (w.event.event_data.dto_completion_event_data.user_cookie.as_64 != 10 ||
	    w.more != 2)
		return 1;
	for (i = 1; i < 3; i++)
		if (example_wait_dto(server.dto_evd).user_cookie.as_64 !=
		    (DAT_UINT64)(10 + i))
			return 1;
	printf("server received: \"%s\", \"%s\", \"%s\"\n", inbox[0],
	       inbox[1], inbox[2]);
	printf("client completion: cookie %llu\n", (unsigned long long)
	       example_wait_dto(client.dto_evd).user_cookie.as_64);
	if (dat_evd_dequeue(client.dto_evd, &e) == DAT_SUCCESS)
		return 1;
	printf("no completion for the suppressed send\n");

	example_teardown(&server, &client);
	CHECK(dat_lmr_free(lmr_msgs));
	CHECK(dat_lmr_free(lmr_inbox));
	CHECK(dat_pz_free(pz));
	CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	printf("solicited: ok\n");
	return 0;
}
