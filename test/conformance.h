/*
 * conformance.h - the conformance matrix: Debian's unmodified DAT programs
 * (dapl2-utils 2.1.10) against our provider, in every mode their usage
 * text documents and the combinations consumers use. test-conformance.c
 * runs each row twice, as conformance_ours_NAME (our registry) and
 * conformance_ofed_NAME (OFED's); test-list.h lists them. No include
 * guard: included with different definitions of CONF.
 *
 *   CONF(name, kind, san, server args, client args, want, seconds)
 *
 * kind: how the program runs (test-conformance.c, enum conf_kind).
 * san: 1 if the row also runs in the ASan build (a subset, for time; no
 *   row runs under TSan, where provider_dapltest_tsan does).
 * server / client args: after the program's own (-s -P IA, -h host...),
 *   split at spaces; most modes are given to both sides, as a consumer
 *   runs them.
 * want: what the client's output (and for dtest, dtestcm, dtestsrq and
 *   dtestx the server's) must contain; NULL for the kind's own.
 * seconds: the row's timeout, for the whole run.
 *
 * Where the rows come from:
 *   dtest (print_usage): s u w W D t c a i v p d b B h P S U; each test
 *     kind (default, -u, -w, -W, -D, -W -a) waiting, polling (-p) and
 *     with a CNO (-c); the others alone and as consumers combine them.
 *   dtestx (print_usage): v p u U m b h c s P, and -q from its getopt.
 *   dtestcm (print_usage): s c v w d h P, and m u b p from its getopt.
 *   dtestsrq (print_usage): s c B t b v h P l q u S (l and q name an UCM
 *     peer, which IP providers have not).
 *   dapltest (its usage for -T T, P, L, F, S, Q and the man page): the
 *     reference's regression mixes (dapltest/scripts), -V, -P, -r, -R
 *     with each QoS, -f, threads and EPs, zero-length and multi-MiB
 *     multi-segment transfers; -T P with -m b|p and pipelines; every
 *     limit test; every feature set. -Q (CNO), in the man page, is
 *     refused by this dapltest ("Command line syntax error").
 */

/* ---- dtest: each test kind waiting, polling, with a CNO ---------- */
CONF(dtest,		DTEST, 1, "", "", NULL, 60)
CONF(dtest_p,		DTEST, 0, "-p", "-p", NULL, 60)
CONF(dtest_c,		DTEST, 0, "-c", "-c", NULL, 60)
CONF(dtest_u,		DTEST, 0, "-u", "-u", NULL, 60)
CONF(dtest_u_p,		DTEST, 0, "-u -p", "-u -p", NULL, 60)
CONF(dtest_u_c,		DTEST, 0, "-u -c", "-u -c", NULL, 60)
CONF(dtest_w,		DTEST, 1, "-w", "-w", NULL, 60)
CONF(dtest_w_p,		DTEST, 0, "-w -p", "-w -p", NULL, 60)
CONF(dtest_w_c,		DTEST, 0, "-w -c", "-w -c", NULL, 60)
CONF(dtest_W,		DTEST, 1, "-W", "-W", NULL, 60)
CONF(dtest_W_p,		DTEST, 0, "-W -p", "-W -p", NULL, 60)
CONF(dtest_W_c,		DTEST, 0, "-W -c", "-W -c", NULL, 60)
CONF(dtest_D,		DTEST, 0, "-D", "-D", NULL, 90)
CONF(dtest_D_p,		DTEST, 0, "-D -p", "-D -p", NULL, 90)
CONF(dtest_D_c,		DTEST, 0, "-D -c", "-D -c", NULL, 90)
/* RDMA write ping-pong over every size to 4 MiB, both sides spinning. */
CONF(dtest_W_a,		DTEST, 0, "-W -a", "-W -a", NULL, 150)
CONF(dtest_W_a_p,	DTEST, 0, "-W -a -p", "-W -a -p", NULL, 150)
CONF(dtest_W_a_c,	DTEST, 0, "-W -a -c", "-W -a -c", NULL, 150)
/* -i steps by 1 KiB; -b is its upper bound (the usage's words). */
CONF(dtest_W_i_a,	DTEST, 0, "-W -i 1024 -a -b 65536", "-W -i 1024 -a -b 65536", NULL, 150)
CONF(dtest_D_b,		DTEST, 0, "-D -b 65536", "-D -b 65536", NULL, 90)
CONF(dtest_t,		DTEST, 0, "-t", "-t", NULL, 60)
CONF(dtest_v,		DTEST, 0, "-v", "-v", NULL, 60)
CONF(dtest_d,		DTEST, 0, "-d 1", "-d 1", NULL, 60)
CONF(dtest_b_small,	DTEST, 0, "-b 64", "-b 64", NULL, 60)
CONF(dtest_b,		DTEST, 0, "-b 65536", "-b 65536", NULL, 60)
CONF(dtest_B,		DTEST, 0, "-B 100", "-B 100", NULL, 60)
CONF(dtest_S,		DTEST, 0, "-S 4", "-S 4", NULL, 60)
CONF(dtest_w_S_B,	DTEST, 0, "-w -S 16 -B 64", "-w -S 16 -B 64", NULL, 60)
CONF(dtest_u_p_B_b,	DTEST, 0, "-u -p -B 50 -b 8192", "-u -p -B 50 -b 8192", NULL, 60)
CONF(dtest_c_p,		DTEST, 0, "-c -p", "-c -p", NULL, 60)
/* Each side chooses its own way of waiting. */
CONF(dtest_mixed,	DTEST, 0, "-p", "-c", NULL, 60)

/* ---- dtestx: the IB extensions ------------------------------------ */
CONF(dtestx,		DTESTX, 0, "", "", "immed/atomic test PASSED", 60)
CONF(dtestx_p,		DTESTX, 0, "-p", "-p", "immed/atomic test PASSED", 60)
CONF(dtestx_v,		DTESTX, 0, "-v", "-v", "immed/atomic test PASSED", 60)
CONF(dtestx_b,		DTESTX, 0, "-b 65536", "-b 65536", "immed/atomic test PASSED", 60)
CONF(dtestx_u,		DTESTX, 0, "-u", "-u", "UD test PASSED", 60)
CONF(dtestx_u_p,	DTESTX, 0, "-u -p", "-u -p", "UD test PASSED", 60)
CONF(dtestx_u_b,	DTESTX, 0, "-u -b 1024", "-u -b 1024", "UD test PASSED", 60)
CONF(dtestx_U,		DTESTX, 0, "-U 8", "-U 8", "UD test PASSED", 60)
CONF(dtestx_U_m,	DTESTX, 0, "-U 8 -m", "-U 8 -m", "UD test PASSED", 60)
CONF(dtestx_u_m,	DTESTX, 0, "-u -m", "-u -m", "UD test PASSED", 60)
CONF(dtestx_q,		DTESTX_Q, 0, "", "-q", "DAT_IB_UD=TRUE", 30)

/* ---- dtestcm: connection setup ------------------------------------ */
CONF(dtestcm,		DTESTCM, 1, "", "", NULL, 120)
CONF(dtestcm_w,		DTESTCM, 0, "-w", "-w", NULL, 120)
CONF(dtestcm_c50_w,	DTESTCM, 0, "-c 50 -w", "-c 50 -w", NULL, 60)
CONF(dtestcm_c10_v,	DTESTCM, 0, "-c 10 -v", "-c 10 -v", NULL, 60)
CONF(dtestcm_d,		DTESTCM, 0, "-c 10 -d 1", "-c 10 -d 1", NULL, 60)
CONF(dtestcm_b,		DTESTCM, 0, "-c 200 -b 20", "-c 200 -b 20", NULL, 60)
CONF(dtestcm_b_w,	DTESTCM, 0, "-c 200 -b 20 -w", "-c 200 -b 20 -w", NULL, 60)
CONF(dtestcm_m,		DTESTCM, 0, "-c 100 -b 5 -m", "-c 100 -b 5 -m", NULL, 60)
CONF(dtestcm_m_w,	DTESTCM, 0, "-c 100 -b 5 -m -w", "-c 100 -b 5 -m -w", NULL, 60)
CONF(dtestcm_u,		DTESTCM, 0, "-u -c 100", "-u -c 100", NULL, 60)
CONF(dtestcm_u_w,	DTESTCM, 0, "-u -c 100 -w", "-u -c 100 -w", NULL, 60)

/* ---- dtestsrq: shared receive queues ------------------------------ */
CONF(dtestsrq,		DTESTSRQ, 1, "", "", NULL, 60)
CONF(dtestsrq_v,	DTESTSRQ, 0, "-v", "-v", NULL, 60)
CONF(dtestsrq_b,	DTESTSRQ, 1, "-b 2048", "-b 2048", NULL, 60)
CONF(dtestsrq_b_big,	DTESTSRQ, 0, "-b 1048576 -B 4", "-b 1048576 -B 4", NULL, 60)
CONF(dtestsrq_c_B,	DTESTSRQ, 1, "-c 8 -B 20", "-c 8 -B 20", NULL, 60)
CONF(dtestsrq_c_B_t,	DTESTSRQ, 0, "-c 4 -B 50 -t 10", "-c 4 -B 50 -t 10", NULL, 60)
CONF(dtestsrq_c100,	DTESTSRQ, 1, "-c 100 -B 2", "-c 100 -B 2", NULL, 60)
CONF(dtestsrq_B100,	DTESTSRQ, 0, "-B 100 -t 20", "-B 100 -t 20", NULL, 60)
CONF(dtestsrq_S0,	DTESTSRQ, 0, "-S 0", "-S 0", NULL, 60)
CONF(dtestsrq_S0_c_B,	DTESTSRQ, 0, "-S 0 -c 8 -B 20", "-S 0 -c 8 -B 20", NULL, 60)
CONF(dtestsrq_u,	DTESTSRQ, 0, "-u", "-u", NULL, 60)
CONF(dtestsrq_u_b,	DTESTSRQ, 0, "-u -b 512", "-u -b 512", NULL, 60)
CONF(dtestsrq_u_c_B,	DTESTSRQ, 0, "-u -c 16 -B 4 -t 5", "-u -c 16 -B 4 -t 5", NULL, 60)
CONF(dtestsrq_u_S0,	DTESTSRQ, 0, "-u -S 0", "-u -S 0", NULL, 60)
CONF(dtestsrq_u_S0_c_B,	DTESTSRQ, 0, "-u -S 0 -c 8 -B 10", "-u -S 0 -c 8 -B 10", NULL, 60)

/* ---- dapltest -T T: transactions, against dapltest -T S ----------- */
/* The reference's regression mixes (regress.sh, cl.sh). */
CONF(dapltest_T_sr,	DAPL_T, 1, "", "-i 1000 -t 1 -w 1 client SR 256 server SR 256", NULL, 120)
CONF(dapltest_T_rw,	DAPL_T, 1, "", "-i 1000 -t 1 -w 1 client SR 256 server RW 4096 server SR 256", NULL, 120)
CONF(dapltest_T_rr,	DAPL_T, 1, "", "-i 1000 -t 1 -w 1 client SR 256 server RR 4096 server SR 256", NULL, 120)
CONF(dapltest_T_mix,	DAPL_T, 0, "", "-i 1000 -t 1 -w 1 client SR 256 server RW 4096 server SR 256 client SR 256 server RW 4096 server SR 256 client SR 4096 server SR 256", NULL, 120)
CONF(dapltest_T_w8,	DAPL_T, 0, "", "-i 1000 -t 1 -w 8 client SR 256 server RW 4096 server SR 256 client SR 256 server RW 4096 server SR 256 client SR 4096 server SR 256", NULL, 120)
CONF(dapltest_T_t4_w8,	DAPL_T, 1, "", "-i 500 -t 4 -w 8 client SR 256 server RW 4096 server SR 256 client SR 256 server RW 4096 server SR 256 client SR 4096 server SR 256", NULL, 180)
CONF(dapltest_T_t8,	DAPL_T, 0, "", "-i 500 -t 8 -w 1 client SR 1024 server RW 4096 server SR 1024 client RR 4096 server SR 256", NULL, 180)
/* -V validates every byte; -f reaps sends on receives. */
CONF(dapltest_T_V,	DAPL_T, 1, "", "-V -i 1000 -t 2 -w 2 client RW 4096 1 server RW 2048 4 client RR 1024 2 server RR 2048 2 client SR 1024 3 -f server SR 256 3 -f", NULL, 120)
CONF(dapltest_T_V_seg,	DAPL_T, 0, "", "-V -i 500 -t 2 -w 4 client SR 1024 4 server SR 1024 4 client RW 4096 2 server RW 4096 2 client RR 4096 2 server RR 4096 2 client SR 256 1 server SR 256 1", NULL, 120)
/* -P polls for completions. */
CONF(dapltest_T_P,	DAPL_T, 0, "", "-P -i 1000 -t 2 -w 2 client RW 4096 1 server RW 2048 4 client RR 1024 2 server RR 2048 2 client SR 1024 3 -f server SR 256 3 -f", NULL, 120)
CONF(dapltest_T_P_V,	DAPL_T, 0, "", "-P -V -i 500 -t 2 -w 2 client SR 4096 2 server RW 8192 2 server RR 8192 2 server SR 4096 2", NULL, 120)
/* -r: the server accepts through RSPs. */
CONF(dapltest_T_r,	DAPL_T, 0, "", "-r -i 1000 -t 2 -w 2 client SR 256 server RW 4096 server SR 256 client RR 4096 server SR 256", NULL, 120)
/* -R: each QoS the usage lists. */
CONF(dapltest_T_R_HT,	DAPL_T, 0, "", "-R HT -i 500 client SR 256 server RW 4096 server SR 256", NULL, 120)
CONF(dapltest_T_R_LL,	DAPL_T, 0, "", "-R LL -i 500 client SR 256 server RW 4096 server SR 256", NULL, 120)
CONF(dapltest_T_R_EC,	DAPL_T, 0, "", "-R EC -i 500 client SR 256 server RW 4096 server SR 256", NULL, 120)
CONF(dapltest_T_R_PM,	DAPL_T, 0, "", "-R PM -i 500 client SR 256 server RW 4096 server SR 256", NULL, 120)
CONF(dapltest_T_R_BE,	DAPL_T, 0, "", "-R BE -i 500 client SR 256 server RW 4096 server SR 256", NULL, 120)
/* Zero-length transfers; multi-MiB, multi-segment ones, validated. */
CONF(dapltest_T_zero,	DAPL_T, 0, "", "-i 1000 client SR 0 server SR 0 client RW 0 server RR 0", NULL, 120)
CONF(dapltest_T_big,	DAPL_T, 0, "", "-V -i 20 -t 2 client SR 4194304 4 server RW 2097152 8 client RR 1048576 16 server SR 4194304 1", NULL, 180)
CONF(dapltest_T_d,	DAPL_T, 0, "", "-d -i 100 client SR 256 server SR 256", NULL, 120)

/* ---- dapltest -T P: performance ----------------------------------- */
CONF(dapltest_P_rw_p,	DAPL_P, 1, "", "-i 2000 -p 16 -m p RW 65536 2", "Throughput", 120)
CONF(dapltest_P_rr_b,	DAPL_P, 1, "", "-i 2000 -p 16 -m b RR 65536 2", "Throughput", 120)
CONF(dapltest_P_rw_b_1,	DAPL_P, 0, "", "-i 2000 -p 1 -m b RW 4096", "Throughput", 120)
CONF(dapltest_P_rr_p_64,	DAPL_P, 0, "", "-i 5000 -p 64 -m p RR 8192 4", "Throughput", 120)
CONF(dapltest_P_rw_p_1,	DAPL_P, 0, "", "-i 5000 -p 1 -m p RW 8", "Throughput", 120)
CONF(dapltest_P_rr_b_big,	DAPL_P, 0, "", "-i 200 -p 4 -m b RR 1048576 4", "Throughput", 120)
CONF(dapltest_P_R_LL,	DAPL_P, 0, "", "-R LL -i 2000 -p 8 RW 4096", "Throughput", 120)

/* ---- dapltest -T L: every limit test ------------------------------ */
CONF(dapltest_L_ia,	DAPL_L, 1, "", "-w 8 -m 100 limit_ia", NULL, 120)
CONF(dapltest_L_pz,	DAPL_L, 1, "", "-w 8 -m 100 limit_pz", NULL, 120)
CONF(dapltest_L_cno,	DAPL_L, 1, "", "-w 8 -m 100 limit_cno", NULL, 120)
CONF(dapltest_L_evd,	DAPL_L, 1, "", "-w 8 -m 100 limit_evd", NULL, 120)
CONF(dapltest_L_ep,	DAPL_L, 1, "", "-w 8 -m 100 limit_ep", NULL, 120)
CONF(dapltest_L_rsp,	DAPL_L, 1, "", "-w 8 -m 100 limit_rsp", NULL, 120)
CONF(dapltest_L_psp,	DAPL_L, 1, "", "-w 8 -m 100 limit_psp", NULL, 120)
CONF(dapltest_L_lmr,	DAPL_L, 1, "", "-w 8 -m 100 limit_lmr", NULL, 120)
CONF(dapltest_L_rpost,	DAPL_L, 1, "", "-w 8 -m 100 limit_rpost", NULL, 120)
CONF(dapltest_L_size_lmr,	DAPL_L, 1, "", "-w 8 -m 100 limit_size_lmr", NULL, 120)
CONF(dapltest_L_all,	DAPL_L, 0, "", "", NULL, 300)

/* ---- dapltest -T F: every feature set ----------------------------- */
CONF(dapltest_F_hwconn,	DAPL_F, 1, "", "hwconn", NULL, 120)
CONF(dapltest_F_endpoint,	DAPL_F, 0, "", "endpoint", NULL, 120)
CONF(dapltest_F_pz,	DAPL_F, 1, "", "pz", NULL, 120)
CONF(dapltest_F_mem,	DAPL_F, 1, "", "mem", NULL, 120)
CONF(dapltest_F_connmgt,	DAPL_F, 1, "", "connmgt", NULL, 120)
CONF(dapltest_F_queryinfo,	DAPL_F, 1, "", "queryinfo", NULL, 120)
