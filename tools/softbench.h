/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softbench: softdapl against raw TCP, measured by one DAT consumer.
 *
 * Two processes, a server and a client, talk over three connections:
 *
 *   control   TCP; the client sends one command per measurement point and
 *             the two sides step through its runs with one byte each way
 *             (READY from the server when it is prepared, DONE from the
 *             client when the run is over), then the server replies;
 *   DAT       one endpoint pair (softdapl), connected once, for the data
 *             transfer tests; connection tests make their own;
 *   TCP       one plain TCP connection, connected once, for the baselines.
 *
 * The client times everything; the server's part of a run is the other half
 * of a ping-pong, the receiver of a stream, or nothing (RDMA reads and
 * writes need no CPU on the target, only its engine thread).
 *
 * The provider reads SOFTDAPL_TRANSPORT once per process, so each transport
 * that softdapl is measured over has a client and a server of its own: the
 * main process forks one agent per transport (the client of one session,
 * which over loopback forks its server), runs the plan and hands each
 * command to the agent of the transport it measures; raw TCP runs in the
 * first agent's session.
 *
 * Files: softbench.c (options, dat.conf), softbench-agent.c (the agents,
 * their servers), softbench-run.c (the plan: tests, sizes, calibration,
 * progress), softbench-report.c (statistics, table, CSV, plot),
 * softbench-ctl.c (the control channel and the server's loop),
 * softbench-dat.c and softbench-tcp.c (each test, both roles),
 * softbench-scale.c (connection rate, many endpoints, idle CPU),
 * softbench-fi.c (fi_pingpong, the third reference), softbench-util.c
 * (clock, errors, sockets, /proc).
 *
 * The control messages are raw structs: both hosts must share byte order
 * and ABI (x86-64 in practice); the magic catches a mismatch.
 */
#ifndef SOFTBENCH_H
#define SOFTBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <dat2/udat.h>

#include "dat-names.h"

#define SB_MAGIC	0x53424e31u	/* "SBN1" */
#define SB_MAX_SIZE	(4u << 20)	/* largest message: 4 MiB */
#define SB_TIMEOUT_S	60		/* any single wait longer than this is fatal */
#define SB_MAX_RUNS	63		/* runs per command (--reps) */
#define SB_MAX_TRANSPORTS 3		/* auto, copy, tcp */

/* The tests, in the order they run (names: softbench-run.c). */
enum sb_test {
	SB_SEND_LAT,	/* send/recv ping-pong */
	SB_WRITE_LAT,	/* RDMA write ping-pong, the target polls its memory */
	SB_READ_LAT,	/* one RDMA read at a time */
	SB_SEND_BW,	/* streaming sends, a window of posts outstanding */
	SB_WRITE_BW,
	SB_READ_BW,
	SB_MSG_RATE,	/* 64-byte sends, a window of posts outstanding */
	SB_CONN_RATE,	/* connect + accept + established, one at a time */
	SB_EP_SETUP,	/* many endpoint pairs: connect them all */
	SB_EP_BW,	/* ... write over all of them at once */
	SB_EP_DOWN,	/* ... disconnect and free them (not a row) */
	SB_IDLE_CPU,	/* a process blocked in dat_evd_wait */
	SB_NTESTS,
	SB_QUIT = 100	/* control only: the session is over */
};

/* What carries the data of a run. */
enum sb_impl {
	SB_DAT,		/* softdapl, through the DAT API */
	SB_TCP,		/* raw TCP, one send() per message */
	SB_TCP_BATCH,	/* raw TCP, SB_BATCH messages per writev() */
	SB_NIMPLS
};

#define SB_BATCH	64

/* How a side waits for what it expects. */
enum sb_mode {
	SB_POLL,	/* dat_evd_dequeue / recv(MSG_DONTWAIT) in a loop */
	SB_BLOCK,	/* dat_evd_wait / blocking recv */
};

/* One command: a measurement point of @runs runs (control wire format). */
struct sb_cmd {
	uint32_t magic;
	uint32_t test;		/* enum sb_test or SB_QUIT */
	uint32_t impl;		/* enum sb_impl */
	uint32_t mode;		/* enum sb_mode */
	uint64_t size;		/* bytes per message */
	uint64_t iters;		/* messages, round trips or connections per run */
	uint32_t window;	/* posts outstanding (streams), or EPs */
	uint32_t runs;
};

/* The server's answer once every run of a command is over. */
struct sb_reply {
	uint32_t magic;
	uint32_t status;	/* 0 */
	double value;		/* a figure only the server can measure, or 0 */
};

/* What the server tells the client at the start (control wire format). */
struct sb_hello {
	uint32_t magic;
	uint32_t dat_port;	/* conn_qual of the server's PSP */
	uint32_t tcp_port;	/* the raw TCP listener */
	uint32_t max_size;	/* bytes in each half of its buffer */
	DAT_RMR_TRIPLET rmr;	/* its whole buffer: tx half, then rx half */
};

/* The DAT side of one process. */
struct sb_dat {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE async_evd;
	DAT_EVD_HANDLE req_evd;		/* send, write and read completions */
	DAT_EVD_HANDLE recv_evd;	/* receive completions */
	DAT_EVD_HANDLE conn_evd;	/* connection events of the main EP */
	DAT_EVD_HANDLE cr_evd;		/* server: connection requests */
	DAT_PSP_HANDLE psp;		/* server: the service point */
	DAT_CONN_QUAL port;		/* the server's PSP qualifier */
	DAT_EP_HANDLE ep;		/* the main endpoint */
	DAT_EP_ATTR attr;		/* of the main endpoint */
	DAT_LMR_HANDLE lmr;
	DAT_RMR_CONTEXT rctx;		/* what the peer names buf by */
	DAT_LMR_TRIPLET tx, rx;		/* the two halves of buf */
	DAT_RMR_TRIPLET peer_tx, peer_rx; /* the peer's, from its hello */
	unsigned char *buf;		/* 2 * max_size bytes, page aligned */
	size_t max_size;
	int outstanding;		/* requests on ep not yet reaped */
	/* conn-rate: connection events of its short-lived EPs */
	DAT_EVD_HANDLE c_conn_evd;
	/* ep-setup, ep-bw, ep-down: many EPs, their EVDs */
	DAT_EVD_HANDLE m_conn_evd, m_req_evd;
	DAT_EP_HANDLE *many;
	uint64_t *many_count;		/* client: writes posted on each */
	uint32_t nmany;
	double rss_per_ep;		/* client: bytes, measured by ep-setup */
};

/* The TCP side of one process. */
struct sb_tcp {
	int fd;			/* the data connection */
	int lfd;		/* server: the listener */
	int port;		/* the listener's port */
	int *many;		/* ep-setup's connections */
	uint32_t nmany;
	double rss_per_conn;	/* client: bytes, measured by ep-setup */
	unsigned char *buf;	/* 2 * SB_MAX_SIZE bytes: tx half, rx half */
};

/* Everything one process holds for the session. */
struct sb_ctx {
	bool server;
	bool loopback;			/* both processes forked here */
	int ctl;			/* the control connection */
	struct sockaddr_storage peer;	/* the server's address (client) */
	socklen_t peer_len;
	const char *ia_name;
	struct sb_dat dat;
	struct sb_tcp tcp;
	double last_value;		/* the reply to the last command */
	double client_idle;		/* idle-cpu: the client's own, in % */
};

/*
 * One role of one test. Client functions return the time the run took, in
 * seconds (a connection test returns the sum of its connection times), after
 * sb_ctl_wait_ready(); server functions prepare, call sb_ctl_ready(), serve,
 * and return a figure for the reply (or 0).
 */
typedef double sb_run_fn(struct sb_ctx *c, const struct sb_cmd *cmd);

/* softbench-util.c */
#define SB_PRINTF(a, b) __attribute__((format(printf, a, b)))
extern const char *sb_role;	/* "client" or "server", for messages */
void sb_die(const char *fmt, ...) SB_PRINTF(1, 2) __attribute__((noreturn));
void sb_check(DAT_RETURN r, const char *what);
double sb_now(void);
void sb_deadline_check(double start, uint64_t *spins, const char *what);
long sb_rss_bytes(void);
double sb_cpu_seconds(void);
double sb_cpu_with_children(void);
int sb_machine_cpu(double *busy, double *total);
void sb_sleep(double seconds);
void sb_set_port(struct sockaddr_storage *ss, int port);
int sb_tcp_listen(const struct sockaddr *addr, socklen_t len, int port);
int sb_tcp_port(int fd);
int sb_tcp_connect(const struct sockaddr *addr, socklen_t len, int port);
void sb_tcp_nodelay(int fd);
void sb_send_all(int fd, const void *buf, size_t len, enum sb_mode mode);
void sb_recv_all(int fd, void *buf, size_t len, enum sb_mode mode);
size_t sb_recv_some(int fd, void *buf, size_t len, enum sb_mode mode);
const char *sb_size_str(uint64_t size, char *buf, size_t len);
bool sb_find_program(const char *name);

/* softbench-ctl.c */
void sb_ctl_ready(struct sb_ctx *c);
void sb_ctl_wait_ready(struct sb_ctx *c);
void sb_client_start(struct sb_ctx *c);
int sb_run_command(struct sb_ctx *c, const struct sb_cmd *cmd, double *samples);
void sb_client_quit(struct sb_ctx *c);
void sb_serve(struct sb_ctx *c, int ctl_port, int ready_fd);

/* softbench-dat.c */
void sb_dat_open(struct sb_ctx *c);
void sb_dat_connect(struct sb_ctx *c);
void sb_dat_close(struct sb_ctx *c);
void sb_dat_hello(const struct sb_dat *d, struct sb_hello *h);
void sb_dat_peer(struct sb_dat *d, const struct sb_hello *h);
void sb_dat_wait(DAT_EVD_HANDLE evd, enum sb_mode mode, DAT_EVENT *e);
void sb_dat_expect(DAT_EVD_HANDLE evd, enum sb_mode mode,
		   DAT_EVENT_NUMBER number, DAT_EVENT *e);
void sb_dat_post_recv(struct sb_dat *d, DAT_EP_HANDLE ep, size_t size);
void sb_dat_post_send(struct sb_dat *d, DAT_EP_HANDLE ep, size_t size);
void sb_dat_post_write(struct sb_dat *d, DAT_EP_HANDLE ep, size_t size,
		       uint64_t cookie);
void sb_dat_reap(struct sb_dat *d, enum sb_mode mode, int keep);
sb_run_fn sb_dat_client_send_lat, sb_dat_server_send_lat;
sb_run_fn sb_dat_client_write_lat, sb_dat_server_write_lat;
sb_run_fn sb_dat_client_read_lat;
sb_run_fn sb_dat_client_stream, sb_dat_server_stream;

/* softbench-tcp.c */
void sb_tcp_open(struct sb_ctx *c);
void sb_tcp_accept(struct sb_ctx *c);
void sb_tcp_connect_data(struct sb_ctx *c, int port);
void sb_tcp_close(struct sb_ctx *c);
sb_run_fn sb_tcp_client_pingpong, sb_tcp_server_pingpong;
sb_run_fn sb_tcp_client_read_lat, sb_tcp_server_read_lat;
sb_run_fn sb_tcp_client_stream, sb_tcp_server_stream;
sb_run_fn sb_tcp_client_read_bw, sb_tcp_server_read_bw;

/* softbench-scale.c */
sb_run_fn sb_dat_client_conn_rate, sb_dat_server_conn_rate;
sb_run_fn sb_tcp_client_conn_rate, sb_tcp_server_conn_rate;
sb_run_fn sb_dat_client_ep_setup, sb_dat_server_ep_setup;
sb_run_fn sb_dat_client_ep_bw, sb_dat_server_ep_bw;
sb_run_fn sb_dat_client_ep_down, sb_dat_server_ep_down;
sb_run_fn sb_tcp_client_ep_setup, sb_tcp_server_ep_setup;
sb_run_fn sb_tcp_client_ep_bw, sb_tcp_server_ep_bw;
sb_run_fn sb_tcp_client_ep_down, sb_tcp_server_ep_down;
sb_run_fn sb_dat_client_idle, sb_dat_server_idle;
sb_run_fn sb_tcp_client_idle, sb_tcp_server_idle;

/* fi_pingpong's column, for the send-lat poll rows (softbench-fi.c). */
enum sb_fi {
	SB_FI_NONE,	/* the plan has no such row */
	SB_FI_RUN,	/* measured beside softdapl and raw TCP */
	SB_FI_MISSING,	/* not installed: n/a */
	SB_FI_REMOTE,	/* two hosts: n/a (it runs over loopback only) */
};

/* softbench-run.c: the client's plan. */
struct sb_opts {
	const char *ia_name;
	const char *only;	/* comma-separated test names, or NULL */
	const char *csv;	/* file, or NULL */
	const char *plot;	/* file, or NULL */
	const char *cmdline;	/* as typed, for the report */
	/* What softdapl's connections use (SOFTDAPL_TRANSPORT), one column each. */
	const char *transports[SB_MAX_TRANSPORTS];
	int ntransports;
	uint64_t sizes[32];
	int nsizes;
	int reps;
	int modes;		/* bit 1 << SB_POLL, 1 << SB_BLOCK */
	uint32_t window;	/* streams */
	uint32_t rate_window;	/* message rate */
	uint32_t eps;		/* endpoint pairs for the SB_EP_* tests */
	double idle_s;		/* seconds for SB_IDLE_CPU */
	double target_s;	/* how long one run should take */
	uint64_t iters;		/* fixed iterations per run (no calibration), or 0 */
	bool quick;
	bool progress;		/* stderr is a terminal */
	enum sb_fi fi;
};

/* What one command gave: each run's time and the figures beside them. */
struct sb_result {
	double t[SB_MAX_RUNS];	/* seconds, one per run */
	double server_value;	/* the server's reply (struct sb_reply) */
	double client_idle;	/* idle-cpu: the client's own, in % */
	double rss_per_ep;	/* ep-setup: the client's bytes per EP (TCP: per connection) */
};

/* softbench-agent.c: one client session in a process of its own. */
struct sb_agent {
	pid_t pid;
	int fd;			/* the main process's end of their socketpair */
	const char *transport;	/* its SOFTDAPL_TRANSPORT */
};

void sb_agent_start(struct sb_agent *agents, int i, const struct sb_ctx *tmpl,
		    const char *transport, int port);
void sb_agent_run(struct sb_agent *a, const struct sb_cmd *cmd,
		  struct sb_result *res);
void sb_agent_stop(struct sb_agent *a);

int sb_test_by_name(const char *name);
bool sb_plan_has_fi(const struct sb_opts *o);
struct sb_row;
struct sb_row *sb_run_plan(struct sb_agent *agents, const struct sb_opts *o,
			   int *nrows);

/* softbench-report.c: one row per measured point. */
struct sb_stats {
	double median, min, max;
	int n;			/* 0: not measured */
};

/* softdapl over one transport, in one row. */
struct sb_col {
	struct sb_stats s;
	uint64_t iters;		/* per run */
	char note[128];		/* for the CSV, after the row's */
};

struct sb_row {
	char test[24];
	char mode[8];
	uint64_t size;		/* 0 when the test has none */
	const char *unit;
	bool lower_better;
	struct sb_col dat[SB_MAX_TRANSPORTS];	/* as o->transports[] */
	struct sb_stats tcp;
	bool fi_row;		/* send-lat poll: fi_pingpong's column applies */
	struct sb_stats fi;	/* its one-way microseconds; n == 0: n/a */
	char note[256];		/* for the CSV */
};

/* softbench-fi.c */
enum sb_fi sb_fi_probe(bool loopback);
void sb_fi_kill(void);
void sb_fi_measure(const struct sb_opts *o, uint64_t size, uint64_t iters,
		   struct sb_stats *s);

void sb_stats_of(double *v, int n, struct sb_stats *s);
double sb_ratio(const struct sb_row *r, int i);
void sb_report_header(const struct sb_opts *o, const char *where);
void sb_report_row(const struct sb_opts *o, const struct sb_row *r);
int sb_report_files(const struct sb_opts *o, const struct sb_row *rows, int n);

#endif
