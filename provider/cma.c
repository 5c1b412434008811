/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA placed by the initiator (cma.h), with cross-memory attach: the
 * grant table a process publishes, the revokes that wait for peers to
 * leave, and the initiator's checked access.
 *
 * Who can reach what. process_vm_writev and process_vm_readv succeed only
 * where the kernel would let the caller ptrace the target (same user,
 * and under Yama's ptrace_scope 1 only an ancestor); softdapl never
 * widens that (no PR_SET_PTRACER). A process that may do this to us may
 * already write anywhere in our memory, so the grant check below is not
 * what protects us from it: it is what makes an honest peer's RDMA obey
 * DAT's rules (contexts, zones, bounds, privileges) exactly as over TCP,
 * and an access it does not find granted goes as a frame, which the
 * target checks and answers with the error TCP would give.
 *
 * Proving the peer. The segment says the peer's pid, but a segment is
 * written by the peer. Each side writes a random challenge into its block
 * of the segment; the other copies it into its own private memory and
 * publishes where. Before the first access we read that address of the
 * pid the segment names: only a process that mapped the segment can have
 * put our challenge there, so the pid is the peer's and not some other
 * process of ours that it would like us to write into. A kernel that
 * refuses the read (EPERM: Yama, a container's rules) leaves the
 * connection on the rings (copies, by the target).
 *
 * Grants. The table is an array in our private memory, one entry per
 * context slot, read by peers with process_vm_readv and never written by
 * them. An entry changes under a sequence number, odd meanwhile; a
 * reader reads the entry twice in one call and takes it only when both
 * copies agree and the number is even (the copies are taken one after the
 * other, so a change under way shows as a difference or an odd number).
 *
 * Revoking. A peer that found a grant must not place after the revoke
 * returns (dat_lmr_free's caller may reuse the memory at once). Each side
 * we expose has two words: our epoch, bumped at every revoke, and the
 * peer's busy flag, set while it accesses us. The peer sets busy, then
 * reads our epoch (a grant it remembers is good only within one epoch)
 * and the grant; a revoke changes the entry, bumps the epoch, then waits
 * while busy is set. Each side stores and then loads, sequentially
 * consistent (Dekker): either the peer sees the new epoch and reads the
 * entry again, or we see it busy and wait, one system call long. A peer
 * that stays busy for SD_CMA_WAIT_NS (stopped in a debugger, or lying) is
 * waited for no longer, that time or any later one, with a message: an
 * honest one cannot, and a hostile one could write anywhere anyway.
 *
 * Locks. The grant table: the memory lock (mem.h; its callers assert
 * it, this file being below mem.c). The list of sides:
 * list_lock, taken inside the memory lock by revokes, alone by expose
 * and conceal. A side and a peer: their connection's lock.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "cma.h"
#include "ia.h"
#include "mem.h"
#include "proto.h"
#include "util.h"

#define SD_CMA_SLOTS	(SD_MAX_LMRS + 1u)
#define SD_CMA_WAIT_NS	(2ull * 1000 * 1000 * 1000)

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_cma_side *sides;	/* list_lock */

/* ------------------------------------------------------------------ */
/* The grant table                                                     */

int sd_cma_table_init(struct sd_ia *ia)
{
	void *t = mmap(NULL, SD_CMA_SLOTS * sizeof(struct sd_cma_grant),
		       PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (t == MAP_FAILED) {
		ia->cma_grants = NULL;
		return -errno;
	}
	ia->cma_grants = t;
	return 0;
}

void sd_cma_table_fini(struct sd_ia *ia)
{
	if (ia->cma_grants != NULL)
		munmap(ia->cma_grants, SD_CMA_SLOTS * sizeof(struct sd_cma_grant));
	ia->cma_grants = NULL;
}

uint64_t sd_cma_table_addr(const struct sd_ia *ia)
{
	return (uint64_t)(uintptr_t)ia->cma_grants;
}

uint32_t sd_cma_table_slots(const struct sd_ia *ia)
{
	return ia->cma_grants != NULL ? SD_CMA_SLOTS : 0;
}

/* Rewrites the entry of @ctx's slot; memory lock. */
static void entry_set(struct sd_ia *ia, uint32_t ctx, const struct sd_cma_grant *g)
{
	struct sd_cma_grant *e;
	uint32_t seq;

	if (ia->cma_grants == NULL || sd_ctx_index(ctx) >= SD_CMA_SLOTS)
		return;
	e = &ia->cma_grants[sd_ctx_index(ctx)];
	seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, seq + 1, __ATOMIC_SEQ_CST);	/* odd */
	__atomic_store_n(&e->ctx, g->ctx, __ATOMIC_RELAXED);
	__atomic_store_n(&e->priv, g->priv, __ATOMIC_RELAXED);
	__atomic_store_n(&e->pz, g->pz, __ATOMIC_RELAXED);
	__atomic_store_n(&e->ep, g->ep, __ATOMIC_RELAXED);
	__atomic_store_n(&e->start, g->start, __ATOMIC_RELAXED);
	__atomic_store_n(&e->size, g->size, __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, seq + 2, __ATOMIC_SEQ_CST);	/* even */
}

void sd_cma_grant(struct sd_ia *ia, uint32_t ctx, uint64_t pz, uint64_t ep,
		  uint32_t priv, uint64_t start, uint64_t size)
{
	struct sd_cma_grant g = {
		.ctx = ctx, .priv = priv, .pz = pz, .ep = ep,
		.start = start, .size = size,
	};

	if (priv != 0)
		entry_set(ia, ctx, &g);
}

/* Waits while the peer of @s is inside our memory. list_lock held. */
static void wait_out(struct sd_cma_side *s)
{
	uint32_t *busy = sd_shm_u32(s->blk, SD_SHM_S_BUSY);
	uint64_t t0 = 0;

	while (!s->given_up && __atomic_load_n(busy, __ATOMIC_SEQ_CST) != 0) {
		if (t0 == 0)
			t0 = sd_now_ns();
		if (kill((pid_t)s->peer_pid, 0) < 0 && errno == ESRCH)
			return;		/* it died inside: nothing more comes */
		if (sd_now_ns() - t0 > SD_CMA_WAIT_NS) {
			sd_log("one-sided RDMA: pid %u stays inside our memory "
			       "after a revoke; going on without it, and not "
			       "waiting for it again", s->peer_pid);
			s->given_up = true;
			return;
		}
		sched_yield();
	}
}

void sd_cma_revoke(struct sd_ia *ia, uint32_t ctx)
{
	struct sd_cma_grant none = { 0 };
	struct sd_cma_side *s;
	struct sd_cma_grant *e;

	if (ctx == 0 || ia->cma_grants == NULL ||
	    sd_ctx_index(ctx) >= SD_CMA_SLOTS)
		return;
	e = &ia->cma_grants[sd_ctx_index(ctx)];
	if (__atomic_load_n(&e->ctx, __ATOMIC_RELAXED) != ctx)
		return;		/* granted nothing to peers (no remote privilege) */
	entry_set(ia, ctx, &none);
	pthread_mutex_lock(&list_lock);
	for (s = sides; s != NULL; s = s->next) {
		__atomic_add_fetch(sd_shm_u64(s->blk, SD_SHM_S_EPOCH), 1,
				   __ATOMIC_SEQ_CST);
		wait_out(s);
	}
	pthread_mutex_unlock(&list_lock);
}

/* ------------------------------------------------------------------ */
/* Sides                                                               */

void sd_cma_expose(struct sd_cma_side *side)
{
	pthread_mutex_lock(&list_lock);
	side->given_up = false;
	side->prev = NULL;
	side->next = sides;
	if (sides != NULL)
		sides->prev = side;
	sides = side;
	side->listed = true;
	pthread_mutex_unlock(&list_lock);
	__atomic_store_n(sd_shm_u32(side->blk, SD_SHM_S_EXPOSED), 1,
			 __ATOMIC_SEQ_CST);
}

void sd_cma_conceal(struct sd_cma_side *side)
{
	if (!side->listed)
		return;
	__atomic_store_n(sd_shm_u32(side->blk, SD_SHM_S_EXPOSED), 0,
			 __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&list_lock);
	wait_out(side);
	if (side->prev != NULL)
		side->prev->next = side->next;
	else
		sides = side->next;
	if (side->next != NULL)
		side->next->prev = side->prev;
	pthread_mutex_unlock(&list_lock);
	side->listed = false;
}

/* ------------------------------------------------------------------ */
/* The initiator                                                       */

/* Proves the peer (see the top of the file); its state after. */
static int prove(struct sd_cma_peer *p)
{
	uint8_t *b = p->blk;
	uint64_t echo, v = 0;
	struct iovec l = { .iov_base = &v, .iov_len = sizeof(v) };
	struct iovec r;

	if (__atomic_load_n(sd_shm_u32(b, SD_SHM_S_EXPOSED), __ATOMIC_ACQUIRE) == 0)
		return 0;	/* not yet: its end of the handshake is behind */
	p->pid = __atomic_load_n(p->pid_at, __ATOMIC_RELAXED);
	echo = __atomic_load_n(sd_shm_u64(b, SD_SHM_S_ECHO), __ATOMIC_RELAXED);
	r.iov_base = (void *)(uintptr_t)echo;
	r.iov_len = sizeof(v);
	if (process_vm_readv((pid_t)p->pid, &l, 1, &r, 1, 0) != sizeof(v)) {
		sd_dbg("one-sided RDMA: off, the copy path: the kernel refuses "
		       "cross-memory attach to pid %u (%s%s)", p->pid,
		       strerror(errno), errno == EPERM ?
		       ": Yama's ptrace_scope, or no ptrace permission" : "");
		return p->state = -1;
	}
	if (v != p->challenge) {
		sd_dbg("one-sided RDMA: off, the copy path: pid %u does not "
		       "hold our challenge, so it is not the peer", p->pid);
		return p->state = -1;
	}
	p->grants = __atomic_load_n(sd_shm_u64(b, SD_SHM_S_GRANTS), __ATOMIC_RELAXED);
	p->slots = __atomic_load_n(sd_shm_u32(b, SD_SHM_S_SLOTS), __ATOMIC_RELAXED);
	p->pz = __atomic_load_n(sd_shm_u64(b, SD_SHM_S_PZ), __ATOMIC_RELAXED);
	p->ep = __atomic_load_n(sd_shm_u64(b, SD_SHM_S_EP), __ATOMIC_RELAXED);
	p->c_ctx = 0;
	sd_dbg("one-sided RDMA: on with pid %u (cross-memory attach)", p->pid);
	return p->state = 1;
}

/* Reads the peer's entry for @rkey into the cache; false if none is sure. */
static bool look_up(struct sd_cma_peer *p, uint32_t rkey, uint64_t epoch)
{
	struct sd_cma_grant g[2];
	struct iovec l = { .iov_base = g, .iov_len = sizeof(g) };
	struct iovec r[2];
	uint32_t i = sd_ctx_index(rkey);

	p->c_ctx = 0;
	if (i >= p->slots)
		return false;
	r[0].iov_base = (void *)(uintptr_t)(p->grants + (uint64_t)i * sizeof(g[0]));
	r[0].iov_len = sizeof(g[0]);
	r[1] = r[0];
	if (process_vm_readv((pid_t)p->pid, &l, 1, r, 2, 0) != sizeof(g) ||
	    memcmp(&g[0], &g[1], sizeof(g[0])) != 0 || (g[0].seq & 1) ||
	    g[0].ctx != rkey)
		return false;
	p->c_ctx = rkey;
	p->c_priv = g[0].priv;
	p->c_pz = g[0].pz;
	p->c_ep = g[0].ep;
	p->c_start = g[0].start;
	p->c_size = g[0].size;
	p->epoch = epoch;
	return true;
}

int sd_cma_prove(struct sd_cma_peer *p)
{
	return p->state == 0 ? prove(p) : p->state;
}

int sd_cma_pull(struct sd_cma_peer *p, const struct iovec *local, int n,
		uint64_t len, uint64_t addr)
{
	uint32_t *busy = sd_shm_u32(p->blk, SD_SHM_S_BUSY);
	struct iovec r = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	int ret = -ESHUTDOWN;

	if (p->state != 1)
		return -EFAULT;
	/*
	 * As an access to grants (sd_cma_rdma): once the sender has
	 * concealed its side (its connection ended, the SEND flushed and
	 * perhaps its buffer reused), nothing is read any more.
	 */
	__atomic_store_n(busy, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(sd_shm_u32(p->blk, SD_SHM_S_EXPOSED), __ATOMIC_SEQ_CST))
		ret = process_vm_readv((pid_t)p->pid, local, (unsigned long)n,
				       &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
	__atomic_store_n(busy, 0, __ATOMIC_SEQ_CST);
	return ret;
}

int sd_cma_rdma(struct sd_cma_peer *p, bool write, const struct iovec *local,
		int n, uint64_t len, uint32_t rkey, uint64_t addr)
{
	uint32_t *busy = sd_shm_u32(p->blk, SD_SHM_S_BUSY);
	uint32_t need = write ? DAT_MEM_PRIV_REMOTE_WRITE_FLAG :
				DAT_MEM_PRIV_REMOTE_READ_FLAG;
	struct iovec r = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	uint64_t epoch;
	ssize_t done;
	int ret = -EAGAIN;

	if (p->state < 0 || (p->state == 0 && prove(p) <= 0) || len == 0)
		return -EAGAIN;
	__atomic_store_n(busy, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(sd_shm_u32(p->blk, SD_SHM_S_EXPOSED),
			    __ATOMIC_SEQ_CST) == 0)
		goto out;	/* its end has begun: frames find out */
	epoch = __atomic_load_n(sd_shm_u64(p->blk, SD_SHM_S_EPOCH), __ATOMIC_SEQ_CST);
	if ((p->c_ctx != rkey || p->epoch != epoch) && !look_up(p, rkey, epoch))
		goto out;
	if (p->c_pz != p->pz || (p->c_ep != 0 && p->c_ep != p->ep) ||
	    (p->c_priv & need) != need ||
	    !sd_mem_in_range(p->c_start, p->c_size, addr, len))
		goto out;	/* the target says which error, by frames */
	if (write)
		done = process_vm_writev((pid_t)p->pid, local, (unsigned long)n,
					 &r, 1, 0);
	else
		done = process_vm_readv((pid_t)p->pid, local, (unsigned long)n,
					&r, 1, 0);
	if (done == (ssize_t)len)
		ret = 0;
	else
		p->c_ctx = 0;
out:
	__atomic_store_n(busy, 0, __ATOMIC_SEQ_CST);
	return ret;
}
