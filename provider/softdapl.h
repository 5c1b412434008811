/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: the provider's internal interface.
 *
 * What lives where (one file per DAT object, as the entry points are laid
 * out in struct dat_provider):
 *
 *   provider.c   dat_provider_init/fini, the DAT_PROVIDER table
 *   ia.c         IA open/query/close; params.c: ia_params parsing
 *   pz.c lmr.c rmr.c                memory: PZ, LMR (contexts, bounds), RMR
 *   evd.c cno.c                     events: EVD rings, waiting, CNO
 *   ep.c         EP lifecycle and state machine   (ep.h: EP, PSP, RSP, CR, SRQ)
 *   psp.c rsp.c cr.c cm.c           service points, requests, handshake
 *   post.c       the DTO entry points (post_send/recv/rdma_write/rdma_read)
 *   srq.c        SRQ
 *   tx.c rx.c    the wire engine: framing out, placing in (proto.h)
 *   engine.c     the event loop thread and how other threads reach it
 *
 * Naming: DAT entry points keep their DAT names with an sd_ prefix
 * (sd_ep_post_send); internal functions are sd_<object>_<verb>; helpers are
 * static. Internally functions return 0 or a negative errno, or a
 * DAT_RETURN where the value goes straight back to the consumer; each says
 * which. The translation happens once, at the entry point.
 *
 * Threads. Consumer threads call the entry points, any number at once. One
 * engine thread per process runs a libuv loop (engine.c) that owns every
 * socket: it completes connects, accepts, reads frames and places their
 * data directly into registered memory, and writes what could not be
 * written at post time. Consumers reach it through sd_engine_submit (a
 * command queue and a uv_async_t). Completions are appended to an EVD ring
 * under the EVD's lock by whichever thread completes the DTO, and a waiter
 * is woken through the EVD's condition variable.
 *
 * Room for the latency work: a post appends its work request and, when
 * the connection has nothing queued, writes the frame from the consumer's
 * thread at once (no hop to the engine); a waiter may later drive the
 * receive path itself. Nothing in the data path allocates: work requests,
 * segments and event slots are preallocated when their queue is created.
 *
 * Locks, in the order they nest (never take an earlier one while holding a
 * later one):
 *
 *   IA list lock (ia.c)  the list of open IAs
 *   ia->lock     object lists of the IA, the LMR context table
 *   ep->lock     EP state, its queues, its connection's tx/rx state
 *   srq->lock    SRQ buffers
 *   async lock (ia.c)    which EVD each IA's async errors go to
 *   evd->lock    the event ring, waiters
 *   cno->lock
 *   engine command queue lock (leaf)
 *
 * Every struct says which lock guards which field; "engine" means the
 * field is touched only on the engine thread, "const" that it is set at
 * creation and read-only afterwards.
 */
#ifndef SD_SOFTDAPL_H
#define SD_SOFTDAPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>

#define SD_EXPORT __attribute__((visibility("default")))

/* The failing DAT_RETURN for a type and subtype (DAT 2.0, 6.1). */
#define SD_ERR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (subtype)))

#define SD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define sd_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Provider identity, reported in ia_query and checked by OFED's registry. */
#define SD_PROVIDER_NAME	"softdapl"
#define SD_VENDOR_NAME		"softdapl"
#define SD_VERSION_MAJOR	0
#define SD_VERSION_MINOR	1

/* ------------------------------------------------------------------ */
/* Intrusive doubly linked lists                                      */

struct sd_list {
	struct sd_list *next, *prev;
};

static inline void sd_list_init(struct sd_list *l)
{
	l->next = l->prev = l;
}

static inline bool sd_list_empty(const struct sd_list *l)
{
	return l->next == l;
}

static inline void sd_list_add_tail(struct sd_list *l, struct sd_list *n)
{
	n->prev = l->prev;
	n->next = l;
	l->prev->next = n;
	l->prev = n;
}

static inline void sd_list_del(struct sd_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define sd_list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

/* ------------------------------------------------------------------ */
/* Objects                                                            */

/*
 * Magic numbers tell a live object of the expected kind from anything
 * else a consumer may pass; they are cleared when the object is freed.
 */
enum sd_magic {
	SD_MAGIC_IA	= 0x53444941,	/* "SDIA" */
	SD_MAGIC_PZ	= 0x5344505a,
	SD_MAGIC_LMR	= 0x53444c4d,
	SD_MAGIC_RMR	= 0x5344524d,
	SD_MAGIC_EVD	= 0x53444556,
	SD_MAGIC_CNO	= 0x5344434e,
	SD_MAGIC_EP	= 0x53444550,
	SD_MAGIC_PSP	= 0x53445053,
	SD_MAGIC_RSP	= 0x53445253,
	SD_MAGIC_CR	= 0x53444352,
	SD_MAGIC_SRQ	= 0x53445351,
	SD_MAGIC_DEAD	= 0x44454144,
};

struct sd_ia;

/*
 * The head of every object a handle points to. @provider must stay the
 * first member: the registry finds the provider table through it
 * (DAT_HANDLE_TO_PROVIDER).
 */
struct sd_obj {
	DAT_PROVIDER	*provider;	/* const; the IA's copy of sd_provider */
	uint32_t	magic;		/* enum sd_magic; const until freed */
	DAT_HANDLE_TYPE	type;		/* const */
	struct sd_ia	*ia;		/* const; the owning IA (itself for an IA) */
	DAT_CONTEXT	context;	/* dat_set/get_consumer_context; atomic */
	struct sd_list	node;		/* ia->lock: in the IA's list of its kind
					 * (an IA: in the list of open IAs,
					 * under the IA list lock) */
};

/*
 * The provider table. provider.c registers one copy of it per IA name
 * (OFED's registry rebuilds its key from device_name at close), and every
 * object points at the copy of its IA: sd_obj_init copies ia->obj.provider.
 */
extern DAT_PROVIDER sd_provider;

/*
 * Registry services. The provider does not link against libdat2: like
 * OFED's providers it takes these from whichever registry loaded it, ours
 * or OFED's.
 */
extern DAT_RETURN DAT_API dats_get_ia_handle(DAT_IA_HANDLE handle,
					     DAT_IA_HANDLE *ia_handle_p);

/*
 * Fills @obj for a new object of @ia (not yet listed); its provider is
 * ia->obj.provider (for an IA, set that first). Cannot fail.
 */
void sd_obj_init(struct sd_obj *obj, struct sd_ia *ia, uint32_t magic,
		 DAT_HANDLE_TYPE type);

/*
 * The object behind a consumer handle when it is a live object of kind
 * @magic, else NULL. Handles below one page are never objects.
 */
struct sd_obj *sd_obj_check(DAT_HANDLE h, uint32_t magic);

/* ------------------------------------------------------------------ */
/* IA (ia.c, params.c)                                                */

/*
 * LMRs per IA, reported by ia_query: the slots of the context table
 * (lmr.c; one of 2^14 is reserved). The other limits are in the EP and
 * EVD sections.
 */
#define SD_MAX_LMRS		16383

/* What ia_params named: see params.c and the README. */
struct sd_ia_addr {
	struct sockaddr_storage	ss;	/* reported as ia_address_ptr; bound unless @any */
	socklen_t		len;
	bool			any;	/* a wildcard (0.0.0.0, ::) was named: bind
					 * to the any address of ss's family; ss is
					 * then this host's first non-loopback
					 * address of that family, else loopback */
	char			ifname[64];	/* the interface of ss, "" if unknown */
};

struct sd_ia {
	struct sd_obj		obj;
	pthread_mutex_t		lock;
	char			name[DAT_NAME_MAX_LENGTH]; /* const */
	struct sd_ia_addr	addr;		/* const */
	/*
	 * Where async errors go: the EVD ia_open created (async_evd_ours),
	 * the consumer's, or another IA's (DAT_EVD_ASYNC_EXISTS); that EVD's
	 * refs count this IA. Written under lock and the async lock, read
	 * under either; NULL once a foreign EVD's IA closed.
	 */
	struct sd_evd		*async_evd;
	bool			async_evd_ours;	/* const; created by ia_open */
	bool			async_evd_shared; /* const; DAT_EVD_ASYNC_EXISTS */
	/* Object lists, all under lock. */
	struct sd_list		pzs, lmrs, rmrs, evds, cnos, eps, psps, rsps,
				crs, srqs;
	/* LMR/RMR context table: lmr.c allocates it, ia_close frees it. */
	struct sd_ctx_table	*ctx_table;	/* lock */
	uint32_t		ctx_size;	/* lock; slots in ctx_table */
	uint32_t		ctx_seed;	/* const; random key for contexts */
};

/*
 * Parses ia_params into @addr (see params.c). Returns 0, or with a message
 * in @err: -EINVAL (malformed), -ENODEV (no such interface or host, or it
 * has no address), -EADDRNOTAVAIL (an address that is not this host's).
 */
int sd_params_parse(const char *ia_params, struct sd_ia_addr *addr,
		    char *err, size_t errlen);

/*
 * provider.c: the table registered for IA name @name and a malloc'd copy
 * of its ia_params (the caller frees it), counting an open IA on that
 * registration. DAT_SUCCESS or DAT_PROVIDER_NOT_FOUND.
 */
DAT_RETURN sd_provider_open(const char *name, DAT_PROVIDER **table,
			    char **ia_params);
/* Drops what sd_provider_open counted, once the IA is closed. */
void sd_provider_close(DAT_PROVIDER *table);

/* The IA of a consumer's IA handle or provider IA pointer, or NULL. */
struct sd_ia *sd_ia_from_handle(DAT_IA_HANDLE h);

/* The consumer's handle for @ia (dats_get_ia_handle), for query results. */
DAT_IA_HANDLE sd_ia_handle(struct sd_ia *ia);

/*
 * Posts an asynchronous error event @ev about object @h on @ia's async EVD
 * (DAT_ASYNC_ERROR_*; @h == @ia is reported as the consumer's IA handle).
 * Any thread, with no EVD or CNO lock held (an EP or SRQ lock is fine);
 * takes the async lock, then the EVD's. Dropped, with a debug message,
 * when the IA has no async EVD or that EVD is full; a recursive call (the
 * async EVD overflowing while this posts) is dropped too. @ia must stay
 * open meanwhile: callers hold one of its objects that ia_close destroys
 * only after they return.
 */
void sd_ia_async_error(struct sd_ia *ia, DAT_EVENT_NUMBER ev, DAT_HANDLE h);

/*
 * ia_close's teardown, in this order: sd_ep_destroy_all, then the RMRs,
 * LMRs and PZs, then sd_evd_destroy and sd_cno_destroy for each EVD and
 * CNO. Each destroy function unlists and frees its object whatever its
 * references, takes ia->lock itself (the caller holds no lock), and may
 * assume that what comes earlier in the order is already gone.
 *
 * sd_ep_destroy_all (ep.c) destroys every EP, PSP, RSP, CR and SRQ of @ia
 * (flushing as an abrupt disconnect does) and returns once the engine no
 * longer touches any of them nor the IA's memory.
 */
void sd_ep_destroy_all(struct sd_ia *ia);

/* ------------------------------------------------------------------ */
/* Memory (pz.c, lmr.c, rmr.c)                                        */

struct sd_pz {
	struct sd_obj	obj;
	unsigned	refs;		/* ia->lock: LMRs, RMRs, EPs, SRQs using it */
};

struct sd_lmr {
	struct sd_obj		obj;
	struct sd_pz		*pz;		/* const */
	char			*addr;		/* const; first byte registered */
	DAT_VLEN		len;		/* const */
	DAT_MEM_PRIV_FLAGS	priv;		/* const */
	DAT_MEM_TYPE		mem_type;	/* const */
	DAT_VA_TYPE		va_type;	/* const */
	DAT_LMR_CONTEXT		lmr_context;	/* const */
	DAT_RMR_CONTEXT		rmr_context;	/* const */
	unsigned		busy;		/* ia->lock: remote accesses placing now */
};

/*
 * A local segment resolved at post time: the memory the provider may read
 * or write for it, already checked against its LMR.
 */
struct sd_sge {
	char		*addr;
	uint64_t	len;
};

/*
 * Resolves one DAT_LMR_TRIPLET of a post on an EP or SRQ of PZ @pz that
 * needs local privilege @need (DAT_MEM_PRIV_LOCAL_READ_FLAG for data sent
 * or written out, DAT_MEM_PRIV_LOCAL_WRITE_FLAG for data received or read
 * in) into @sge. Returns DAT_SUCCESS or, per COMMON-5..7:
 * DAT_INVALID_PARAMETER (segment outside its LMR), DAT_PROTECTION_VIOLATION
 * (LMR of another PZ), DAT_PRIVILEGES_VIOLATION (unknown lmr_context or
 * missing privilege). Subtypes: DAT_INVALID_ARG3 (local_iov is the third
 * argument of every post call), DAT_PROTECTION_/DAT_PRIVILEGES_READ or
 * _WRITE after @need. A zero segment_length resolves to an empty @sge
 * whatever the other fields (DAT: they are then don't-care). Any thread;
 * takes ia->lock; allocates nothing.
 */
DAT_RETURN sd_lmr_resolve_local(struct sd_ia *ia, struct sd_pz *pz,
				const DAT_LMR_TRIPLET *t, DAT_MEM_PRIV_FLAGS need,
				struct sd_sge *sge);

/*
 * Grants a remote peer access to [va, va + len) through @rmr_context for
 * an EP of PZ @pz with privilege @need (DAT_MEM_PRIV_REMOTE_READ_FLAG or
 * _WRITE_FLAG). On success returns 0, points @sge at the memory and takes
 * a busy reference on the LMR (release with sd_lmr_remote_done once the
 * bytes are placed or sent): the LMR cannot be freed meanwhile. Returns
 * -ENOENT (unknown context), -EACCES (no privilege), -EPERM (other PZ) or
 * -ERANGE (outside the region); the peer's bytes then touch nothing.
 * A zero-length access checks nothing (as on IB): 0, an empty @sge and
 * *lmr = NULL, which sd_lmr_remote_done accepts. Any thread; takes
 * ia->lock; allocates nothing.
 */
int sd_lmr_resolve_remote(struct sd_ia *ia, struct sd_pz *pz,
			  DAT_RMR_CONTEXT rmr_context, uint64_t va,
			  uint64_t len, DAT_MEM_PRIV_FLAGS need,
			  struct sd_sge *sge, struct sd_lmr **lmr);
void sd_lmr_remote_done(struct sd_lmr *lmr);

/*
 * An RMR (memory window). dat_rmr_bind is not implemented yet: an RMR is
 * created, queried and freed, never bound.
 */
struct sd_rmr {
	struct sd_obj	obj;
	struct sd_pz	*pz;		/* const */
};

/* ia_close's teardown of the memory objects (see sd_ep_destroy_all). */
void sd_rmr_destroy(struct sd_rmr *rmr);
void sd_lmr_destroy(struct sd_lmr *lmr);
void sd_pz_destroy(struct sd_pz *pz);

/* ------------------------------------------------------------------ */
/* Limits of EPs, SRQs and the wire (ep.c, srq.c, cm.c; ia_query)      */

/*
 * What ia_query reports and what ep_create/srq_create/connect enforce;
 * one place so the two never disagree. Queues are preallocated, so the
 * depths bound memory, not speed.
 */
#define SD_MAX_EPS		65536
#define SD_MAX_DTO_PER_EP	16384	/* max_recv_dtos, max_request_dtos */
#define SD_MAX_IOV		32	/* segments per DTO, read, write, SRQ recv */
#define SD_MAX_MESSAGE_SIZE	0x80000000u	/* bytes per send/recv (2 GiB) */
#define SD_MAX_RDMA_SIZE	0x80000000u	/* bytes per RDMA write/read */
#define SD_MAX_RDMA_READ_PER_EP	64	/* max_rdma_read_in/out of one EP */
#define SD_MAX_SRQS		4096
#define SD_MAX_RECV_PER_SRQ	65536
#define SD_MAX_EP_PER_SRQ	SD_MAX_EPS
#define SD_MAX_PRIVATE_DATA	1024	/* max_private_data_size (proto.h) */

/* ------------------------------------------------------------------ */
/* Work requests (post.c, srq.c, tx.c, rx.c)                           */

/*
 * COMMON-4: nothing on the post path allocates. A queue of work requests is
 * a ring of sd_wqe allocated with the queue, each with room for the
 * queue's maximum number of segments; posting fills the next free slot,
 * completing frees the oldest. COMMON-3: the consumer's local_iov is
 * copied (resolved into sge) at post time.
 */
enum sd_wr_op {
	SD_WR_SEND,
	SD_WR_RECV,
	SD_WR_RDMA_WRITE,
	SD_WR_RDMA_READ,
};

struct sd_ep;

struct sd_wqe {
	DAT_DTO_COOKIE		cookie;		/* COMMON-2: returned unchanged */
	DAT_COMPLETION_FLAGS	flags;
	uint8_t			op;		/* enum sd_wr_op */
	uint8_t			status;		/* DAT_DTO_COMPLETION_STATUS once done */
	uint16_t		nsge;
	uint32_t		seq;		/* request sequence number on the wire */
	bool			solicited;	/* receive: filled by a SEND_SE */
	uint64_t		len;		/* bytes the segments hold (or the message) */
	uint64_t		done;		/* bytes sent or placed so far */
	struct sd_sge		*sge;		/* the queue's max_sge slots for this WQE */
	DAT_RMR_TRIPLET		remote;		/* RDMA write/read target */
	struct sd_ep		*ep;		/* SRQ buffers: the EP that took it */
};

/*
 * A ring of work requests. Guarded by the lock of its owner (ep->lock for
 * an EP's queues, srq->lock for an SRQ).
 */
struct sd_wq {
	struct sd_wqe	*wqe;		/* @size slots */
	struct sd_sge	*sge;		/* @size * @max_sge segments */
	uint32_t	size;
	uint32_t	max_sge;
	uint32_t	head;		/* oldest posted, not yet completed */
	uint32_t	count;		/* posted, not yet completed */
};

/* Allocates the ring; 0 or -ENOMEM. An empty ring (size 0) is allowed. */
int sd_wq_init(struct sd_wq *wq, uint32_t size, uint32_t max_sge);
void sd_wq_destroy(struct sd_wq *wq);

/* The slot the next post fills, or NULL when the queue is full (COMMON-8). */
static inline struct sd_wqe *sd_wq_next(struct sd_wq *wq)
{
	struct sd_wqe *w;

	if (wq->count == wq->size)
		return NULL;
	w = &wq->wqe[(wq->head + wq->count) % wq->size];
	w->sge = &wq->sge[(size_t)((w - wq->wqe)) * wq->max_sge];
	return w;
}

/* Makes the slot returned by sd_wq_next part of the queue. */
static inline void sd_wq_push(struct sd_wq *wq)
{
	wq->count++;
}

/* The @i-th oldest posted WQE (0: the head), or NULL. */
static inline struct sd_wqe *sd_wq_at(struct sd_wq *wq, uint32_t i)
{
	return i < wq->count ? &wq->wqe[(wq->head + i) % wq->size] : NULL;
}

/* Removes the head (completed in order, per queue). */
static inline void sd_wq_pop(struct sd_wq *wq)
{
	wq->head = (wq->head + 1) % wq->size;
	wq->count--;
}

/* ------------------------------------------------------------------ */
/* Events (evd.c, cno.c)                                              */

struct sd_cno;

/*
 * The longest event queue an EVD may have: ia_query reports it as
 * max_evd_qlen; a longer evd_min_qlen gives DAT_INSUFFICIENT_RESOURCES
 * (DAT_RESOURCE_TEVD), as OFED does when the HCA's CQ is too small.
 */
#define SD_MAX_EVD_QLEN		(1 << 20)

/*
 * An event dispatcher: a ring of @qlen events, allocated at creation (and
 * by resize), so that posting, dequeueing and waiting allocate nothing.
 * At most one thread waits in dat_evd_wait at a time.
 */
struct sd_evd {
	struct sd_obj		obj;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;		/* CLOCK_MONOTONIC; the waiter sleeps on it */
	DAT_EVD_FLAGS		flags;		/* const */
	DAT_EVENT		*ring;		/* lock; qlen slots */
	DAT_COUNT		qlen;		/* lock */
	DAT_COUNT		head;		/* lock; oldest event */
	DAT_COUNT		count;		/* lock; events in the ring */
	bool			enabled;	/* lock */
	bool			waitable;	/* lock */
	bool			overflowed;	/* lock; overflow reported once */
	DAT_COUNT		threshold;	/* lock; of the current waiter */
	bool			notified;	/* lock; a notification event came during the wait */
	unsigned		waiters;	/* lock; 0 or 1 */
	struct sd_cno		*cno;		/* lock, and ia->lock to change it */
	unsigned		refs;		/* ia->lock: EPs, PSPs, RSPs, SRQs using it */
};

/*
 * Creates an EVD of at least @qlen events accepting the streams of @flags
 * and lists it in ia->evds; ia_open uses it for the async EVD. Returns
 * DAT_SUCCESS, DAT_INVALID_PARAMETER (qlen <= 0, unknown flags) or
 * DAT_INSUFFICIENT_RESOURCES (qlen > SD_MAX_EVD_QLEN, no memory). Takes
 * ia->lock.
 */
DAT_RETURN sd_evd_create_internal(struct sd_ia *ia, DAT_COUNT qlen,
				  DAT_EVD_FLAGS flags, struct sd_evd **out);

/*
 * Unlists and frees @evd whatever its references (ia_close abrupt): a
 * thread blocked in dat_evd_wait returns DAT_ABORT first. Takes ia->lock:
 * the caller must not hold it.
 */
void sd_evd_destroy(struct sd_evd *evd);

/*
 * Appends @ev to @evd (its evd_handle is set to @evd) and wakes the waiter
 * once the ring holds its threshold, or, when nobody waits and the EVD is
 * enabled, triggers its CNO. Any thread; takes evd->lock (and cno->lock),
 * so the caller may hold an EP or SRQ lock but no EVD or CNO lock.
 * Allocates nothing. Returns 0, or -ENOSPC when the ring is full: the
 * event is then dropped but not silently, since the EVD is marked
 * overflowed and DAT_ASYNC_ERROR_EVD_OVERFLOW (dat_handle: this EVD) is
 * posted through sd_ia_async_error, once per EVD (until a resize). The
 * EVD stays usable; what a lost completion means for its EP is the
 * poster's to decide.
 */
int sd_evd_post(struct sd_evd *evd, const DAT_EVENT *ev);

/*
 * A DTO completion for @ep on @evd; as sd_evd_post, except that a
 * completion that is not a notification event (@notify false: an
 * unsignalled DTO, or a receive that did not ask for a solicited event on
 * an EP configured for DAT_COMPLETION_SOLICITED_WAIT_FLAG) is queued
 * without waking a waiter or triggering the CNO (SEND-2, RECV-3, SRQ-3).
 */
int sd_evd_post_dto(struct sd_evd *evd, DAT_EP_HANDLE ep, DAT_DTO_COOKIE cookie,
		    DAT_DTO_COMPLETION_STATUS status, DAT_SEG_LENGTH len,
		    DAT_DTOS op, bool notify);

/*
 * Timed waits for evd.c and cno.c. sd_cond_init makes a condition variable
 * on CLOCK_MONOTONIC (0 or an errno). sd_deadline turns a DAT_TIMEOUT in
 * microseconds into an absolute time on that clock. sd_cond_wait_until
 * waits once until @deadline, or without limit when it is NULL; it returns
 * 0 or ETIMEDOUT, and the caller re-checks its condition either way.
 */
int sd_cond_init(pthread_cond_t *cond);
void sd_deadline(struct timespec *deadline, DAT_TIMEOUT timeout_us);
int sd_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex,
		       const struct timespec *deadline);

/*
 * A consumer notification object. "Fired" is sticky: a notification that
 * arrives with nobody in dat_cno_wait is returned by the next wait.
 */
struct sd_cno {
	struct sd_obj		obj;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;		/* CLOCK_MONOTONIC; waiters sleep on it */
	DAT_OS_WAIT_PROXY_AGENT	agent;		/* lock; one-shot, cleared when called */
	bool			fired;		/* lock; a notification not yet taken */
	struct sd_evd		*triggered;	/* lock; EVD that fired, if any */
	unsigned		waiters;	/* lock; threads in dat_cno_wait */
	unsigned		refs;		/* ia->lock: EVDs using it */
};

/*
 * Notifies @cno that @evd (NULL: all its EVDs are gone) became notifiable:
 * records it and wakes a waiter. Called by evd.c, possibly with evd->lock
 * held (cno->lock nests inside it). Returns the proxy agent to call,
 * which the CNO forgets (DAT: invoked once, then no longer associated);
 * the caller calls it after dropping its locks, if proxy_agent_func is
 * set.
 */
DAT_OS_WAIT_PROXY_AGENT sd_cno_notify(struct sd_cno *cno, struct sd_evd *evd);

/*
 * Unlists and frees @cno whatever its references (ia_close abrupt, after
 * the IA's EVDs are destroyed); waiters return DAT_ABORT first. Takes
 * ia->lock: the caller must not hold it.
 */
void sd_cno_destroy(struct sd_cno *cno);

/* ------------------------------------------------------------------ */
/* The engine (engine.c)                                              */

/*
 * A unit of work for the engine thread. Embedded in the object it acts on,
 * so submitting allocates nothing; @fn runs on the engine thread, in
 * submission order, with no provider lock held.
 */
struct sd_cmd {
	struct sd_list	node;		/* engine command lock */
	void		(*fn)(struct sd_cmd *cmd);
	bool		queued;		/* engine command lock */
};

struct uv_loop_s;

/* Start (first IA) and stop (last IA) the engine thread. 0 or -errno. */
int sd_engine_get(void);
void sd_engine_put(void);

/*
 * Queues @cmd for the engine thread. A command already queued is not
 * queued twice (it runs once). Any thread.
 */
void sd_engine_submit(struct sd_cmd *cmd);

/* The engine's loop; use only on the engine thread. */
struct uv_loop_s *sd_engine_loop(void);

/* True on the engine thread. */
bool sd_engine_on_thread(void);

/* ------------------------------------------------------------------ */
/* Debug output                                                       */

/*
 * SOFTDAPL_DEBUG=1 prints provider messages (state transitions, errors) on
 * stderr, prefixed "softdapl: ". Off by default and cheap when off.
 */
extern int sd_debug_level;
void sd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define sd_dbg(...) do { if (sd_debug_level) sd_log(__VA_ARGS__); } while (0)

#endif
