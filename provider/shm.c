/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared memory, the same-host transport behind the seam (transport.h): a
 * connection between two processes of one host and one user moves its
 * bytes through two rings in a segment both map (proto.h, "The same-host
 * segment"), and keeps its TCP connection for wake-ups and for the news
 * that the peer is gone. A stream here wraps the TCP stream the handshake
 * ran on; cm.c swaps it in when the handshake decides (SD_CM_F_SHM).
 *
 * Why. Over loopback TCP every message costs a system call on each side
 * and a trip through the network stack; through a ring, a sender copies
 * its bytes in and a receiver that is looking copies them out, with no
 * system call at all. The price is a wake-up protocol of our own.
 *
 * Wake-ups. A reader that may sleep (the engine armed for readability, or
 * a consumer thread about to sleep in ppoll: wait_arm) sets its ring's
 * rd_armed, then looks at the ring again. A writer that made bytes
 * visible looks at rd_armed; if set, it clears it and sends one byte over
 * TCP, which makes the reader's socket readable. The same with
 * wr_waiting for a writer that found the ring full. Either side sets its
 * flag and then checks the ring, the other publishes and then checks the
 * flag, each store and load sequentially consistent (one total order, as
 * a full fence between them would give): one of them sees the other
 * (Dekker), so no wake-up is lost. A reader that only polls
 * (dat_evd_dequeue in a loop, an engine that parked the socket) never
 * arms, and the two sides exchange messages without a single system
 * call. The wake-up bytes are drained by whoever is woken (the engine's
 * readiness callback, wait_arm).
 *
 * The end. shutdown_wr marks the ring closed and shuts TCP's write side
 * (its FIN wakes the reader); a peer that dies closes TCP. Either way the
 * reader gets the ring's last bytes, then the end of the stream, and
 * rx.c decides whether the connection ended in order (a DISCONNECT) or
 * broke.
 *
 * Hostile peers. The peer writes the segment, so nothing in it is trusted:
 * each side keeps its own position privately and only publishes it; the
 * peer's position is read once per operation and checked (a ring never
 * holds more than its size, and positions only move forward within it),
 * and a bad one breaks the stream for good (-EPROTO). Bytes are copied
 * out of the ring before anything parses them, so a peer that rewrites a
 * frame after we looked cannot change what we act on. The flags are only
 * hints for wake-ups: a peer that lies about them can stall its own
 * connection, nothing more.
 *
 * Who may attach. The listener makes the segment with O_EXCL and mode
 * 0600 under a name of its pid and a 64-bit random nonce, which it sends
 * only to the requester, over the connection's TCP stream. The kernel
 * lets only processes of the same user (or root) open it; the requester
 * checks in turn that the segment is owned by its own user, is not open
 * to others, and carries the nonce of the ACCEPT in its header. So both
 * ends are processes of one user, and the segment holds only the frames
 * between them. The name is unlinked as soon as the requester has it
 * mapped, or the connection ended; until then (one round trip) another
 * process of the same user could open it too, which is more than Yama's
 * ptrace_scope 1 lets it do to us otherwise (README, "Who can reach
 * what"). A descriptor passed over a UNIX socket instead of a name would
 * not close that: while we held it, /proc/PID/fd would open it for any
 * process of the user, which ptrace_scope 1 does not restrict.
 *
 * Threads and locks. Bytes move under the core's lock of the connection
 * (ep->lock while attached to an EP), on any thread; readiness (arm and
 * its callbacks, close) is the engine's. Fields shared with the engine's
 * callback (eof, err) are atomic.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "cma.h"
#include "engine.h"
#include "proto.h"
#include "transport.h"
#include "util.h"

/* Where a stream stands. */
enum shm_mode {
	SHM_PENDING,	/* listener: offered, the RTU decides the path */
	SHM_RING,	/* bytes through the rings */
	SHM_TCP,	/* the requester stayed on TCP: all goes through it */
};

struct shm_stream {
	struct sd_stream *tcp;		/* const: the stream under it */
	uint8_t		*base;		/* const: the segment, mapped */
	size_t		map_len;	/* const */
	uint32_t	size;		/* const: bytes in each ring */
	uint8_t		*rx_data;	/* const: the ring we read */
	uint8_t		*tx_data;	/* const: the ring we write */
	uint8_t		*rx_w, *rx_r;	/* const: its writer's and reader's lines */
	uint8_t		*tx_w, *tx_r;
	uint64_t	rx_head;	/* ours: what we consumed (published);
					 * the core's lock, atomic stores: the
					 * engine reads it (ring_ready) */
	uint64_t	tx_tail;	/* ours: what we wrote (published); the
					 * same */
	uint32_t	tx_pop, rx_pop;	/* the core's lock: bytes of each ring
					 * known backed by memory (populate) */
	uint8_t		mode;		/* enum shm_mode; the core's lock */
	bool		shut;		/* the core's lock: shutdown_wr done */
	int		eof;		/* atomic: TCP ended or failed */
	int		err;		/* atomic: a broken segment, -EPROTO */
	/* Engine: readiness. */
	int		events;		/* atomic: written by the engine only */
	sd_stream_cb	cb;
	void		*arg;
	uv_idle_t	kick;		/* engine: reports again what holds */
	struct sd_cmd	poke;		/* any thread: the engine looks again */
	bool		handles_init;	/* engine; atomic for wait_arm */
	int		handles;	/* engine: close's: TCP and kick left */
	sd_closed_cb	done;
	void		*done_arg;
	char		name[48];	/* listener: unlink until attached */
	/* One-sided RDMA (cma.h), the core's lock. */
	struct sd_cma_side side;	/* ours: the peer may reach us */
	struct sd_cma_peer peer;	/* theirs: we may reach it */
	uint64_t	echo;		/* the peer's challenge, for it to read */
};

static struct shm_stream *shm_of(struct sd_stream *s)
{
	return (struct shm_stream *)(void *)s;
}

static const struct shm_stream *shm_of_c(const struct sd_stream *s)
{
	return (const struct shm_stream *)(const void *)s;
}

/* ------------------------------------------------------------------ */
/* Settings                                                            */

enum sd_shm_policy sd_shm_policy(void)
{
	static int policy = -1;
	const char *v;

	if (__atomic_load_n(&policy, __ATOMIC_RELAXED) >= 0)
		return (enum sd_shm_policy)policy;
	v = getenv("SOFTDAPL_TRANSPORT");
	if (v == NULL || *v == '\0' || strcmp(v, "auto") == 0) {
		policy = SD_SHM_AUTO;
	} else if (strcmp(v, "tcp") == 0) {
		policy = SD_SHM_OFF;
	} else if (strcmp(v, "copy") == 0) {
		policy = SD_SHM_COPY;
	} else {
		sd_log("SOFTDAPL_TRANSPORT=%s is not auto, tcp or copy; using auto",
		       v);
		policy = SD_SHM_AUTO;
	}
	return (enum sd_shm_policy)policy;
}

/*
 * Ring sizes. A ring that holds a whole message lets a sender write it
 * and go on; one smaller than the messages makes the sender wait for the
 * receiver to make room, a round trip of wake-ups per ring's worth
 * (measured on two cores: 64 KiB rings take 4 MiB messages at 2.1 GB/s,
 * 1 MiB rings at 11.9 GB/s). So a connection gets SOFTDAPL_SHM_RING_KB
 * (default 256) each way, while the segments this process maps stay
 * within SOFTDAPL_SHM_BUDGET_MB (default 64); beyond, new connections get
 * SD_SHM_RING_SMALL rings, so that thousands of connections between two
 * processes cost /dev/shm 36 KiB each, not megabytes.
 */
#define SD_SHM_RING_SMALL	(16u * 1024)

static size_t mapped_bytes;	/* atomic: segments this process maps */

static uint32_t ring_size(void)
{
	static uint32_t size;
	static size_t budget;
	size_t mapped = __atomic_load_n(&mapped_bytes, __ATOMIC_RELAXED);

	if (size == 0) {
		budget = (size_t)sd_env_num("SOFTDAPL_SHM_BUDGET_MB", 0, 1 << 20,
					    64, "a number of MiB") << 20;
		size = (uint32_t)sd_env_num("SOFTDAPL_SHM_RING_KB",
					    SD_SHM_RING_MIN / 1024,
					    SD_SHM_RING_MAX / 1024, 256,
					    "a number of KiB from 4 to 16384") *
		       1024;
	}
	if (mapped + SD_SHM_HDR_SIZE + 2 * (size_t)size <= budget ||
	    size <= SD_SHM_RING_SMALL)
		return size;
	return SD_SHM_RING_SMALL;
}

/*
 * Memory behind a segment. A ring's pages are taken from /dev/shm as the
 * stream first reaches them, SD_SHM_CHUNK at a time (a system call per
 * page of the first pass over a ring, none after), with
 * MADV_POPULATE_WRITE: a full /dev/shm then fails that call (and the
 * connection, with a message), where a plain touch would have raised
 * SIGBUS. Reserving every ring's pages when the segment is made cost a
 * connection 170 us of its setup (256 KiB rings, measured on two cores)
 * for bytes that most connections never reach. Kernels before 5.14 do
 * not know the advice: there the whole segment is reserved up front
 * (posix_fallocate), as it is safe to.
 */
#define SD_SHM_CHUNK	4096u	/* a page: what a connection touches is what it costs */

static void set_err(struct shm_stream *m, int err, const char *what);

static int populate_known = 1;	/* atomic: 0 once the kernel said EINVAL */

/* Backs [off, off + len) of @base; 0, -ENOSPC, or -EINVAL (no advice). */
static int populate(uint8_t *base, size_t off, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t start = off & ~(page - 1);
	size_t end = (off + len + page - 1) & ~(page - 1);

	if (madvise(base + start, end - start, MADV_POPULATE_WRITE) == 0)
		return 0;
	if (errno == EINVAL) {
		__atomic_store_n(&populate_known, 0, __ATOMIC_RELAXED);
		return -EINVAL;
	}
	return -ENOSPC;
}

/*
 * Ring bytes [*done, upto) of the ring at @ring (position 0 of the ring
 * is byte 0 of it), backed before they are touched; *done grows by
 * whole chunks. 0 or -ENOSPC.
 */
static int ring_back(struct shm_stream *m, uint8_t *ring, uint32_t *done,
		     uint64_t upto)
{
	uint32_t end;

	if (upto <= *done || *done >= m->size)
		return 0;
	end = upto >= m->size ? m->size :
	      (uint32_t)((upto + SD_SHM_CHUNK - 1) / SD_SHM_CHUNK * SD_SHM_CHUNK);
	if (end > m->size)
		end = m->size;
	if (populate(m->base, (size_t)(ring - m->base) + *done, end - *done) != 0 &&
	    __atomic_load_n(&populate_known, __ATOMIC_RELAXED)) {
		set_err(m, -ENOSPC, "no room in /dev/shm for the ring");
		return -ENOSPC;
	}
	*done = end;
	return 0;
}

static void seg_name(char *buf, size_t len, uint32_t pid, uint64_t nonce)
{
	snprintf(buf, len, "/softdapl-%u-%016llx", pid,
		 (unsigned long long)nonce);
}

/* ------------------------------------------------------------------ */
/* Making and attaching a segment                                      */

/*
 * @ring is the ring this side reads: 0 for the requester, 1 for the
 * listener.
 */
static struct shm_stream *stream_new(struct sd_stream *tcp, uint8_t *base,
				     size_t map_len, uint32_t size, int ring)
{
	struct shm_stream *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->tcp = tcp;
	m->base = base;
	m->map_len = map_len;
	m->size = size;
	m->rx_data = base + SD_SHM_HDR_SIZE + (size_t)ring * size;
	m->tx_data = base + SD_SHM_HDR_SIZE + (size_t)(1 - ring) * size;
	m->rx_w = base + SD_SHM_OFF_WRITER(ring);
	m->rx_r = base + SD_SHM_OFF_READER(ring);
	m->tx_w = base + SD_SHM_OFF_WRITER(1 - ring);
	m->tx_r = base + SD_SHM_OFF_READER(1 - ring);
	/* Sides: 0 the listener's (it reads ring 1), 1 the requester's. */
	m->side.blk = base + SD_SHM_OFF_SIDE(1 - ring);
	m->peer.blk = base + SD_SHM_OFF_SIDE(ring);
	m->peer.pid_at = sd_shm_u32(base, ring == 1 ? SD_SHM_OFF_PID_R :
						  SD_SHM_OFF_PID_L);
	m->peer.state = sd_shm_policy() == SD_SHM_AUTO ? 0 : -1;
	if (getrandom(&m->peer.challenge, sizeof(m->peer.challenge), 0) !=
	    sizeof(m->peer.challenge))
		m->peer.state = -1;
	__atomic_store_n(sd_shm_u64(m->side.blk, SD_SHM_S_CHALLENGE),
			 m->peer.challenge, __ATOMIC_RELEASE);
	__atomic_add_fetch(&mapped_bytes, map_len, __ATOMIC_RELAXED);
	return m;
}

/*
 * The stream below is now ours: its readiness is re-armed with our
 * callback when the core arms us.
 */
static void take_tcp(struct sd_stream *tcp)
{
	(void)sd_tcp.arm(tcp, 0, NULL, NULL);
}

int sd_shm_offer(struct sd_stream *tcp, struct sd_cm_shm_ext *ext,
		 struct sd_stream **out, const char **why)
{
	struct shm_stream *m;
	uint32_t size = ring_size();
	size_t len = SD_SHM_HDR_SIZE + 2 * (size_t)size;
	char name[48];
	uint8_t *base;
	uint64_t nonce;
	int fd, err;

	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce)) {
		*why = "no random nonce";
		return -errno;
	}
	seg_name(name, sizeof(name), (uint32_t)getpid(), nonce);
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		*why = "shm_open failed";
		return -errno;
	}
	/*
	 * The header now, the rings as they are reached (see populate); all
	 * of it at once where the kernel cannot populate.
	 */
	err = __atomic_load_n(&populate_known, __ATOMIC_RELAXED) ?
	      (ftruncate(fd, (off_t)len) == 0 ? 0 : errno) :
	      posix_fallocate(fd, 0, (off_t)len);
	if (err != 0) {
		*why = "no room in /dev/shm";
		goto fail_unlink;
	}
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = errno;
		*why = "mmap failed";
		goto fail_unlink;
	}
	if (__atomic_load_n(&populate_known, __ATOMIC_RELAXED) &&
	    populate(base, 0, SD_SHM_HDR_SIZE) == -ENOSPC) {
		munmap(base, len);
		err = ENOSPC;
		*why = "no room in /dev/shm";
		goto fail_unlink;
	}
	if (!__atomic_load_n(&populate_known, __ATOMIC_RELAXED) &&
	    posix_fallocate(fd, 0, (off_t)len) != 0) {
		munmap(base, len);	/* the kernel said EINVAL just now */
		err = ENOSPC;
		*why = "no room in /dev/shm";
		goto fail_unlink;
	}
	close(fd);
	*sd_shm_u32(base, 0) = SD_SHM_MAGIC;
	*sd_shm_u32(base, 4) = SD_SHM_VERSION;
	*sd_shm_u64(base, SD_SHM_OFF_NONCE) = nonce;
	*sd_shm_u32(base, SD_SHM_OFF_RING_SIZE) = size;
	*sd_shm_u32(base, SD_SHM_OFF_PID_L) = (uint32_t)getpid();
	m = stream_new(tcp, base, len, size, 1);
	if (m == NULL) {
		munmap(base, len);
		shm_unlink(name);
		*why = "out of memory";
		return -ENOMEM;
	}
	memcpy(m->name, name, sizeof(name));
	m->mode = SHM_PENDING;
	take_tcp(tcp);
	ext->pid = (uint32_t)getpid();
	ext->ring_size = size;
	ext->nonce = nonce;
	*out = (struct sd_stream *)(void *)m;
	return 0;
fail_unlink:
	close(fd);
	shm_unlink(name);
	return -err;
}

int sd_shm_attach(struct sd_stream *tcp, const struct sd_cm_shm_ext *ext,
		  struct sd_stream **out, const char **why)
{
	struct shm_stream *m;
	size_t len = SD_SHM_HDR_SIZE + 2 * (size_t)ext->ring_size;
	char name[48];
	struct stat st;
	uint8_t *base;
	int fd;

	if (ext->ring_size < SD_SHM_RING_MIN || ext->ring_size > SD_SHM_RING_MAX) {
		*why = "the offer's ring size is out of range";
		return -EPROTO;
	}
	seg_name(name, sizeof(name), ext->pid, ext->nonce);
	fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0) {
		*why = errno == ENOENT ? "no such segment here (another host?)"
				       : "cannot open the segment";
		return -errno;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) != 0 ||
	    st.st_size != (off_t)len) {
		close(fd);
		*why = "the segment is not our user's, or not of the size offered";
		return -EPERM;
	}
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED) {
		*why = "mmap failed";
		return -errno;
	}
	shm_unlink(name);	/* mapped: the name has done its job */
	if (*sd_shm_u32(base, 0) != SD_SHM_MAGIC ||
	    *sd_shm_u32(base, 4) != SD_SHM_VERSION ||
	    *sd_shm_u64(base, SD_SHM_OFF_NONCE) != ext->nonce ||
	    *sd_shm_u32(base, SD_SHM_OFF_RING_SIZE) != ext->ring_size) {
		munmap(base, len);
		*why = "the segment's header does not match the offer";
		return -EPROTO;
	}
	__atomic_store_n(sd_shm_u32(base, SD_SHM_OFF_PID_R), (uint32_t)getpid(),
			 __ATOMIC_RELAXED);
	m = stream_new(tcp, base, len, ext->ring_size, 0);
	if (m == NULL) {
		munmap(base, len);
		*why = "out of memory";
		return -ENOMEM;
	}
	m->mode = SHM_RING;
	take_tcp(tcp);
	*out = (struct sd_stream *)(void *)m;
	return 0;
}

bool sd_shm_is_ring(const struct sd_stream *s)
{
	return shm_of_c(s)->mode == SHM_RING;
}

/* ------------------------------------------------------------------ */
/* The rings                                                           */

/* The listener's name, once the path is decided. */
static void forget_name(struct shm_stream *m)
{
	if (m->name[0] != '\0') {
		shm_unlink(m->name);
		m->name[0] = '\0';
	}
}

/*
 * Unmaps the segment: at close, or once the requester stayed on TCP.
 * Engine, or the core's lock with nothing armed.
 */
static void drop_segment(struct shm_stream *m)
{
	forget_name(m);
	if (m->base == NULL)
		return;
	sd_cma_conceal(&m->side);
	munmap(m->base, m->map_len);
	__atomic_sub_fetch(&mapped_bytes, m->map_len, __ATOMIC_RELAXED);
	m->base = NULL;
}

/* The requester did not attach: everything goes through TCP from now on. */
static void to_tcp(struct shm_stream *m)
{
	m->mode = SHM_TCP;
	drop_segment(m);
	sd_dbg("shm stream %p: the requester stayed on TCP", (void *)m);
}

static void set_err(struct shm_stream *m, int err, const char *what)
{
	if (__atomic_exchange_n(&m->err, err, __ATOMIC_RELAXED) == 0)
		sd_dbg("shm stream %p: %s: the connection is broken",
		       (void *)m, what);
}

/* One wake-up byte to the peer. Full socket: it has bytes to wake it. */
static void bell(struct shm_stream *m)
{
	static const uint8_t b = 1;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)&b, .iov_len = 1 };

	(void)sd_tcp_writev(m->tcp, &iov, 1);
}

/*
 * Bytes waiting in the ring we read, checked: the peer's tail may be
 * anything. -EPROTO (and the stream broken) when it is impossible.
 */
static int64_t rx_avail(struct shm_stream *m)
{
	uint64_t tail = __atomic_load_n(sd_shm_u64(m->rx_w, SD_SHM_W_TAIL),
					__ATOMIC_SEQ_CST);
	uint64_t n = tail - m->rx_head;

	if (n > m->size) {
		set_err(m, -EPROTO, "the peer's ring position is impossible");
		return -EPROTO;
	}
	return (int64_t)n;
}

/* Room in the ring we write, checked like rx_avail. */
static int64_t tx_room(struct shm_stream *m)
{
	uint64_t head = __atomic_load_n(sd_shm_u64(m->tx_r, SD_SHM_R_HEAD),
					__ATOMIC_SEQ_CST);
	uint64_t used = m->tx_tail - head;

	if (used > m->size) {
		set_err(m, -EPROTO, "the peer's ring position is impossible");
		return -EPROTO;
	}
	return (int64_t)(m->size - used);
}

/* Whether the ring we read has ended: closed by the writer, or TCP gone. */
static bool rx_ended(struct shm_stream *m)
{
	return __atomic_load_n(sd_shm_u32(m->rx_w, SD_SHM_W_CLOSED),
			       __ATOMIC_ACQUIRE) != 0 ||
	       __atomic_load_n(&m->eof, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Copies @len bytes between the ring at stream position @pos and @iov,
 * starting @skip bytes into @iov.
 */
static void ring_copy(uint8_t *ring, uint32_t size, uint64_t pos,
		      const struct iovec *iov, int n, size_t skip, size_t len,
		      bool to_ring)
{
	uint32_t off = (uint32_t)(pos % size);
	int i;

	for (i = 0; i < n && len > 0; i++) {
		uint8_t *p = iov[i].iov_base;
		size_t left = iov[i].iov_len;

		if (skip >= left) {
			skip -= left;
			continue;
		}
		p += skip;
		left -= skip;
		skip = 0;
		if (left > len)
			left = len;
		len -= left;
		while (left > 0) {
			size_t k = size - off < left ? size - off : left;

			if (to_ring)
				memcpy(ring + off, p, k);
			else
				memcpy(p, ring + off, k);
			p += k;
			left -= k;
			off = (uint32_t)((off + k) % size);
		}
	}
}

/*
 * A copy into or out of a ring is published a quarter of the ring at a
 * time, and the peer woken after the first quarter if it sleeps: a
 * writer that found the ring full then refills it while the reader still
 * empties it, instead of the two taking turns, each waiting for the
 * other's whole copy and a wake-up (a 1 MiB RDMA read through 256 KiB
 * rings ran at a third of memcpy's speed that way).
 *
 * Moves @k bytes (@to_ring: from @iov into @ring, else out of it) at our
 * private position *@pos, which then advances, published to the peer at
 * @published; a peer that flagged @peer_flag (sleeping on the ring, or
 * waiting for room) gets one bell. Room or bytes were checked by the
 * caller, and backed (ring_back).
 */
static void ring_move(struct shm_stream *m, uint8_t *ring, uint64_t *pos,
		      uint64_t *published, uint32_t *peer_flag,
		      const struct iovec *iov, int n, size_t k, bool to_ring)
{
	size_t done, c, piece = m->size / 4;

	for (done = 0; done < k; done += c) {
		c = k - done < piece ? k - done : piece;
		ring_copy(ring, m->size, *pos, iov, n, done, c, to_ring);
		__atomic_store_n(pos, *pos + c, __ATOMIC_RELAXED);
		__atomic_store_n(published, *pos, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(peer_flag, __ATOMIC_SEQ_CST) &&
		    __atomic_exchange_n(peer_flag, 0, __ATOMIC_RELAXED))
			bell(m);
	}
}

static size_t iov_total(const struct iovec *iov, int n)
{
	size_t t = 0;
	int i;

	for (i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

static ssize_t ring_writev(struct shm_stream *m, const struct iovec *iov, int n)
{
	size_t k;
	int64_t room;
	int err = __atomic_load_n(&m->err, __ATOMIC_RELAXED);

	if (err != 0)
		return err;
	if (m->shut)
		return -EPIPE;
	room = tx_room(m);
	if (room < 0)
		return room;
	/*
	 * The peer's end of TCP does not stop our writes: it may have only
	 * shut its side (a DISCONNECT, answered with ours), as TCP's
	 * half-close. A ring it no longer drains is another matter.
	 */
	if (room == 0)
		return __atomic_load_n(&m->eof, __ATOMIC_ACQUIRE) ? -EPIPE : -EAGAIN;
	k = iov_total(iov, n);
	if (k > (uint64_t)room)
		k = (size_t)room;
	if (ring_back(m, m->tx_data, &m->tx_pop, m->tx_tail + k) < 0)
		return -ENOSPC;
	ring_move(m, m->tx_data, &m->tx_tail, sd_shm_u64(m->tx_w, SD_SHM_W_TAIL),
		  sd_shm_u32(m->tx_r, SD_SHM_R_ARMED), iov, n, k, true);
	return (ssize_t)k;
}

static ssize_t ring_readv(struct shm_stream *m, const struct iovec *iov, int n)
{
	size_t k;
	int64_t avail;
	int err = __atomic_load_n(&m->err, __ATOMIC_RELAXED);

	if (err != 0)
		return err;
	avail = rx_avail(m);
	if (avail < 0)
		return avail;
	if (avail == 0) {
		if (!rx_ended(m))
			return -EAGAIN;
		/* Ended: what was written before the end is there by now. */
		avail = rx_avail(m);
		if (avail < 0)
			return avail;
		if (avail == 0)
			return __atomic_load_n(sd_shm_u32(m->rx_w, SD_SHM_W_CLOSED),
					       __ATOMIC_ACQUIRE) == SD_SHM_RESET ?
			       -ECONNRESET : 0;
	}
	k = iov_total(iov, n);
	if (k > (uint64_t)avail)
		k = (size_t)avail;
	/* The writer backed them; a peer that lies gets -ENOSPC, not SIGBUS. */
	if (ring_back(m, m->rx_data, &m->rx_pop, m->rx_head + k) < 0)
		return -ENOSPC;
	ring_move(m, m->rx_data, &m->rx_head, sd_shm_u64(m->rx_r, SD_SHM_R_HEAD),
		  sd_shm_u32(m->rx_w, SD_SHM_W_WAITING), iov, n, k, false);
	return (ssize_t)k;
}

/*
 * Reads the wake-up bytes TCP holds, noting its end or failure. Any
 * thread; the engine's callback and a consumer's wait_arm may both drain.
 * Whether any byte was read.
 */
static bool drain(struct shm_stream *m)
{
	uint8_t buf[256];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	bool any = false;

	for (;;) {
		ssize_t r = sd_tcp_readv(m->tcp, &iov, 1);

		if (r > 0)
			any = true;
		if (r == (ssize_t)sizeof(buf))
			continue;
		if (r == 0 || (r < 0 && r != -EAGAIN))
			__atomic_store_n(&m->eof, 1, __ATOMIC_RELEASE);
		return any;
	}
}

/*
 * The PENDING listener's choice: bytes in the ring mean the requester
 * attached (its RTU came that way), bytes on TCP (or its end) that it
 * did not. Returns the mode now.
 */
static uint8_t pending_decide(struct shm_stream *m, bool tcp_readable)
{
	int64_t avail = rx_avail(m);

	if (avail > 0) {
		m->mode = SHM_RING;
		forget_name(m);
		sd_dbg("shm stream %p: the requester attached: shared memory",
		       (void *)m);
	} else if (tcp_readable && avail == 0) {
		to_tcp(m);
	}
	return m->mode;
}

/* ------------------------------------------------------------------ */
/* The seam                                                            */

/* Proves the peer if it can be now; says so to it once proved. */
static bool prove_peer(struct shm_stream *m)
{
	if (m->peer.state == 1)
		return true;
	if (m->peer.state < 0 || sd_cma_prove(&m->peer) != 1)
		return false;
	__atomic_store_n(sd_shm_u32(m->side.blk, SD_SHM_S_PULLS), 1,
			 __ATOMIC_RELEASE);
	return true;
}

static ssize_t shm_writev(struct sd_stream *s, const struct iovec *iov, int n)
{
	struct shm_stream *m = shm_of(s);

	if (m->mode == SHM_RING)
		return ring_writev(m, iov, n);
	return sd_tcp_writev(m->tcp, iov, n);	/* the ACCEPT, or TCP's path */
}

static ssize_t shm_readv(struct sd_stream *s, const struct iovec *iov, int n)
{
	struct shm_stream *m = shm_of(s);
	ssize_t r;

	if (m->mode == SHM_RING) {
		if (m->peer.state == 0 && m->side.listed)
			(void)prove_peer(m);	/* the requester, once */
		return ring_readv(m, iov, n);
	}
	if (m->mode == SHM_TCP)
		return sd_tcp_readv(m->tcp, iov, n);
	if (pending_decide(m, false) == SHM_RING)
		return ring_readv(m, iov, n);
	r = sd_tcp_readv(m->tcp, iov, n);
	if (r != -EAGAIN)
		to_tcp(m);	/* the RTU (or the end) came by TCP */
	return r;
}

/*
 * Engine, no lock: the events of @want that hold now. Sets the wake-up
 * flags of what is wanted first, so that nothing published after the
 * look is missed. Our own positions are read from our private copies
 * (atomic, as the engine does not hold the core's lock here), never from
 * the segment: the peer can write our published ones too, and a lie there
 * would have us report bytes that readv does not find, again and again.
 * A position the peer made impossible reads as ready, and readv or
 * writev then find out.
 */
static int ring_ready(struct shm_stream *m, int want)
{
	uint64_t tail, head;
	int ev = 0;
	bool ended;

	if (want & UV_READABLE)
		__atomic_store_n(sd_shm_u32(m->rx_r, SD_SHM_R_ARMED), 1,
				 __ATOMIC_SEQ_CST);
	if (want & UV_WRITABLE)
		__atomic_store_n(sd_shm_u32(m->tx_w, SD_SHM_W_WAITING), 1,
				 __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&m->err, __ATOMIC_RELAXED) != 0)
		return want;
	ended = rx_ended(m);
	if (want & UV_READABLE) {
		tail = __atomic_load_n(sd_shm_u64(m->rx_w, SD_SHM_W_TAIL),
				       __ATOMIC_SEQ_CST);
		head = __atomic_load_n(&m->rx_head, __ATOMIC_RELAXED);
		if (tail != head || ended)
			ev |= UV_READABLE;
	}
	if (want & UV_WRITABLE) {
		tail = __atomic_load_n(&m->tx_tail, __ATOMIC_RELAXED);
		head = __atomic_load_n(sd_shm_u64(m->tx_r, SD_SHM_R_HEAD),
				       __ATOMIC_SEQ_CST);
		/* Room, or a head beyond what we wrote (impossible). */
		if (tail - head != m->size ||
		    __atomic_load_n(&m->eof, __ATOMIC_RELAXED))
			ev |= UV_WRITABLE;
	}
	if ((want & UV_DISCONNECT) && ended)
		ev |= UV_DISCONNECT;
	return ev;
}

static void kick_cb(uv_idle_t *i);

/*
 * Engine, no lock: tells the core what holds of what it armed, and keeps
 * telling it while that holds (the next loop iteration, after the other
 * handles had their turn), as a level-triggered poll of a socket does:
 * the core may stop reading with bytes left (rx.c's budget) and expects
 * to be told again.
 *
 * The kick is an idle handle, run once per loop iteration and stopped by
 * its callback before it looks. Not a timer of 0 ms: libuv before 1.48
 * (libuv issue 4245) runs a timer that its own callback restarts with 0
 * again in the same pass over the timers, so a stream that stays ready
 * (a peer that lies, a core that waits) kept the loop there for good, and
 * every connection of the process hung.
 */
static void kick_if_ready(struct shm_stream *m, int want)
{
	if (ring_ready(m, want) != 0)
		uv_idle_start(&m->kick, kick_cb);
}

static void report(struct shm_stream *m, int ev)
{
	if (ev == 0)
		return;
	m->cb((struct sd_stream *)(void *)m, 0, ev, m->arg);
	if (m->base == NULL || m->mode != SHM_RING || m->events == 0)
		return;		/* closed by the callback, or not watching */
	kick_if_ready(m, m->events);
}

static void look_again(struct shm_stream *m)
{
	if (m->base == NULL || m->events == 0 || m->cb == NULL)
		return;
	report(m, ring_ready(m, m->events));
}

static void kick_cb(uv_idle_t *i)
{
	uv_idle_stop(i);
	look_again(i->data);
}

static void poke_cb(struct sd_cmd *cmd)
{
	look_again(sd_container_of(cmd, struct shm_stream, poke));
}

/*
 * Engine, no lock: the TCP under a stream is readable (wake-up bytes, its
 * end, or the RTU of a requester that stayed on TCP), writable, or failed.
 */
static void tcp_ready_cb(struct sd_stream *tcp, int status, int events,
			 void *arg)
{
	struct shm_stream *m = arg;
	struct sd_stream *s = (struct sd_stream *)(void *)m;

	(void)tcp;
	if (m->mode == SHM_TCP ||
	    (m->mode == SHM_PENDING &&
	     pending_decide(m, status < 0 ||
			    (events & (UV_READABLE | UV_DISCONNECT))) != SHM_RING)) {
		m->cb(s, status, events, m->arg);
		return;
	}
	if (status < 0) {
		__atomic_store_n(&m->eof, 1, __ATOMIC_RELEASE);
	} else if (drain(m) && (m->events & UV_READABLE)) {
		/*
		 * A bell answered our arming, and the ring may be empty again:
		 * a consumer polling it read first. Readable all the same, as
		 * a socket would be: the core then sees it found nothing and
		 * parks (progress.h), and the peer stops ringing for every
		 * message, each bell a wake-up of this engine that takes a
		 * CPU from a polling consumer.
		 */
		report(m, ring_ready(m, m->events) | UV_READABLE);
		return;
	}
	report(m, ring_ready(m, m->events));
}

static int shm_arm(struct sd_stream *s, int events, sd_stream_cb cb, void *arg)
{
	struct shm_stream *m = shm_of(s);
	int r;

	SD_ASSERT_ENGINE();
	m->cb = cb;
	m->arg = arg;
	__atomic_store_n(&m->events, events, __ATOMIC_RELEASE);
	if (m->mode == SHM_TCP)
		return sd_tcp.arm(m->tcp, events, tcp_ready_cb, m);
	if (!m->handles_init) {
		m->poke.fn = poke_cb;
		uv_idle_init(sd_engine_loop(), &m->kick);
		m->kick.data = m;
		__atomic_store_n(&m->handles_init, true, __ATOMIC_RELEASE);
	}
	if (m->mode == SHM_PENDING) {
		/* TCP as asked (the ACCEPT going out), and the ring's RTU. */
		r = sd_tcp.arm(m->tcp, events | (events ? UV_READABLE : 0),
			       tcp_ready_cb, m);
		if (r == 0 && (events & UV_READABLE))
			kick_if_ready(m, UV_READABLE);
		return r;
	}
	if (events == 0) {
		__atomic_store_n(sd_shm_u32(m->rx_r, SD_SHM_R_ARMED), 0,
				 __ATOMIC_RELAXED);
		__atomic_store_n(sd_shm_u32(m->tx_w, SD_SHM_W_WAITING), 0,
				 __ATOMIC_RELAXED);
		uv_idle_stop(&m->kick);
		return sd_tcp.arm(m->tcp, 0, tcp_ready_cb, m);
	}
	if (!(events & UV_WRITABLE))
		__atomic_store_n(sd_shm_u32(m->tx_w, SD_SHM_W_WAITING), 0,
				 __ATOMIC_RELAXED);
	/*
	 * Not reading (parked: a consumer reads; or waiting for a receive):
	 * wake-up bytes are left to the consumer sleeping on them (wait_arm
	 * drains them), and TCP is only watched for its end.
	 */
	r = sd_tcp.arm(m->tcp, events & (UV_READABLE | UV_WRITABLE) ?
		       UV_READABLE | UV_DISCONNECT : UV_DISCONNECT,
		       tcp_ready_cb, m);
	if (r == 0)
		kick_if_ready(m, events);
	return r;
}

static int shm_wait_fd(const struct sd_stream *s)
{
	return sd_tcp.wait_fd(shm_of_c(s)->tcp);
}

/*
 * A consumer about to sleep: drains the wake-up bytes (else its poll
 * would not sleep), arms the ring it reads and looks at it once more.
 * The bytes drained may have been meant for the engine, armed for room
 * to write (a reader's bell carries no kind): then the engine is poked
 * to look again. The engine's events are read after the drain, so a
 * bell that answered an arming is always seen with that arming.
 */
static bool shm_wait_arm(struct sd_stream *s)
{
	struct shm_stream *m = shm_of(s);
	bool drained;

	if (m->mode != SHM_RING)
		return false;	/* TCP's readability says it all */
	drained = drain(m);
	if (drained && (__atomic_load_n(&m->events, __ATOMIC_ACQUIRE) &
			(UV_WRITABLE | UV_READABLE)) &&
	    __atomic_load_n(&m->handles_init, __ATOMIC_ACQUIRE))
		sd_engine_submit(&m->poke);
	__atomic_store_n(sd_shm_u32(m->rx_r, SD_SHM_R_ARMED), 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&m->err, __ATOMIC_RELAXED) != 0 ||
	       rx_avail(m) != 0 || rx_ended(m);
}

static bool shm_writable(struct sd_stream *s)
{
	struct shm_stream *m = shm_of(s);

	return m->mode == SHM_RING && tx_room(m) > 0;
}

static int shm_shutdown_wr(struct sd_stream *s)
{
	struct shm_stream *m = shm_of(s);

	if (m->mode == SHM_RING && !m->shut) {
		m->shut = true;
		sd_cma_conceal(&m->side);
		__atomic_store_n(sd_shm_u32(m->tx_w, SD_SHM_W_CLOSED), SD_SHM_END,
				 __ATOMIC_RELEASE);
	}
	/* TCP's end wakes the peer and tells it the same. */
	return sd_tcp.shutdown_wr(m->tcp);
}

static void shm_reset(struct sd_stream *s)
{
	struct shm_stream *m = shm_of(s);

	if (m->mode == SHM_RING) {
		m->shut = true;
		sd_cma_conceal(&m->side);
		__atomic_store_n(sd_shm_u32(m->tx_w, SD_SHM_W_CLOSED), SD_SHM_RESET,
				 __ATOMIC_RELEASE);
	}
	sd_tcp.reset(m->tcp);
}

/*
 * The peer may reach our memory from now on (cma.h): our block gets
 * where our grants are and our copy of its challenge, then "exposed".
 * Only on the rings, with one-sided RDMA wanted, and a table to show.
 */
static int shm_expose(struct sd_stream *s, const struct sd_tp_expose *x)
{
	struct shm_stream *m = shm_of(s);
	uint8_t *b = m->side.blk;

	if (x == NULL) {		/* the end: out of the peer's reach */
		if (m->base != NULL)
			sd_cma_conceal(&m->side);
		return 0;
	}
	if (m->mode != SHM_RING || m->shut || x->grants == 0 ||
	    sd_shm_policy() != SD_SHM_AUTO || m->side.listed)
		return -EOPNOTSUPP;
	m->echo = __atomic_load_n(sd_shm_u64(m->peer.blk, SD_SHM_S_CHALLENGE),
				  __ATOMIC_ACQUIRE);
	__atomic_store_n(sd_shm_u64(b, SD_SHM_S_ECHO), (uint64_t)(uintptr_t)&m->echo,
			 __ATOMIC_RELAXED);
	__atomic_store_n(sd_shm_u64(b, SD_SHM_S_GRANTS), x->grants, __ATOMIC_RELAXED);
	__atomic_store_n(sd_shm_u32(b, SD_SHM_S_SLOTS), x->slots, __ATOMIC_RELAXED);
	__atomic_store_n(sd_shm_u64(b, SD_SHM_S_PZ), x->pz, __ATOMIC_RELAXED);
	__atomic_store_n(sd_shm_u64(b, SD_SHM_S_EP), x->ep, __ATOMIC_RELAXED);
	m->side.peer_pid = __atomic_load_n(m->peer.pid_at, __ATOMIC_RELAXED);
	sd_cma_expose(&m->side);
	(void)prove_peer(m);	/* the listener: the requester is there */
	return 0;
}

/*
 * An RDMA write or read placed by us in the peer's memory, while the
 * connection is whole on both ends; anything else goes as a frame.
 */
static bool shm_peer_pulls(struct sd_stream *s)
{
	struct shm_stream *m = shm_of(s);

	/* Our side exposed too: its end is what stops the peer reading. */
	return m->mode == SHM_RING && m->side.listed &&
	       __atomic_load_n(sd_shm_u32(m->peer.blk, SD_SHM_S_PULLS),
			       __ATOMIC_ACQUIRE) == 1;
}

static bool shm_pulls(struct sd_stream *s)
{
	struct shm_stream *m = shm_of(s);

	return m->mode == SHM_RING && m->peer.state == 1;
}

static int shm_pull(struct sd_stream *s, const struct sd_tp_rdma *op)
{
	struct shm_stream *m = shm_of(s);

	if (m->mode != SHM_RING)
		return -EFAULT;
	return sd_cma_pull(&m->peer, op->local, op->n, op->len, op->addr);
}

static int shm_rdma(struct sd_stream *s, const struct sd_tp_rdma *op)
{
	struct shm_stream *m = shm_of(s);

	if (m->mode != SHM_RING || m->shut || !prove_peer(m) ||
	    __atomic_load_n(&m->err, __ATOMIC_RELAXED) != 0 || rx_ended(m))
		return -EAGAIN;
	return sd_cma_rdma(&m->peer, op->write, op->local, op->n, op->len,
			   op->rkey, op->addr);
}

static void closed_one(void *arg)
{
	struct shm_stream *m = arg;
	sd_closed_cb done = m->done;
	void *done_arg = m->done_arg;

	if (--m->handles > 0)
		return;
	free(m);
	if (done != NULL)
		done(done_arg);
}

static void kick_closed_cb(uv_handle_t *h)
{
	closed_one(h->data);
}

static void shm_close(struct sd_stream *s, sd_closed_cb done, void *arg)
{
	struct shm_stream *m = shm_of(s);

	drop_segment(m);
	m->done = done;
	m->done_arg = arg;
	m->handles = 1 + m->handles_init;
	if (m->handles_init) {
		sd_engine_cancel(&m->poke);
		uv_close((uv_handle_t *)&m->kick, kick_closed_cb);
	}
	sd_tcp.close(m->tcp, closed_one, m);
}

static int shm_connect_result(struct sd_stream *s)
{
	struct shm_stream *m = shm_of(s);
	int err = __atomic_load_n(&m->err, __ATOMIC_RELAXED);

	return err != 0 ? err : sd_tcp.connect_result(m->tcp);
}

static int shm_peer(const struct sd_stream *s, struct sockaddr_storage *local,
		    struct sockaddr_storage *remote)
{
	return sd_tcp.peer(shm_of_c(s)->tcp, local, remote);
}

static int shm_set_liveness(struct sd_stream *s, unsigned ms)
{
	/* A peer gone closes TCP; a host gone is not a same-host case. */
	return sd_tcp.set_liveness(shm_of(s)->tcp, ms);
}

/* Streams are made by sd_shm_offer and sd_shm_attach, never opened. */
static int shm_open_stub(struct sd_stream **s, const struct sockaddr *src,
			 socklen_t srclen, const struct sockaddr *dst,
			 socklen_t dstlen)
{
	(void)s, (void)src, (void)srclen, (void)dst, (void)dstlen;
	return -EOPNOTSUPP;
}

static int shm_connect_stub(struct sd_stream *s)
{
	(void)s;
	return -EOPNOTSUPP;
}

static int shm_listen_stub(struct sd_listener **l, const struct sockaddr *addr,
			   socklen_t len, struct sockaddr_storage *bound)
{
	(void)l, (void)addr, (void)len, (void)bound;
	return -EOPNOTSUPP;
}

static int shm_listen_start_stub(struct sd_listener *l, sd_listen_cb cb,
				 void *arg)
{
	(void)l, (void)cb, (void)arg;
	return -EOPNOTSUPP;
}

static int shm_accept_stub(struct sd_listener *l, struct sd_stream **s)
{
	(void)l, (void)s;
	return -EOPNOTSUPP;
}

static void shm_listen_stop_stub(struct sd_listener *l)
{
	(void)l;
}

static void shm_listen_close_stub(struct sd_listener *l, sd_closed_cb done,
				  void *arg)
{
	(void)l;
	if (done != NULL)
		done(arg);
}

const struct sd_transport sd_shm = {
	.name		= "shm",
	.open		= shm_open_stub,
	.connect	= shm_connect_stub,
	.connect_result	= shm_connect_result,
	.listen		= shm_listen_stub,
	.listen_start	= shm_listen_start_stub,
	.accept		= shm_accept_stub,
	.listen_stop	= shm_listen_stop_stub,
	.listen_close	= shm_listen_close_stub,
	.writev		= shm_writev,
	.readv		= shm_readv,
	.arm		= shm_arm,
	.wait_fd	= shm_wait_fd,
	.wait_arm	= shm_wait_arm,
	.writable	= shm_writable,
	.shutdown_wr	= shm_shutdown_wr,
	.close		= shm_close,
	.reset		= shm_reset,
	.expose		= shm_expose,
	.rdma		= shm_rdma,
	.peer_pulls	= shm_peer_pulls,
	.pulls		= shm_pulls,
	.pull		= shm_pull,
	.peer		= shm_peer,
	.set_liveness	= shm_set_liveness,
};
