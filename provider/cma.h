/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 1: RDMA placed by the initiator (cma.c). Between two
 * processes of one host that share a segment (shm.c), an RDMA write or
 * read is done by the initiator itself, with process_vm_writev or
 * process_vm_readv into or from the target's registered memory, checked
 * against the grants the target publishes. The target's CPU takes no
 * part, as with RDMA hardware.
 *
 * Three parts:
 *   - the grant table of an IA: what its contexts grant, published as
 *     they are made and revoked (ctx.c, mem.c, under the memory lock);
 *   - a side (struct sd_cma_side): a connection's end whose memory its
 *     peer may reach; a revoke waits until no peer is inside a range
 *     that it no longer grants;
 *   - a peer (struct sd_cma_peer): the other end, proved to be the
 *     process it says before it is written, then reached.
 */
#ifndef SD_CMA_H
#define SD_CMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct sd_ia;
struct sd_cma_grant;

/*
 * The grant table of @ia, one entry per context slot (mem.h): made when
 * the IA opens (0, or -errno: then nothing is published, and every
 * RDMA of its peers goes through frames), freed when it closes.
 */
int sd_cma_table_init(struct sd_ia *ia);
void sd_cma_table_fini(struct sd_ia *ia);
/* The table's address and entries, for a side to publish. */
uint64_t sd_cma_table_addr(const struct sd_ia *ia);
uint32_t sd_cma_table_slots(const struct sd_ia *ia);

/*
 * Memory lock held. Grant: remote context @ctx now grants @priv
 * (DAT_MEM_PRIV_REMOTE_* flags) over [start, start + size) of this
 * process to EPs of zone @pz (and only EP @ep when not 0). Revoke: @ctx
 * grants nothing any more; returns once no peer can be placing into or
 * reading from what it granted (it waits for accesses under way, each a
 * system call long).
 */
void sd_cma_grant(struct sd_ia *ia, uint32_t ctx, uint64_t pz, uint64_t ep,
		  uint32_t priv, uint64_t start, uint64_t size);
void sd_cma_revoke(struct sd_ia *ia, uint32_t ctx);

/*
 * Our end of a connection, @blk our side's block in the segment (proto.h,
 * SD_SHM_OFF_SIDE). Expose publishes what a peer needs (the block's
 * fields are written by the caller before, "exposed" last here) and lists
 * the side for revokes; conceal ends that: it returns once the peer is
 * out of our memory. Any thread; the caller's lock of the connection.
 */
struct sd_cma_side {
	uint8_t			*blk;		/* const */
	uint32_t		peer_pid;	/* const: for liveness only */
	bool			listed;		/* the caller's lock */
	bool			given_up;	/* list lock: its peer stayed in
						 * past a wait: not waited for again */
	struct sd_cma_side	*prev, *next;	/* cma.c's list lock */
};

void sd_cma_expose(struct sd_cma_side *side);
void sd_cma_conceal(struct sd_cma_side *side);

/*
 * The other end, @blk its side's block. State: 0 not proved yet, 1 proved
 * (the fields below come from its block, read once), -1 never (refused
 * by the kernel, not proved, or not wanted). The caller's lock.
 */
struct sd_cma_peer {
	uint8_t		*blk;		/* const */
	uint32_t	*pid_at;	/* const: where the segment holds its pid */
	uint64_t	challenge;	/* const: ours, what it must echo */
	int		state;
	uint32_t	pid;
	uint64_t	grants, pz, ep;
	uint32_t	slots;
	/* The entry used last, valid while the peer's epoch is @epoch. */
	uint32_t	c_ctx, c_priv;
	uint64_t	c_pz, c_ep, c_start, c_size, epoch;
};

/*
 * The caller's lock of the connection. Writes (@write) or reads @len
 * bytes at @addr of remote context @rkey from or into @local (@n
 * iovecs), directly in the peer's memory. 0 when done; -EAGAIN when
 * this one must go through frames (the peer not proved yet or never, the
 * grant not found or not enough: the target then checks it and answers
 * as over TCP); nothing is left half done but a write that the kernel cut
 * short, which the frame then writes again.
 */
int sd_cma_rdma(struct sd_cma_peer *p, bool write, const struct iovec *local,
		int n, uint64_t len, uint32_t rkey, uint64_t addr);

/*
 * Tries to prove the peer now, if not done; returns its state (1: proved).
 * The caller's lock.
 */
int sd_cma_prove(struct sd_cma_peer *p);

/*
 * Reads @len bytes at @addr of the proved peer's memory into @local: a
 * SEND it left there for us (proto.h). No grant: the peer named its own
 * memory; but only while the peer's side is exposed, under its busy flag
 * as an RDMA is, so that a SEND its end flushed is never read. 0;
 * -ESHUTDOWN when its side is concealed (the SEND was withdrawn with its
 * connection); -EFAULT when the peer's address was not readable, or it
 * is not proved. The caller's lock.
 */
int sd_cma_pull(struct sd_cma_peer *p, const struct iovec *local, int n,
		uint64_t len, uint64_t addr);

#endif
