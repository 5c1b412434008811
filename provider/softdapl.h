/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: the provider's internal interface.
 *
 * What lives where (one file per DAT object, as the entry points are laid
 * out in struct dat_provider):
 *
 *   provider.c   dat_provider_init/fini, the DAT_PROVIDER table; reg.c:
 *                its registrations, one per IA name
 *   ia.c         IA open/query/close; params.c: ia_params parsing
 *   pz.c lmr.c rmr.c                memory: PZ, LMR (bounds, types),
 *                                   RMR (memory windows, binds)
 *   ctx.c mem.c                     their contexts; the memory lock, the
 *                                   checks and binds the data path makes
 *   evd.c cno.c                     events: EVD rings, waiting, CNO
 *   evq.c trigger.c                 below them: posting to an EVD and async
 *                                   errors (evq.c), CNO triggering
 *   ep.c         EP lifecycle and state machine   (ep.h: EP, PSP, RSP, CR, SRQ)
 *   psp.c rsp.c cr.c cm.c           service points, requests, handshake
 *   post.c       the DTO entry points (post_send/recv/rdma_write/rdma_read,
 *                send_with_invalidate, rdma_read_to_rmr), the EP side of
 *                dat_rmr_bind, the IB extension's requests (for ext.c)
 *   srq.c        SRQ; srqbuf.c: its buffers (the FIFO, take and give-back)
 *   wq.c         work queues: the rings of work requests (sd_wq)
 *   tx.c rx.c    the wire engine: framing out, placing in (proto.h)
 *   engine.c     the event loop thread and how other threads reach it
 *   progress.c   consumer threads moving frames from dat_evd_dequeue and
 *                dat_evd_wait, spinning and sleeping there; the poll
 *                events of the engine, wake-ups of an EP; deferred ACKs
 *                and batches
 *   obj.c util.c what every object has (handles, IA handles, debug
 *                output); timed waits
 *
 * Naming: DAT entry points keep their DAT names with an sd_ prefix
 * (sd_ep_post_send); internal functions are sd_<object>_<verb>; helpers are
 * static. Internally functions return 0 or a negative errno, or a
 * DAT_RETURN where the value goes straight back to the consumer; each says
 * which. The translation happens once, at the entry point.
 *
 * Threads. Consumer threads call the entry points, any number at once. One
 * engine thread per process runs a libuv loop (engine.c) that owns every
 * socket: it completes connects and accepts, and reads and writes frames
 * whenever no consumer does. Consumers reach it through sd_engine_submit
 * (a command queue and a uv_async_t). Completions are appended to an EVD
 * ring under the EVD's lock by whichever thread completes the DTO.
 *
 * The data path avoids the hop to the engine where it can (progress.c):
 * a post writes its frame from the consumer's thread when nothing is in
 * flight, and otherwise leaves it for a batch; a thread in dat_evd_dequeue
 * or dat_evd_wait reads and writes the sockets of the EPs completing on
 * that EVD itself, spinning briefly and then sleeping in poll() on them,
 * so that a message wakes the thread that wants it and no other; the
 * engine stops polling a socket that consumers read first, until its next
 * tick. Nothing in the data path allocates: work requests, frames and
 * event slots are preallocated when their queue is created.
 *
 * Locks, in the order they nest (never take an earlier one while holding a
 * later one):
 *
 *   IA list lock (ia.c)  the list of open IAs
 *   ia->lock     object lists of the IA, the LMR context table
 *   ep->lock     EP state, its queues, its connection's tx/rx state
 *   srq->lock    SRQ buffers
 *   memory lock (mem.c)  context tables, LMR references, RMR bindings
 *   async lock (evq.c)   which EVD each IA's async errors go to
 *   evd->lock    the event ring, waiters
 *   cno->lock
 *   engine command queue lock (leaf)
 *   progress.c's tick lock (leaf: EPs owing writes)
 *
 * Every struct says which lock guards which field; "engine" means the
 * field is touched only on the engine thread, "const" that it is set at
 * creation and read-only afterwards.
 *
 * Layers. A file calls only functions of its own layer and the layers
 * below; nothing calls a DAT entry point but the provider table and the
 * extension dispatch. Upcalls happen only by completion delivery, the one
 * failure path of an EP, or a command or function pointer the upper layer
 * registered. test/layers/check-layers.sh reads the table below (one file
 * on one line) and checks it against the objects' symbols (nm) in make
 * check (layers_*); test/layers/baseline.txt lists the calls that still
 * break it, and may only shrink.
 *
 * LAYERS-BEGIN
 *   1  util.c obj.c trace.c params.c ctx.c reg.c
 *   2  engine.c
 *   3  wq.c mem.c evq.c trigger.c srqbuf.c tcp.c
 *   4  qp.c complete.c sp.c tx.c rx.c progress.c cm.c fault.c udep.c udcm.c
 *   5s api.c
 *   5e ia.c pz.c lmr.c rmr.c evd.c cno.c ep.c post.c psp.c rsp.c cr.c srq.c counters.c ud.c
 *   5d provider.c ext.c trace-api.c
 * LAYERS-END
 *
 *   1  utilities and objects
 *   2  the engine: loop, commands, hooks registered from above
 *   3  services objects offer below the API (memory resolution, work
 *      queues, EVD posting, SRQ buffers)
 *   4  the connection core: EP state machine, completion and flush, tx,
 *      rx, progress, sockets, connection management, faults (the only
 *      cycle allowed)
 *   5s helpers shared by the entry points
 *   5e the DAT entry points
 *   5d the provider table and extension dispatch, which call them
 */
#ifndef SD_SOFTDAPL_H
#define SD_SOFTDAPL_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>
#include <dat2/dat_ib_extensions.h>

#include "trace.h"

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
	SD_MAGIC_CSP	= 0x53444353,	/* psp.c */
	SD_MAGIC_UD_EP	= 0x53445545,	/* ud.c: an unreliable datagram EP */
	SD_MAGIC_UD_CR	= 0x53445543,	/* udcm.c: a UD connection request */
	SD_MAGIC_QUERY	= 0x53445151,	/* ext.c: dat_ib_open_query's handle */
	SD_MAGIC_DEAD	= 0x44454144,
};

struct sd_ia;

/*
 * The lowest address an object (and so a handle) can have: Linux never
 * maps the first page. A smaller handle is a bad one, checked before it
 * is read.
 */
#define SD_HANDLE_MIN		((uintptr_t)4096)

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
	uint32_t	num;		/* const; its number among the objects of
					 * its type in this process, from 1: its
					 * name in traces and messages ("ep3",
					 * sd_obj_name) */
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
 * The table UD objects point at (ext.h), which provider.c builds at load
 * and registers here (obj.c) for udep.c, udcm.c and ud.c to set
 * obj.provider with. Written once, by a constructor, before any IA
 * exists; read-only afterwards.
 */
extern DAT_PROVIDER *sd_obj_ud_table;

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
 * The IA's teardown (ia.c, ia_close) destroys what the consumer left
 * open through each kind's close op, which the file that owns the kind
 * registers before main (SD_OBJ_CLOSE_OP): a function pointer from the
 * entry layer, so that ia.c names no other entry-point file. A close op
 * unlists and frees @o whatever its state and references, takes the
 * locks it needs (the caller holds none), and may assume that what the
 * teardown's order puts earlier is gone.
 */
typedef void (*sd_obj_close_fn)(struct sd_obj *o);

/*
 * A decision on a connection request (RC or UD) is taken once: the call
 * that claims @o while *@action is still @pending and @o is a live object
 * of kind @magic sets *@action to @to, kills the handle and unlists it,
 * and proceeds alone (true); any other call finds it taken (false).
 * sd_obj_unclaim gives it back, pending and listed in @list, when the
 * claiming call then fails its checks. Both take ia->lock (not held on
 * entry).
 */
bool sd_obj_claim(struct sd_obj *o, uint32_t magic, uint8_t *action,
		  uint8_t pending, uint8_t to);
void sd_obj_unclaim(struct sd_obj *o, uint32_t magic, uint8_t *action,
		    uint8_t pending, struct sd_list *list);
void sd_obj_set_close(uint32_t magic, sd_obj_close_fn fn);
void sd_obj_close(struct sd_obj *o);
#define SD_OBJ_CLOSE_OP(magic, fn)					\
	static void __attribute__((constructor)) fn##_register(void)	\
	{								\
		sd_obj_set_close(magic, fn);				\
	}

/*
 * The object behind a consumer handle when it is a live object of kind
 * @magic, else NULL. Handles below one page are never objects.
 */
struct sd_obj *sd_obj_check(DAT_HANDLE h, uint32_t magic);

/*
 * The TCP (or UDP) port a connection qualifier names: the qualifier itself
 * up to 65535; above that, its low 16 bits, as OFED's socket CM folds it
 * (dapltest's limit tests use 0xaffab1e). -1 when folding leaves port 0,
 * which would let the kernel choose.
 */
static inline int sd_qual_port(DAT_CONN_QUAL q)
{
	unsigned p = (unsigned)(q & 0xffff);

	return q > 0xffff && p == 0 ? -1 : (int)p;
}

/* ------------------------------------------------------------------ */
/* IA (ia.c, params.c)                                                */

/*
 * LMRs per IA, reported by ia_query (max_lmrs, and max_rmrs: RMRs share
 * the table): the slots of the context table (ctx.c; one of 2^14 is
 * reserved). The other limits are in the EP and EVD sections.
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
	/* That interface at open (params.c: link_facts); 0s if unknown. */
	unsigned		mtu;		/* its MTU, bytes */
	uint8_t			mac[6];		/* its hardware address (lo: 0s) */
	bool			up;		/* IFF_UP and IFF_RUNNING */
};

/*
 * The provider-specific named attributes of one IA (dat_ia_query's
 * provider_attr): OFED's set, with values that are true of the IA (ia.c
 * says how each is made). The consumer keeps pointers into it, so it
 * lives as long as the IA (or the query handle); filled once by
 * sd_ia_named_init, const after.
 */
#define SD_IA_NAMED_MAX		20
struct sd_ia_named {
	DAT_NAMED_ATTR		attr[SD_IA_NAMED_MAX];
	DAT_COUNT		n;
	char			mtu[8];		/* "256" ... "4096" */
	char			guid[20];	/* xxxx:xxxx:xxxx:xxxx */
	char			gid[40];	/* 8 groups of 4 hex digits */
};

/* Fills @named for an IA at @addr (ia.c). */
void sd_ia_named_init(struct sd_ia_named *named, const struct sd_ia_addr *addr);

struct sd_ia {
	struct sd_obj		obj;
	pthread_mutex_t		lock;
	char			name[DAT_NAME_MAX_LENGTH]; /* const */
	struct sd_ia_addr	addr;		/* const */
	struct sd_ia_named	named;		/* const */
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
	/* The IB extension's objects (ext.h), under lock: UD EPs and CRs. */
	struct sd_list		ud_eps, ud_crs;
	uint64_t		cnt[DCNT_IA_ALL_COUNTERS];	/* sd_cnt_*: DCNT_IA_* */
	/* LMR/RMR context table: ctx.c allocates it, ia_close frees it. */
	struct sd_ctx_table	*ctx_table;	/* memory lock (sd_mem_lock) */
	uint32_t		ctx_size;	/* memory lock; slots in ctx_table */
	uint64_t		ctx_key[2];	/* const; the secret key of its contexts
						 * (sd_ctx_init, ctx.c) */
};

/*
 * Parses ia_params into @addr (see params.c). Returns 0, or with a message
 * in @err: -EINVAL (malformed), -ENODEV (no such interface or host, or it
 * has no address), -EADDRNOTAVAIL (an address that is not this host's),
 * -EMFILE, -ENFILE, -ENOMEM or -ENOBUFS (no descriptor or memory to look
 * the interfaces up with: the name may be fine).
 */
int sd_params_parse(const char *ia_params, struct sd_ia_addr *addr,
		    char *err, size_t errlen);

/*
 * reg.c: the registrations. sd_reg_add registers a copy of @table for key
 * @info with the registry (dat_registry_add_provider), or counts one more
 * init of a key registered already; sd_reg_remove undoes one, and
 * unregisters the key with the last (dat_provider_init and _fini, whose
 * arguments they take; a NULL @info is ignored).
 */
void sd_reg_add(const DAT_PROVIDER_INFO *info, const char *ia_params,
		const DAT_PROVIDER *table);
void sd_reg_remove(const DAT_PROVIDER_INFO *info);

/*
 * reg.c: the table registered for IA name @name and a malloc'd copy
 * of its ia_params (the caller frees it), counting an open IA on that
 * registration. DAT_SUCCESS or DAT_PROVIDER_NOT_FOUND.
 */
DAT_RETURN sd_reg_open(const char *name, DAT_PROVIDER **table,
		       char **ia_params);
/* Drops what sd_reg_open counted, once the IA is closed. */
void sd_reg_close(DAT_PROVIDER *table);

/* The IA of a consumer's IA handle or provider IA pointer, or NULL (obj.c). */
struct sd_ia *sd_ia_from_handle(DAT_IA_HANDLE h);

/* The consumer's handle for @ia (dats_get_ia_handle), for query results. */
DAT_IA_HANDLE sd_ia_handle(struct sd_ia *ia);

/*
 * Posts an asynchronous event @ev about object @h with @reason on @ia's
 * async EVD: a DAT_ASYNC_ERROR_* with its DAT_*_ERROR reason, or a
 * watermark event (SD_EVENT_WATERMARK, ep.h, with the DAT_SRQ_*_EVENT
 * reason). The one path to the async EVD: it counts the event
 * (DCNT_IA_ASYNC_*). @h == @ia is reported as the consumer's IA handle.
 * Any thread, with no EVD or CNO lock held (an EP or SRQ lock is fine);
 * takes the async lock, then the EVD's. Dropped, with a debug message,
 * when the IA has no async EVD or that EVD is full; a recursive call (the
 * async EVD overflowing while this posts) is dropped too. @ia must stay
 * open meanwhile: callers hold one of its objects that ia_close destroys
 * only after they return.
 */
void sd_async_error(struct sd_ia *ia, DAT_EVENT_NUMBER ev, DAT_HANDLE h,
		    DAT_COUNT reason);

/*
 * The async lock (evq.c): held while an async error is posted and while
 * an ia->async_evd changes (ia.c, with ia->lock), so that the EVD an error
 * is posted to cannot be destroyed meanwhile.
 */
extern pthread_mutex_t sd_async_lock;

/* ------------------------------------------------------------------ */
/* Memory (pz.c, lmr.c, rmr.c; ctx.c, mem.c)                          */

/*
 * The memory lock (mem.c): every IA's context table (ia->ctx_table,
 * ctx_size), the references and busy counts of LMRs and the bindings of
 * RMRs. It is what the data path takes to check a context, under ep->lock
 * or srq->lock, so it nests inside those and takes nothing itself (see
 * the lock order above). Object lists stay under ia->lock, which is taken
 * before it where both are needed. One lock for the process: lookups are
 * O(1) and short.
 */
extern pthread_mutex_t sd_mem_lock;

/*
 * Contexts (ctx.c explains them): 32 bits, never 0, a slot index of the
 * IA's context table above SD_CTX_INDEX_SHIFT and a tag below it that is
 * pseudo-random and never the same twice for a slot, so that a context
 * can be neither guessed nor used again once it has ended. The index is
 * no secret (tests use it to see a slot reused).
 */
#define SD_CTX_INDEX_SHIFT	18

static inline uint32_t sd_ctx_index(uint32_t ctx)
{
	return ctx >> SD_CTX_INDEX_SHIFT;
}

/*
 * Draws @ia's context key from getrandom(); ia_open calls it before the
 * IA has any memory object. 0 or a negative errno.
 */
int sd_ctx_init(struct sd_ia *ia);

/*
 * SipHash-2-4 of the 8 little-endian bytes of @m under @k (ctx.c). Not
 * exported from the library (libdaplsoft.map); provider_ctx_siphash
 * checks it against the paper's test vector.
 */
uint64_t sd_ctx_siphash(const uint64_t k[2], uint64_t m);

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
	struct sd_lmr		*parent;	/* const: DAT_MEM_TYPE_LMR: the LMR it
						 * was made over (counted in its refs) */
	unsigned		refs;		/* memory lock: LMRs made over it, RMRs
						 * bound or being bound to it */
	unsigned		busy;		/* memory lock: remote accesses placing now */
	char			cookie[DAT_LMR_COOKIE_SIZE]; /* const:
						 * DAT_MEM_TYPE_SHARED_VIRTUAL's id */
};

/*
 * True when [va, va + len) lies inside [start, start + size); overflow
 * safe for any va and len (nothing is added that could wrap).
 */
static inline bool sd_mem_in_range(uint64_t start, uint64_t size, uint64_t va,
				   uint64_t len)
{
	return va >= start && len <= size && va - start <= size - len;
}

/* True when [va, va + len) lies inside @lmr's region. */
static inline bool sd_lmr_in_region(const struct sd_lmr *lmr, uint64_t va,
				    uint64_t len)
{
	return sd_mem_in_range((uint64_t)(uintptr_t)lmr->addr, lmr->len, va,
			       len);
}

/*
 * ctx.c, for lmr.c and mem.c; memory lock held. alloc_lmr takes a slot
 * for @lmr and sets its two contexts (0 or -ENOMEM: no memory, or every
 * slot is in use or retired; may grow the table), release_lmr gives the
 * slot back (its tags stay spent: its contexts never match again).
 * find_lmr: the live LMR whose lmr_context (@remote false) or
 * rmr_context is @ctx, or NULL.
 */
int sd_ctx_alloc_lmr(struct sd_ia *ia, struct sd_lmr *lmr);
void sd_ctx_release_lmr(struct sd_ia *ia, struct sd_lmr *lmr);
struct sd_lmr *sd_ctx_find_lmr(const struct sd_ia *ia, uint32_t ctx,
			       bool remote);

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
 * in) into @sge. Returns 0 or, per COMMON-5..7: -ERANGE (segment
 * outside its LMR), -EPERM (LMR of another PZ), -EACCES (unknown
 * lmr_context or missing privilege); the entry point turns them into its
 * DAT_RETURN (sd_api_err). A zero segment_length resolves to an empty
 * @sge whatever the other fields (DAT: they are then don't-care). Any
 * thread; takes the memory lock; allocates nothing.
 */
int sd_mem_resolve_local(struct sd_ia *ia, struct sd_pz *pz,
			 const DAT_LMR_TRIPLET *t, DAT_MEM_PRIV_FLAGS need,
			 struct sd_sge *sge);

/*
 * Grants a remote peer access to [va, va + len) through @rmr_context for
 * an EP of PZ @pz with privilege @need (DAT_MEM_PRIV_REMOTE_READ_FLAG,
 * _WRITE_FLAG or DAT_IB_MEM_PRIV_REMOTE_ATOMIC). The context is an LMR's
 * rmr_context or the context of a bound RMR (with the RMR's own range,
 * privileges and PZ; an RMR of dat_rmr_create_for_ep only for the EP
 * whose identity @ep_id it was bound through: sd_tx.ep_id). On success
 * returns 0, points @sge at the memory and takes a busy reference on the
 * LMR the memory belongs to (release with sd_mem_remote_done once the
 * bytes are placed or sent): that LMR cannot be freed meanwhile (an RMR
 * can: dat_rmr_free(3) lets accesses already arrived finish). Returns
 * -ENOENT (unknown context, or an RMR bound through another EP), -EACCES
 * (no privilege), -EPERM (other PZ) or -ERANGE (outside the region); the
 * peer's bytes then touch nothing. A zero-length access checks nothing
 * (as on IB): 0, an empty @sge and *lmr = NULL, which sd_mem_remote_done
 * accepts. Any thread; takes the memory lock; allocates nothing.
 */
int sd_mem_resolve_remote(struct sd_ia *ia, struct sd_pz *pz, uint64_t ep_id,
			  DAT_RMR_CONTEXT rmr_context, uint64_t va,
			  uint64_t len, DAT_MEM_PRIV_FLAGS need,
			  struct sd_sge *sge, struct sd_lmr **lmr);
void sd_mem_remote_done(struct sd_lmr *lmr);

/*
 * dat_ep_post_rdma_read_to_rmr's local side: resolves the RMR triplet @t
 * of this IA (an LMR's rmr_context or a bound RMR's context, as above)
 * for the data of a read to be placed in, on an EP of PZ @pz and identity
 * @ep_id: it needs DAT_MEM_PRIV_REMOTE_WRITE_FLAG, the data arriving as a
 * remote write would. 0, or -EACCES (unknown context, no such
 * privilege), -EPERM (another PZ), -ERANGE (outside the region). Takes no
 * busy reference (a local buffer, as a post's LMR segments). Any thread;
 * takes the memory lock.
 */
int sd_mem_resolve_rmr_local(struct sd_ia *ia, struct sd_pz *pz,
			     uint64_t ep_id, const DAT_RMR_TRIPLET *t,
			     struct sd_sge *sge);

/*
 * An RMR (memory window, DAT 2.0 6.7). dat_rmr_create makes one of PZ
 * scope (its context works on any EP of its PZ), dat_rmr_create_for_ep
 * one of EP scope (only on the EP it was last bound through). Each holds
 * a slot of the IA's context table from creation; every bind takes the
 * slot's next tag, so an old context never matches again.
 */
struct sd_rmr {
	struct sd_obj	obj;
	struct sd_pz	*pz;		/* const */
	DAT_RMR_SCOPE	scope;		/* const: DAT_RMR_SCOPE_PZ or _EP */
	/* The rest under the memory lock. */
	uint32_t	slot;		/* its slot in ia->ctx_table: where its
					 * next context comes from */
	uint32_t	old_slot;	/* a slot it left, its tags spent, that
					 * still points at it for the contexts
					 * it gave; 0: none (ctx.c) */
	struct sd_lmr	*lmr;		/* bound to (counted in its refs), or NULL */
	uint64_t	va, len;	/* the bound range */
	DAT_MEM_PRIV_FLAGS priv;	/* the bound remote privileges */
	DAT_RMR_CONTEXT	rmr_context;	/* the binding's context; 0 unbound */
	uint64_t	ep_id;		/* EP scope: the EP bound through */
	unsigned	pending;	/* binds posted, not yet done or flushed */
	bool		freed;		/* dat_rmr_free ran; the last pending
					 * bind's end frees it */
};

/*
 * A bind in flight (in its WQE): what dat_rmr_bind asked for, checked,
 * and the context it reserved. @lmr is counted in the LMR's refs from
 * sd_mem_bind_reserve until the binding ends.
 */
struct sd_bind {
	struct sd_rmr		*rmr;
	struct sd_lmr		*lmr;	/* NULL: unbind (length 0) */
	uint64_t		va, len;
	DAT_MEM_PRIV_FLAGS	priv;
	DAT_RMR_CONTEXT		ctx;	/* the new context; 0 for an unbind */
};

/*
 * ctx.c's context table, for rmr.c and mem.c; memory lock held.
 * alloc_rmr gives @rmr a slot of its own (0 or -ENOMEM; may grow the
 * table), release_rmr gives it back (its tags stay spent), next_rmr
 * reserves the next context of its slot, moving to another slot once
 * this one's tags are spent (0: none could be had; allocates nothing).
 * find_rmr: the bound RMR whose current context is @ctx, or NULL.
 */
int sd_ctx_alloc_rmr(struct sd_ia *ia, struct sd_rmr *rmr);
void sd_ctx_release_rmr(struct sd_ia *ia, struct sd_rmr *rmr);
DAT_RMR_CONTEXT sd_ctx_next_rmr(struct sd_ia *ia, struct sd_rmr *rmr);
struct sd_rmr *sd_ctx_find_rmr(const struct sd_ia *ia, DAT_RMR_CONTEXT ctx);

/*
 * mem.c, for qp.c and tx.c, under the memory lock taken inside (callers
 * may hold ep->lock). Reserve: counts the bind as pending, references its
 * LMR and gives it a new context (0, or -ENOSPC when the table has no
 * generation left).
 * Exec: applies it for EP @ep_id, dropping the old binding; returns
 * DAT_DTO_SUCCESS, or DAT_RMR_BIND_FAILURE if the RMR was freed
 * meanwhile. Abort: a flushed bind; undoes the reservation. Exec and
 * abort end the bind: they may free a freed RMR.
 */
int sd_mem_bind_reserve(struct sd_bind *b);
DAT_DTO_COMPLETION_STATUS sd_mem_bind_exec(struct sd_bind *b, uint64_t ep_id);
void sd_mem_bind_abort(struct sd_bind *b);

/*
 * Ends @rmr's binding, if any: drops its LMR reference and clears its
 * range, privileges and context (mem.c, for rmr.c's teardown). Memory
 * lock held.
 */
void sd_mem_unbind(struct sd_rmr *rmr);

/*
 * The receiving side of a SEND with invalidate: unbinds the RMR of @ia
 * whose current context is @ctx, if it is of PZ @pz and, for an EP-scope
 * RMR, bound through EP @ep_id. 0, or -ENOENT (no such RMR: an LMR's
 * context is never invalidated, dat_lmr_create(3)) or -EPERM (another
 * PZ). Any thread; takes the memory lock.
 */
int sd_mem_invalidate(struct sd_ia *ia, struct sd_pz *pz, uint64_t ep_id,
		      DAT_RMR_CONTEXT ctx);


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

/* Every completion flag DAT 2.0 defines (dat_ep_create's attributes). */
#define SD_COMPLETION_FLAGS_ALL						\
	(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG | \
	 DAT_COMPLETION_UNSIGNALLED_FLAG |				\
	 DAT_COMPLETION_BARRIER_FENCE_FLAG |				\
	 DAT_COMPLETION_EVD_THRESHOLD_FLAG |				\
	 DAT_COMPLETION_LMR_INVALIDATE_FENCE_FLAG)
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
	SD_WR_BIND,		/* dat_rmr_bind: takes effect in turn, locally */
	SD_WR_WRITE_IMM,	/* sd_post_write_imm (ext.c) */
	SD_WR_FETCH_ADD,	/* sd_post_atomic (ext.c): completes as a READ */
	SD_WR_CMP_SWAP,
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
	bool			inv;		/* SEND: with invalidate of
						 * remote.rmr_context; receive: it
						 * invalidated remote.rmr_context */
	bool			has_imm;	/* receive: consumed by a WRITE_IMM */
	uint32_t		imm;		/* WRITE_IMM, receive: immediate data */
	uint64_t		len;		/* bytes the segments hold (or the message) */
	uint64_t		done;		/* bytes sent or placed so far */
	struct sd_sge		*sge;		/* the queue's max_sge slots for this WQE */
	DAT_RMR_TRIPLET		remote;		/* RDMA write/read, atomic target */
	struct sd_ep		*ep;		/* SRQ buffers: the EP that took it */
	union {
		uint8_t		atomic[16];	/* atomics: the request's payload
						 * (SD_ATOMIC_ARGS, proto.h) */
		struct sd_bind	bind;		/* SD_WR_BIND */
	} x;
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

/*
 * Resolves @n triplets of a post's @iov (at most @max) for PZ @pz and local
 * privilege @need into @sge, dropping zero-length segments; sets *@nsge and
 * *@total. Local write implies local read. 0, or -E2BIG (@n negative or
 * above @max), -EFAULT (@iov NULL for @n > 0), -ENODEV (no PZ), or an
 * error of sd_mem_resolve_local (COMMON-1, 5..7): the entry points turn
 * them into their DAT_RETURN with sd_api_err. Any thread; allocates
 * nothing (mem.c). Used by post.c, srq.c and ud.c.
 */
int sd_mem_resolve_iov(struct sd_ia *ia, struct sd_pz *pz, DAT_COUNT n,
		       const DAT_LMR_TRIPLET *iov, DAT_COUNT max,
		       DAT_MEM_PRIV_FLAGS need, struct sd_sge *sge,
		       uint16_t *nsge, uint64_t *total);

/* wq.c: allocates the ring; 0 or -ENOMEM. An empty ring (size 0) is allowed. */
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
/* Extended requests of the data path (post.c, tx.c, rx.c)             */

/*
 * Used by ext.c: the IB extension's dat_ib_post_rdma_write_immed,
 * dat_ib_post_fetch_and_add and dat_ib_post_cmp_and_swap end here. Both
 * are request posts with post.c's contract (STYLE habit 4): a synchronous
 * failure returns the DAT_RETURN for the consumer and never completes; a
 * success completes exactly once, in post order with the EP's other
 * requests, on the EP's request EVD. ext.c passes the consumer's
 * arguments unchanged and returns what these return; they check every
 * argument (the EP handle included) and allocate nothing. Any consumer
 * thread, no lock held.
 *
 * Completion events are made by the data path itself (post.c), in
 * OFED's format: event_number DAT_IB_DTO_EVENT, the DTO fields in
 * event_data.dto_completion_event_data (operation DAT_IB_DTO_RDMA_WRITE_IMMED,
 * DAT_IB_DTO_FETCH_ADD or DAT_IB_DTO_CMP_SWAP; transfered_length the bytes
 * written, 8 for an atomic), and a DAT_IB_EXTENSION_EVENT_DATA in
 * event_extension_data (type DAT_IB_RDMA_WRITE_IMMED, DAT_IB_FETCH_AND_ADD
 * or DAT_IB_CMP_AND_SWAP; status DAT_OP_SUCCESS or DAT_IB_OP_ERR).
 *
 * sd_post_write_imm: an RDMA write of @iov (@n segments, local read
 * privilege) to @remote, then 32 bits of immediate data @imm. At the
 * target, once the data is placed, the write consumes the next receive
 * (the EP's or one of its SRQ), which completes on the receive EVD as
 * DAT_IB_DTO_EVENT, operation DAT_IB_DTO_RECV_IMMED, type
 * DAT_IB_RDMA_WRITE_IMMED_DATA, val.immed.data = @imm, transfered_length
 * = the bytes written (the receive's own buffer is not touched). The
 * target waits for a receive as for a SEND (RNR: no timeout). Flags:
 * SUPPRESS, UNSIGNALLED (if the EP allows it), BARRIER_FENCE,
 * SOLICITED_WAIT (the target's receive completes as a solicited event).
 * Errors: as dat_ep_post_rdma_write, with DAT_INVALID_ARG2 for @n,
 * _ARG3 for @iov, _ARG5 for @remote, _ARG7 for @flags (the order of
 * dat_ib_post_rdma_write_immed's arguments).
 *
 * sd_post_atomic: an 8-byte atomic at remote->virtual_address (8-byte
 * aligned, remote->segment_length >= 8) through remote->rmr_context,
 * which must grant DAT_IB_MEM_PRIV_REMOTE_ATOMIC. SD_ATOMIC_FETCH_ADD
 * adds @cmp_add; SD_ATOMIC_CMP_SWAP stores @swap if the word equals
 * @cmp_add. The word is a host-order uint64_t of the target, changed with
 * one hardware atomic instruction, hence atomic with respect to every
 * other atomic on it, from any connection, IA or process. Its previous
 * value is written to the first 8 bytes of @local (one triplet, local
 * write privilege, segment_length >= 8) before the completion. Atomics
 * count against the EP's RDMA read depth (max_rdma_read_out/in), as on
 * IB. Flags: SUPPRESS, UNSIGNALLED (if allowed), BARRIER_FENCE.
 * Errors: DAT_INVALID_HANDLE (EP), DAT_INVALID_PARAMETER (@op, a
 * misaligned address: subtype of @remote's argument; unknown flags),
 * DAT_LENGTH_ERROR (a triplet shorter than 8 bytes), COMMON-5..7 for
 * @local, DAT_INVALID_STATE, DAT_INSUFFICIENT_RESOURCES. Subtypes follow
 * the order of the dat_ib_post_* macros: fetch-and-add (ep, add, local,
 * cookie, remote, flags) ARG3/ARG5/ARG6; compare-and-swap (ep, cmp, swap,
 * local, cookie, remote, flags) ARG4/ARG6/ARG7.
 */
DAT_RETURN sd_post_write_imm(DAT_EP_HANDLE ep, DAT_COUNT n,
			     const DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			     const DAT_RMR_TRIPLET *remote, uint32_t imm,
			     DAT_COMPLETION_FLAGS flags);

enum sd_atomic_op {
	SD_ATOMIC_FETCH_ADD,
	SD_ATOMIC_CMP_SWAP,
};

DAT_RETURN sd_post_atomic(DAT_EP_HANDLE ep, enum sd_atomic_op op,
			  uint64_t cmp_add, uint64_t swap,
			  const DAT_LMR_TRIPLET *local, DAT_DTO_COOKIE cookie,
			  const DAT_RMR_TRIPLET *remote,
			  DAT_COMPLETION_FLAGS flags);

/* ------------------------------------------------------------------ */
/* Events (evd.c, evq.c, cno.c, trigger.c)                            */

struct sd_cno;

/*
 * The longest event queue an EVD may have: ia_query reports it as
 * max_evd_qlen; a longer evd_min_qlen gives DAT_INSUFFICIENT_RESOURCES
 * (DAT_RESOURCE_TEVD), as OFED does when the HCA's CQ is too small.
 */
#define SD_MAX_EVD_QLEN		(1 << 20)

/*
 * EVDs and PZs per IA that ia_query reports as max_evds and max_pzs.
 * Reported, not enforced: both are plain memory, so an IA may in fact
 * create more.
 */
#define SD_MAX_EVDS		65536
#define SD_MAX_PZS		65536

/*
 * An event dispatcher: a ring of @qlen events, allocated at creation (and
 * by resize), so that posting, dequeueing and waiting allocate nothing.
 * At most one thread waits in dat_evd_wait at a time. evd.c states the
 * rules (waiting, notification, overflow) and where each comes from.
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
	bool			overflowed;	/* lock; an event was lost: the EVD is
						 * out of service for good (evd.c) */
	uint64_t		lost;		/* lock; events lost to the overflow,
						 * the first and every later one */
	DAT_COUNT		threshold;	/* lock; of the current waiter */
	bool			notified;	/* lock; a notification event came during the wait */
	bool			unwaited;	/* lock; set_unwaitable released the waiter */
	unsigned		waiters;	/* lock; 0 or 1 */
	struct sd_cno		*cno;		/* lock, and ia->lock to change it */
	unsigned		refs;		/* ia->lock: EPs, PSPs, RSPs, SRQs using it */
	struct sd_list		drive;		/* lock: sd_drive_link of the EPs
						 * completing here (progress.c) */
	unsigned		ndrive;		/* lock: links in @drive */
	int			efd;		/* lock: eventfd that wakes a waiter
						 * asleep in poll(); -1 until one is */
	bool			polling;	/* lock: the waiter sleeps in poll() */
	uint8_t			spin_fails;	/* lock: waits that spun in vain */
	uint8_t			spin_probe;	/* lock: waits since, modulo 256 */
	uint64_t		cnt[DCNT_EVD_ALL_COUNTERS];	/* sd_cnt_*: DCNT_EVD_* */
};

/*
 * Creates an EVD of at least @qlen events accepting the streams of @flags
 * and lists it in ia->evds; ia_open uses it for the async EVD. Returns
 * DAT_SUCCESS, DAT_INVALID_PARAMETER (qlen <= 0, unknown flags) or
 * DAT_INSUFFICIENT_RESOURCES (qlen > SD_MAX_EVD_QLEN, no memory). Takes
 * ia->lock.
 */
DAT_RETURN sd_evq_create(struct sd_ia *ia, DAT_COUNT qlen, DAT_EVD_FLAGS flags,
			 struct sd_evd **out);

/*
 * Unlists and frees @evd whatever its references (ia_close abrupt): a
 * thread blocked in dat_evd_wait returns DAT_ABORT first. Takes ia->lock:
 * the caller must not hold it.
 */
void sd_evq_destroy(struct sd_evd *evd);

/*
 * The EVD behind handle @h for an EP, which must accept the stream @flag
 * and, when @ia is not NULL, belong to @ia (an RC EP may use the EVDs of
 * another IA of this provider, as OFED allows; a UD EP may not). 0 with
 * *@out the EVD, or NULL for DAT_HANDLE_NULL; -EINVAL (and *@out NULL)
 * for anything else. Used by ep.c and ud.c.
 */
int sd_evq_from_handle(DAT_EVD_HANDLE h, DAT_EVD_FLAGS flag,
		       const struct sd_ia *ia, struct sd_evd **out);

/*
 * Appends @ev to @evd (its evd_handle is set to @evd) and wakes the waiter
 * once the ring holds its threshold, or, when nobody waits and the EVD is
 * enabled, triggers its CNO. Any thread; takes evd->lock (and cno->lock),
 * so the caller may hold an EP or SRQ lock but no EVD or CNO lock.
 * Allocates nothing. Returns 0, or -ENOSPC when the event is lost: the
 * ring was full, which overflows the EVD, or the EVD had overflowed before.
 *
 * The overflow rule (evd.c, Overflow: the DAT pages leave an overflow to
 * the provider, dat_ep_create(3), dat_evd_set_unwaitable(3); OFED
 * 2.1.10's catastrophic_overflow: dat_evd_wait and dat_evd_dequeue return
 * DAT_INVALID_STATE from then on).
 * An event the EVD cannot hold is accounted for, never silently dropped:
 * the first one puts the EVD in its overflow state for good (its waiter
 * is released with DAT_INVALID_STATE, dat_evd_wait, dat_evd_dequeue and
 * dat_evd_resize return DAT_INVALID_STATE, dat_evd_post_se
 * DAT_QUEUE_FULL) and posts DAT_ASYNC_ERROR_EVD_OVERFLOW naming it, once,
 * through sd_async_error; every lost event, that one and all later
 * ones, counts in evd->lost and is traced dropped=overflow. A poster of
 * completions passes -ENOSPC to its `dto` trace line; what a lost
 * completion means for its EP is the poster's to decide (the DTO
 * posters: nothing, the EP goes on and the work request is done).
 */
int sd_evq_post(struct sd_evd *evd, const DAT_EVENT *ev);

/*
 * A DTO completion for @ep on @evd; as sd_evq_post, except that a
 * completion that is not a notification event (@notify false: an
 * unsignalled DTO, or a receive that did not ask for a solicited event on
 * an EP configured for DAT_COMPLETION_SOLICITED_WAIT_FLAG) is queued
 * without waking a waiter or triggering the CNO (SEND-2, RECV-3, SRQ-3).
 */
int sd_evq_post_dto(struct sd_evd *evd, DAT_EP_HANDLE ep, DAT_DTO_COOKIE cookie,
		    DAT_DTO_COMPLETION_STATUS status, DAT_SEG_LENGTH len,
		    DAT_DTOS op, bool notify);

/*
 * A completion event the caller built (an RMR bind, a DTO of the IB
 * extension, a UD DTO, a receive with invalidate); as sd_evq_post_dto
 * for @notify: false queues it without waking a waiter or triggering
 * the CNO (SEND-2, RECV-3, SRQ-3).
 */
int sd_evq_post_completion(struct sd_evd *evd, const DAT_EVENT *ev,
			   bool notify);

/*
 * dat_evd_post_se's post of its software event: as sd_evq_post, except
 * that a full ring is not an overflow (the event is refused, -ENOSPC) and
 * that the CNO's proxy agent, if the event triggers it, is called by this
 * function once evd->lock is dropped (the CNO rule, trigger.c), so the
 * caller must hold no provider lock.
 */
int sd_evq_post_se(struct sd_evd *evd, const DAT_EVENT *ev);

/*
 * What evd.c uses of evq.c. sd_evq_wake wakes the thread waiting on @evd
 * (evd->lock held). sd_evq_state_str writes the EVD state that trace
 * lines name ("ENABLED|WAITABLE") into @buf. sd_evq_set_cno points @evd
 * at @cno (either may be NULL) and moves the CNO references (ia->lock
 * held); when @freeing drops the old CNO's last EVD it returns that CNO's
 * proxy agent, for the caller to call with sd_evq_call_agent and a NULL
 * EVD once every lock is dropped. sd_evq_release frees an unlisted,
 * unused EVD that sd_evq_create made.
 */
void sd_evq_wake(struct sd_evd *evd);
const char *sd_evq_state_str(bool enabled, bool waitable, bool overflowed,
			     char *buf, size_t n);
DAT_OS_WAIT_PROXY_AGENT sd_evq_set_cno(struct sd_evd *evd, struct sd_cno *cno,
				       bool freeing);
void sd_evq_call_agent(DAT_OS_WAIT_PROXY_AGENT agent, struct sd_evd *evd);
void sd_evq_release(struct sd_evd *evd);

/*
 * What the waiter of dat_evd_wait (progress.c) uses of evq.c while it
 * sleeps in poll(). sd_evq_wait_fd returns the EVD's eventfd, which
 * sd_evq_wake writes while evd->polling, made on first use; -1 when none
 * can be made. evd->lock held. sd_evq_wait_clear takes what was written to
 * that fd @fd once poll() found it readable. No lock held. The fd is
 * closed with the EVD (sd_evq_release).
 */
int sd_evq_wait_fd(struct sd_evd *evd);
void sd_evq_wait_clear(const struct sd_evd *evd, int fd);

/*
 * Timed waits for evd.c and cno.c (util.c). sd_cond_init makes a condition variable
 * on CLOCK_MONOTONIC (0 or an errno). sd_deadline turns a DAT_TIMEOUT in
 * microseconds into an absolute time on that clock. sd_cond_wait_until
 * waits once until @deadline, or without limit when it is NULL; it returns
 * 0 or ETIMEDOUT, and the caller re-checks its condition either way.
 */
int sd_cond_init(pthread_cond_t *cond);

/*
 * The number environment variable @name holds (util.c): a whole decimal
 * number from @min to @max. Unset or empty gives @def; anything else
 * ("20s", "3x", out of range) gives @def too, with a message saying it
 * is not @what. Every numeric SOFTDAPL_* variable is read through it.
 */
long sd_env_num(const char *name, long min, long max, long def,
		const char *what);
void sd_deadline(struct timespec *deadline, DAT_TIMEOUT timeout_us);
int sd_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex,
		       const struct timespec *deadline);

/*
 * Lock and thread assertions. A function whose contract names a lock or a
 * thread ("ep->lock.", "Engine.") checks it on entry with these. Like
 * assert() they are compiled out with NDEBUG; every build this tree makes
 * (the sanitizer builds included) has them on.
 *
 *   SD_ASSERT_HELD(m)       the calling thread holds mutex @m (glibc
 *                           records a mutex's owner; elsewhere unchecked)
 *   SD_ASSERT_ENGINE()      on the engine thread (engine.c)
 *   SD_ASSERT_NOT_ENGINE()  on any other thread
 */
bool sd_mutex_held(const pthread_mutex_t *m);
#ifdef NDEBUG
#define SD_ASSERT_HELD(m)	((void)0)
#define SD_ASSERT_ENGINE()	((void)0)
#define SD_ASSERT_NOT_ENGINE()	((void)0)
#else
#define SD_ASSERT_HELD(m)	assert(sd_mutex_held(m))
#define SD_ASSERT_ENGINE()	assert(sd_engine_on_thread())
#define SD_ASSERT_NOT_ENGINE()	assert(!sd_engine_on_thread())
#endif

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

/*
 * A consumer notification object. "Fired" is sticky: a notification that
 * arrives with nobody in dat_cno_wait is returned by the next wait (or
 * dat_cno_trigger). A CNO made by dat_cno_fd_create has an eventfd that
 * is readable exactly while it is fired (cno.c).
 */
struct sd_cno {
	struct sd_obj		obj;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;		/* CLOCK_MONOTONIC; waiters sleep on it */
	int			fd;		/* const; the eventfd, -1 without one */
	DAT_OS_WAIT_PROXY_AGENT	agent;		/* lock; one-shot, cleared when called */
	bool			fired;		/* lock; a notification not yet taken */
	struct sd_evd		*triggered;	/* lock; EVD that fired, if any */
	unsigned		waiters;	/* lock; threads in dat_cno_wait */
	unsigned		release;	/* lock; bumped to release every waiter
						 * with a NULL EVD */
	unsigned		refs;		/* ia->lock: EVDs using it */
	/*
	 * The agent calls the engine makes (trigger.c, the CNO rule): @due is
	 * an agent a trigger took and nobody called yet, for @due_evd;
	 * @again says a later trigger found @due taken and left the armed
	 * agent for the engine to take, for @again_evd. @agent_busy is
	 * set while @agent_cmd is queued or running; a CNO freed meanwhile
	 * is left to it (@free_pending) to free.
	 */
	struct sd_cmd		agent_cmd;	/* fn const */
	DAT_OS_WAIT_PROXY_AGENT	due;		/* lock */
	struct sd_evd		*due_evd;	/* lock */
	bool			again;		/* lock */
	struct sd_evd		*again_evd;	/* lock */
	bool			agent_busy;	/* lock */
	bool			free_pending;	/* lock */
};

/*
 * Notifies @cno that @evd received a notification event while enabled
 * and not waited on: records it as the EVD that triggered the CNO, makes
 * an fd CNO readable and wakes one waiter. Called by evq.c with
 * evd->lock held (cno->lock nests inside it); allocates nothing. The
 * proxy agent, if one is armed, is taken (dat_cno_create(3): invoked
 * once, then no longer associated). With @direct (dat_evd_post_se: the
 * caller holds no provider lock once it drops evd->lock) it is returned
 * for the caller to call with @evd after dropping evd->lock, if
 * proxy_agent_func is set; otherwise the engine thread calls it (the
 * CNO rule, trigger.c) and a null agent is returned.
 */
DAT_OS_WAIT_PROXY_AGENT sd_trigger_notify(struct sd_cno *cno,
					  struct sd_evd *evd, bool direct);

/*
 * @evd, which fed @cno, is being freed: a trigger of its that the CNO
 * holds (sticky, or an agent call not yet made) no longer names it.
 * Called by evq.c with ia->lock held.
 */
void sd_trigger_forget_evd(struct sd_cno *cno, struct sd_evd *evd);

/*
 * The last EVD feeding @cno was freed (dat_cno_wait(3)): every thread in
 * dat_cno_wait returns DAT_SUCCESS with a NULL EVD and an fd CNO becomes
 * readable (dat_cno_trigger then gives a NULL EVD). Returns the proxy
 * agent, which the CNO forgets, for the caller to call with a NULL EVD
 * once its locks are dropped. Called by evq.c with ia->lock held.
 */
DAT_OS_WAIT_PROXY_AGENT sd_trigger_orphaned(struct sd_cno *cno);

/*
 * Unlists and frees @cno whatever its references (ia_close abrupt, after
 * the IA's EVDs are destroyed), releasing its waiters and agent as when
 * its last EVD is freed; closes its fd. Takes ia->lock: the caller must
 * not hold it.
 */
void sd_trigger_destroy(struct sd_cno *cno);

/*
 * What cno.c uses of trigger.c. sd_trigger_alive: true while @cno has not
 * been freed or destroyed (cno->lock held). sd_trigger_call_agent calls
 * @agent with @evd if it has a function; no provider lock held.
 * sd_trigger_agent_cmd is the engine command that calls the agents the
 * triggers took (cno->agent_cmd.fn). sd_trigger_retire, on a dead CNO,
 * moves the agents still owed a call into @owed for the caller to call
 * with a NULL EVD once its locks are dropped, and returns true when the
 * caller frees the CNO (sd_trigger_release), false when the agent command
 * does (cno->lock held). sd_trigger_release frees an unlisted, unused CNO
 * and closes its fd.
 */
bool sd_trigger_alive(const struct sd_cno *cno);
void sd_trigger_call_agent(DAT_OS_WAIT_PROXY_AGENT agent, struct sd_evd *evd);
void sd_trigger_agent_cmd(struct sd_cmd *cmd);
bool sd_trigger_retire(struct sd_cno *cno, DAT_OS_WAIT_PROXY_AGENT owed[2]);
void sd_trigger_release(struct sd_cno *cno);

/* ------------------------------------------------------------------ */
/* The engine (engine.c)                                              */

/* struct sd_cmd (a command for the engine thread) is defined above. */

struct uv_loop_s;

/*
 * What the engine calls of the layers above it, which register it: it
 * names none of them. Both run on the engine thread with no provider lock
 * held. @tick: the tick (every SD_TICK_MS while wanted); returns whether
 * it has work left. @shutdown: the last IA is closing; close every
 * socket before the loop ends (the tick then runs until it has none).
 */
struct sd_engine_hooks {
	bool	(*tick)(void);
	void	(*shutdown)(void);
};

/*
 * Start (first IA) and stop (last IA) the engine thread. 0 or -errno.
 * Every caller passes the same @hooks (the first one's are kept).
 */
int sd_engine_get(const struct sd_engine_hooks *hooks);
void sd_engine_put(void);

/*
 * Spinning. A waiter may poll its EPs for a while before it sleeps (a
 * thread wake-up costs tens of microseconds), and so may the engine, but
 * only while spinners in this process stay fewer than the CPUs less one:
 * sd_spin_get says whether this thread may, and for how long (ns, 0:
 * not), sd_spin_put gives its turn back. SOFTDAPL_SPIN_US sets the time
 * (default 50; 0 never spins). Any thread.
 */
uint64_t sd_spin_get(void);
void sd_spin_put(void);

/*
 * Polls of consumers (each dat_evd_dequeue, each round of a waiter's
 * spin): a count that changes while a consumer is at work, when the
 * engine had better not spin for frames itself. Any thread, relaxed.
 */
extern unsigned long sd_polls;
static inline void sd_polled(void)
{
	__atomic_add_fetch(&sd_polls, 1, __ATOMIC_RELAXED);
}

static inline unsigned long sd_polls_seen(void)
{
	return __atomic_load_n(&sd_polls, __ATOMIC_RELAXED);
}

/*
 * Queues @cmd for the engine thread. A command already queued is not
 * queued twice (it runs once). Any thread.
 */
void sd_engine_submit(struct sd_cmd *cmd);

/* The engine's loop; use only on the engine thread. */
struct uv_loop_s *sd_engine_loop(void);

/*
 * Asks for the engine's tick (hooks->tick every SD_TICK_MS) to run
 * until it says it has nothing left. Any thread; a system call only when
 * the tick was off.
 */
#define SD_TICK_MS	1
void sd_engine_tick_want(void);

/* Engine: a round answered a peer's READ or atomic; the loop may spin for
 * the next (engine.c). */
void sd_engine_worked(void);

/* True on the engine thread. */
bool sd_engine_on_thread(void);

/* ------------------------------------------------------------------ */
/* Counters of the IB extension (counters.c)                           */

/*
 * dat_ib_query_counters reads the cnt[] arrays of IAs, EPs and EVDs,
 * indexed by the DCNT_IA_*, DCNT_EP_* and DCNT_EVD_* values of
 * <dat2/dat_ib_extensions.h>. Whoever does what a counter counts bumps
 * it where it happens, from any thread, with or without locks held: a
 * counter is a relaxed atomic, a statistic that orders nothing. Cheap
 * (one locked add) and allocation-free, so the data path may count.
 */
static inline void sd_cnt_add(uint64_t *cnt, unsigned i, uint64_t n)
{
	__atomic_fetch_add(&cnt[i], n, __ATOMIC_RELAXED);
}

static inline void sd_cnt_inc(uint64_t *cnt, unsigned i)
{
	sd_cnt_add(cnt, i, 1);
}

/* ------------------------------------------------------------------ */
/* Debug output                                                       */

/*
 * SOFTDAPL_DEBUG=1 prints provider messages (state transitions, errors) on
 * stderr, prefixed "softdapl: ". Off by default and cheap when off.
 */
extern int sd_debug_level;
/*
 * sd_log: a message on stderr, and an `error` line of the trace when
 * tracing (trace.h); sd_dbg: a debug message, on stderr only.
 */
void sd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sd_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define sd_dbg(...) do { if (sd_debug_level) sd_log_debug(__VA_ARGS__); } while (0)

#endif
