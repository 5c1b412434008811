/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's memory objects, unit-tested: PZs, LMRs and RMRs, the
 * contexts and the checks the data path makes (sd_mem_resolve_local,
 * sd_mem_resolve_remote with no EP-scope RMR), called directly.
 *
 * provider/lmr.o, pz.o, rmr.o, ctx.o, mem.o and obj.o are linked into
 * run-tests (TEST_LINK_OBJS), as the registry's parser is. They need two functions
 * of ia.c, defined here for an IA built by hand (unit_ia): the rest of
 * ia.c (engine, async EVD) has no place in a unit test. Tests of the whole
 * provider through the registry are in test-provider-ia.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../provider/api.h"
#include "../provider/entry.h"
#include "../provider/ia.h"
#include "../provider/mem.h"
#include "../provider/obj.h"
#include "../provider/qp.h"
#include "../provider/util.h"
#include "test.h"

#define ERR(type, sub) (DAT_CLASS_ERROR | (type) | (sub))

/*
 * The EP's half of dat_rmr_bind (qp.c), which needs an EP: there is none
 * here, so dat_rmr_bind refuses every EP handle before it gets this far
 * (binds are tested over connections in test-provider-mem2.c).
 */
int sd_qp_post_bind(struct sd_ep *ep, const struct sd_bind *b,
		    DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags,
		    DAT_RMR_CONTEXT *ctx, DAT_EP_STATE *state)
{
	(void)ep, (void)b, (void)cookie, (void)flags, (void)ctx, (void)state;
	abort();
}

static DAT_PROVIDER unit_table = { .device_name = "unit" };

/* An IA as ia_open leaves it, without address, engine or async EVD. */
static struct sd_ia *unit_ia(void)
{
	struct sd_ia *ia = calloc(1, sizeof(*ia));

	ASSERT_NOT_NULL(ia);
	ia->obj.provider = &unit_table;
	sd_obj_init(&ia->obj, ia, SD_MAGIC_IA, DAT_HANDLE_TYPE_IA);
	pthread_mutex_init(&ia->lock, NULL);
	sd_list_init(&ia->pzs);
	sd_list_init(&ia->lmrs);
	sd_list_init(&ia->rmrs);
	sd_list_init(&ia->evds);
	sd_list_init(&ia->cnos);
	sd_list_init(&ia->eps);
	sd_list_init(&ia->psps);
	sd_list_init(&ia->rsps);
	sd_list_init(&ia->crs);
	sd_list_init(&ia->srqs);
	ASSERT_OK(sd_ctx_init(ia));
	return ia;
}

/* Every object must be gone: a test frees what it made. */
static void unit_ia_free(struct sd_ia *ia)
{
	ASSERT(sd_list_empty(&ia->pzs));
	ASSERT(sd_list_empty(&ia->lmrs));
	ASSERT(sd_list_empty(&ia->rmrs));
	free(ia->ctx_table);
	pthread_mutex_destroy(&ia->lock);
	free(ia);
}

static struct sd_pz *unit_pz(struct sd_ia *ia)
{
	DAT_PZ_HANDLE pz;

	ASSERT_OK(sd_pz_create(ia, &pz));
	return pz;
}

/* An LMR over [buf, buf + len) with @priv. */
static struct sd_lmr *unit_lmr(struct sd_ia *ia, struct sd_pz *pz, void *buf,
			       DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv)
{
	DAT_REGION_DESCRIPTION r = { .for_va = buf };
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN rlen;
	DAT_VADDR raddr;

	ASSERT_OK(sd_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, len, pz, priv,
				DAT_VA_TYPE_VA, &lmr, &lc, &rc, &rlen, &raddr));
	ASSERT_UINT64_EQ(rlen, len);
	ASSERT_UINT64_EQ(raddr, (uintptr_t)buf);
	ASSERT_EQ(lc, ((struct sd_lmr *)lmr)->lmr_context);
	ASSERT_EQ(rc, ((struct sd_lmr *)lmr)->rmr_context);
	return lmr;
}

static DAT_RETURN resolve(struct sd_ia *ia, struct sd_pz *pz, uint64_t va,
			  uint32_t len, DAT_LMR_CONTEXT ctx,
			  DAT_MEM_PRIV_FLAGS need, struct sd_sge *sge)
{
	DAT_LMR_TRIPLET t = { .virtual_address = va, .segment_length = len,
			      .lmr_context = ctx };

	/* As a post sees it: the segment list is its third argument. */
	return sd_api_err(sd_mem_resolve_local(ia, pz, &t, need, sge),
			  &(struct sd_argpos){
				.count = DAT_INVALID_ARG2, .iov = DAT_INVALID_ARG3,
				.write = need & DAT_MEM_PRIV_LOCAL_WRITE_FLAG });
}

TEST_IMPL(provider_mem_pz)
{
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia);
	DAT_PZ_HANDLE pzh;
	DAT_PZ_PARAM param;
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_HANDLE lmr;
	DAT_RMR_HANDLE rmr;
	char buf[64];

	ASSERT_DAT_EQ(sd_pz_create(NULL, &pzh),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	ASSERT_DAT_EQ(sd_pz_create(ia, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	ASSERT_OK(sd_pz_query(pz, DAT_PZ_FIELD_ALL, &param));
	ASSERT_PTR_EQ(param.ia_handle, ia);
	ASSERT_DAT_EQ(sd_pz_query(pz, 0x2, &param),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(sd_pz_query(pz, DAT_PZ_FIELD_ALL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(sd_pz_query(ia, DAT_PZ_FIELD_ALL, &param),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	ASSERT_DAT_EQ(sd_pz_free((DAT_PZ_HANDLE)(uintptr_t)0x10),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));

	/* In use by an LMR, then by an RMR. */
	r.for_va = buf;
	ASSERT_OK(sd_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, sizeof(buf), pz,
				DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr,
				NULL, NULL, NULL, NULL));
	ASSERT_DAT_EQ(sd_pz_free(pz),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE));
	ASSERT_OK(sd_lmr_free(lmr));
	ASSERT_OK(sd_rmr_create(pz, &rmr));
	ASSERT_DAT_EQ(sd_pz_free(pz),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE));
	ASSERT_OK(sd_rmr_free(rmr));
	ASSERT_OK(sd_pz_free(pz));
	unit_ia_free(ia);
	return 0;
}

TEST_IMPL(provider_mem_lmr_create_errors)
{
	struct sd_ia *ia = unit_ia(), *ia2 = unit_ia();
	struct sd_pz *pz = unit_pz(ia), *pz2 = unit_pz(ia2);
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_HANDLE lmr;
	/* Zeroed: it also stands for a handle that is not an LMR, whose
	 * magic number the provider reads (memcheck). */
	char buf[256] = { 0 };
	char *hole;
	long page = sysconf(_SC_PAGESIZE);

#define CREATE(ia_, type, va, len, pz_, priv, vat, out)			\
	(r.for_va = (va), sd_lmr_create((ia_), (type), r, (len), (pz_),	\
					(priv), (vat), (out), NULL, NULL,	\
					NULL, NULL))

	ASSERT_DAT_EQ(CREATE(NULL, DAT_MEM_TYPE_VIRTUAL, buf, 1, pz, 0x33,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	/* Not an LMR to make one over (the other types: test-provider-mem2.c). */
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_LMR, buf, 1, pz, 0x33,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	ASSERT_DAT_EQ(CREATE(ia, (DAT_MEM_TYPE)7, buf, 1, pz, 0x33,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, NULL, 1, pz, 0x33,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	/* An empty region is a length error (dapltest -T F mem case 2). */
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, buf, 0, pz, 0x33,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE));
	/* A region that would wrap around the address space. */
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, buf, UINT64_MAX, pz, 0x33,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, buf, 1, NULL, 0x33,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	/* A PZ of another IA. */
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, buf, 1, pz2, 0x33,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	/* 0x40 is the IB extension's remote atomic right: 0x80 is nothing. */
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, buf, 1, pz, 0x80,
			     DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, buf, 1, pz, 0x33,
			     DAT_VA_TYPE_ZB, &lmr),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, buf, 1, pz, 0x33,
			     DAT_VA_TYPE_VA, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8));

	/* Memory that is not all mapped cannot be registered. */
	hole = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT(hole != MAP_FAILED);
	ASSERT_OK(munmap(hole + page, (size_t)page));
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, hole, (DAT_VLEN)page * 3,
			     pz, 0x33, DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, hole + page - 1, 2, pz,
			     0x33, DAT_VA_TYPE_VA, &lmr),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_OK(CREATE(ia, DAT_MEM_TYPE_VIRTUAL, hole, (DAT_VLEN)page, pz,
			 0x33, DAT_VA_TYPE_VA, &lmr));
	ASSERT_OK(sd_lmr_free(lmr));
	ASSERT_OK(munmap(hole, (size_t)page));
	ASSERT_OK(munmap(hole + 2 * page, (size_t)page));
#undef CREATE

	ASSERT(sd_list_empty(&ia->lmrs));
	ASSERT_OK(sd_pz_free(pz));
	ASSERT_OK(sd_pz_free(pz2));
	unit_ia_free(ia);
	unit_ia_free(ia2);
	return 0;
}

TEST_IMPL(provider_mem_lmr_query_free)
{
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia);
	static char buf[1000];
	struct sd_lmr *lmr = unit_lmr(ia, pz, buf + 3, 997,
				      DAT_MEM_PRIV_LOCAL_READ_FLAG |
				      DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	DAT_LMR_PARAM p;
	DAT_HANDLE_TYPE type;
	DAT_CONTEXT c;

	ASSERT_OK(sd_lmr_query(lmr, DAT_LMR_FIELD_ALL, &p));
	ASSERT_PTR_EQ(p.ia_handle, ia);
	ASSERT_EQ(p.mem_type, DAT_MEM_TYPE_VIRTUAL);
	ASSERT_PTR_EQ(p.region_desc.for_va, buf + 3);
	ASSERT_UINT64_EQ(p.length, 997);
	ASSERT_PTR_EQ(p.pz_handle, pz);
	ASSERT_EQ(p.mem_priv, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			      DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	ASSERT_EQ(p.va_type, DAT_VA_TYPE_VA);
	ASSERT_EQ(p.lmr_context, lmr->lmr_context);
	ASSERT_EQ(p.rmr_context, lmr->rmr_context);
	ASSERT_UINT64_EQ(p.registered_size, 997);
	ASSERT_UINT64_EQ(p.registered_address, (uintptr_t)(buf + 3));
	/* Contexts: never 0, lmr and rmr contexts differ. */
	ASSERT_NE(lmr->lmr_context, 0);
	ASSERT_NE(lmr->rmr_context, 0);
	ASSERT_NE(lmr->lmr_context, lmr->rmr_context);

	ASSERT_DAT_EQ(sd_lmr_query(lmr, 0x800, &p),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(sd_lmr_query(lmr, DAT_LMR_FIELD_ALL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(sd_lmr_query(pz, DAT_LMR_FIELD_ALL, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	ASSERT_DAT_EQ(sd_lmr_free(NULL),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));

	/* The generic entry points on every kind made here. */
	ASSERT_OK(sd_get_handle_type(lmr, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_LMR);
	ASSERT_OK(sd_get_handle_type(pz, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_PZ);
	ASSERT_OK(sd_get_handle_type(ia, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_IA);
	c.as_64 = 0x1122334455667788ULL;
	ASSERT_OK(sd_set_consumer_context(lmr, c));
	c.as_64 = 0;
	ASSERT_OK(sd_get_consumer_context(lmr, &c));
	ASSERT_UINT64_EQ(c.as_64, 0x1122334455667788ULL);
	ASSERT_OK(sd_get_consumer_context(pz, &c));
	ASSERT_UINT64_EQ(c.as_64, 0);
	ASSERT_DAT_EQ(sd_get_handle_type(NULL, &type),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1));
	ASSERT_DAT_EQ(sd_get_handle_type(buf, &type),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1));
	ASSERT_DAT_EQ(sd_get_handle_type(lmr, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(sd_set_consumer_context((DAT_HANDLE)(uintptr_t)4095, c),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1));
	ASSERT_DAT_EQ(sd_get_consumer_context(lmr, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	ASSERT_OK(sd_lmr_free(lmr));
	ASSERT_OK(sd_pz_free(pz));
	unit_ia_free(ia);
	return 0;
}

/* COMMON-5, COMMON-6, COMMON-7: every check of a local segment. */
TEST_IMPL(provider_mem_resolve_local)
{
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia), *pz2 = unit_pz(ia);
	static char buf[4096];
	uint64_t va = (uintptr_t)buf;
	struct sd_lmr *rw = unit_lmr(ia, pz, buf, sizeof(buf),
				     DAT_MEM_PRIV_LOCAL_READ_FLAG |
				     DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	struct sd_lmr *ro = unit_lmr(ia, pz, buf, 100, DAT_MEM_PRIV_LOCAL_READ_FLAG);
	DAT_MEM_PRIV_FLAGS R = DAT_MEM_PRIV_LOCAL_READ_FLAG;
	DAT_MEM_PRIV_FLAGS W = DAT_MEM_PRIV_LOCAL_WRITE_FLAG;
	DAT_LMR_CONTEXT c = rw->lmr_context;
	DAT_RETURN bad = ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	struct sd_sge sge;

	/* Inside. */
	ASSERT_OK(resolve(ia, pz, va, 4096, c, R, &sge));
	ASSERT_PTR_EQ(sge.addr, buf);
	ASSERT_UINT64_EQ(sge.len, 4096);
	ASSERT_OK(resolve(ia, pz, va + 4095, 1, c, W, &sge));
	ASSERT_PTR_EQ(sge.addr, buf + 4095);
	ASSERT_UINT64_EQ(sge.len, 1);
	ASSERT_OK(resolve(ia, pz, va + 100, 200, c, R | W, &sge));
	ASSERT_PTR_EQ(sge.addr, buf + 100);

	/* COMMON-5: outside, at either end, and wrapping. */
	ASSERT_DAT_EQ(resolve(ia, pz, va + 4096, 1, c, R, &sge), bad);
	ASSERT_DAT_EQ(resolve(ia, pz, va + 1, 4096, c, R, &sge), bad);
	ASSERT_DAT_EQ(resolve(ia, pz, va - 1, 2, c, R, &sge), bad);
	ASSERT_DAT_EQ(resolve(ia, pz, va, 4097, c, R, &sge), bad);
	ASSERT_DAT_EQ(resolve(ia, pz, va + 4095, UINT32_MAX, c, R, &sge), bad);
	ASSERT_DAT_EQ(resolve(ia, pz, UINT64_MAX, 1, c, R, &sge), bad);
	ASSERT_DAT_EQ(resolve(ia, pz, UINT64_MAX - 10, 100, c, R, &sge), bad);
	ASSERT_DAT_EQ(resolve(ia, pz, 0, 16, c, R, &sge), bad);

	/* A zero-length segment is don't-care in every other field. */
	sge.addr = buf;
	ASSERT_OK(resolve(ia, pz2, 12345, 0, 0xdeadbeef, R | W, &sge));
	ASSERT_NULL(sge.addr);
	ASSERT_UINT64_EQ(sge.len, 0);

	/* COMMON-6: another PZ. */
	ASSERT_DAT_EQ(resolve(ia, pz2, va, 1, c, R, &sge),
		      ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_READ));
	ASSERT_DAT_EQ(resolve(ia, pz2, va, 1, c, W, &sge),
		      ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE));

	/*
	 * COMMON-7: a missing privilege (its subtype says which), unknown or
	 * wrong-kind contexts (no subtype: no LMR has them).
	 */
	ASSERT_OK(resolve(ia, pz, va, 100, ro->lmr_context, R, &sge));
	ASSERT_DAT_EQ(resolve(ia, pz, va, 100, ro->lmr_context, W, &sge),
		      ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE));
	ASSERT_DAT_EQ(resolve(ia, pz, va, 101, ro->lmr_context, R, &sge), bad);
	ASSERT_DAT_EQ(resolve(ia, pz, va, 1, 0, R, &sge),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));
	ASSERT_DAT_EQ(resolve(ia, pz, va, 1, rw->rmr_context, R, &sge),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));
	ASSERT_DAT_EQ(resolve(ia, pz, va, 1, c ^ 1, R, &sge),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));
	ASSERT_DAT_EQ(resolve(ia, pz, va, 1, 0xffffffffu, R, &sge),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));

	/* A freed LMR's context is refused. */
	ASSERT_OK(sd_lmr_free(rw));
	ASSERT_DAT_EQ(resolve(ia, pz, va, 1, c, R, &sge),
		      ERR(DAT_PRIVILEGES_VIOLATION, 0));

	ASSERT_OK(sd_lmr_free(ro));
	ASSERT_OK(sd_pz_free(pz));
	ASSERT_OK(sd_pz_free(pz2));
	unit_ia_free(ia);
	return 0;
}

/* WRITE-6 and RDMA reads: what a peer's request may touch. */
TEST_IMPL(provider_mem_resolve_remote)
{
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia), *pz2 = unit_pz(ia);
	static char buf[8192];
	uint64_t va = (uintptr_t)buf;
	struct sd_lmr *w = unit_lmr(ia, pz, buf, 4096,
				    DAT_MEM_PRIV_REMOTE_WRITE_FLAG |
				    DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	struct sd_lmr *r = unit_lmr(ia, pz, buf + 4096, 4096,
				    DAT_MEM_PRIV_REMOTE_READ_FLAG);
	DAT_MEM_PRIV_FLAGS RW = DAT_MEM_PRIV_REMOTE_WRITE_FLAG;
	DAT_MEM_PRIV_FLAGS RR = DAT_MEM_PRIV_REMOTE_READ_FLAG;
	DAT_RMR_CONTEXT old;
	struct sd_lmr *got;
	struct sd_sge sge;

	ASSERT_OK(sd_mem_resolve_remote(ia, pz, 0, w->rmr_context, va + 10, 100,
					RW, &sge, &got));
	ASSERT_PTR_EQ(got, w);
	ASSERT_PTR_EQ(sge.addr, buf + 10);
	ASSERT_UINT64_EQ(sge.len, 100);
	/* Placing: the LMR cannot be freed until the access is done. */
	ASSERT_DAT_EQ(sd_lmr_free(w),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE));
	sd_mem_remote_done(got);

	ASSERT_OK(sd_mem_resolve_remote(ia, pz, 0, r->rmr_context, va + 8191, 1,
					RR, &sge, &got));
	ASSERT_PTR_EQ(sge.addr, buf + 8191);
	sd_mem_remote_done(got);

	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, r->rmr_context, va + 4096, 1,
					RW, &sge, &got), -EACCES);
	ASSERT_NULL(got);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, w->rmr_context, va, 1, RR,
					&sge, &got), -EACCES);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz2, 0, w->rmr_context, va, 1, RW,
					&sge, &got), -EPERM);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, w->lmr_context, va, 1, RW,
					&sge, &got), -ENOENT);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, 0, va, 1, RW, &sge, &got),
		  -ENOENT);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, w->rmr_context, va + 4096, 1,
					RW, &sge, &got), -ERANGE);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, w->rmr_context, va, 4097, RW,
					&sge, &got), -ERANGE);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, w->rmr_context, va - 1, 1, RW,
					&sge, &got), -ERANGE);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, w->rmr_context, UINT64_MAX - 5,
					UINT64_MAX, RW, &sge, &got), -ERANGE);
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, w->rmr_context, va + 1,
					UINT64_MAX, RW, &sge, &got), -ERANGE);
	ASSERT_NULL(got);
	ASSERT_NULL(sge.addr);

	/* Zero length: nothing is checked, nothing is held. */
	ASSERT_OK(sd_mem_resolve_remote(ia, pz2, 0, 0xdead, 1, 0, RW, &sge, &got));
	ASSERT_NULL(got);
	sd_mem_remote_done(got);

	old = w->rmr_context;
	ASSERT_OK(sd_lmr_free(w));
	ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, old, va, 1, RW, &sge, &got),
		  -ENOENT);

	ASSERT_OK(sd_lmr_free(r));
	ASSERT_OK(sd_pz_free(pz));
	ASSERT_OK(sd_pz_free(pz2));
	unit_ia_free(ia);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Contexts are never reused: many registrations, a few alive at a time,
 * give distinct lmr and rmr contexts, and none of a freed LMR matches.
 */
TEST_IMPL(provider_mem_contexts_unique)
{
	enum { ROUNDS = 20000, LIVE = 7 };
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia);
	static char buf[64];
	struct sd_lmr *live[LIVE] = { NULL };
	uint32_t *ctx = malloc(sizeof(*ctx) * ROUNDS * 2);
	struct sd_lmr *got;
	struct sd_sge sge;
	size_t i, n = 0;

	ASSERT_NOT_NULL(ctx);
	for (i = 0; i < ROUNDS; i++) {
		struct sd_lmr **slot = &live[i % LIVE];

		if (*slot != NULL) {
			DAT_LMR_CONTEXT lc = (*slot)->lmr_context;
			DAT_RMR_CONTEXT rc = (*slot)->rmr_context;

			ASSERT_OK(sd_lmr_free(*slot));
			ASSERT_DAT_EQ(resolve(ia, pz, (uintptr_t)buf, 1, lc,
					      DAT_MEM_PRIV_LOCAL_READ_FLAG, &sge),
				      ERR(DAT_PRIVILEGES_VIOLATION, 0));
			ASSERT_EQ(sd_mem_resolve_remote(ia, pz, 0, rc, (uintptr_t)buf,
							1, DAT_MEM_PRIV_REMOTE_READ_FLAG,
							&sge, &got), -ENOENT);
		}
		*slot = unit_lmr(ia, pz, buf, sizeof(buf), DAT_MEM_PRIV_ALL_FLAG);
		ctx[n++] = (*slot)->lmr_context;
		ctx[n++] = (*slot)->rmr_context;
	}
	qsort(ctx, n, sizeof(*ctx), cmp_u32);
	for (i = 1; i < n; i++)
		ASSERT_NE(ctx[i - 1], ctx[i]);
	ASSERT_NE(ctx[0], 0);
	for (i = 0; i < LIVE; i++)
		ASSERT_OK(sd_lmr_free(live[i]));
	free(ctx);
	ASSERT_OK(sd_pz_free(pz));
	unit_ia_free(ia);
	return 0;
}

/* The table holds SD_MAX_LMRS registrations, then says so. */
TEST_IMPL(provider_mem_lmr_limit)
{
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia);
	static char buf[16];
	struct sd_lmr **all = calloc(SD_MAX_LMRS, sizeof(*all));
	DAT_REGION_DESCRIPTION r = { .for_va = buf };
	DAT_LMR_HANDLE extra;
	size_t i;

	ASSERT_NOT_NULL(all);
	for (i = 0; i < SD_MAX_LMRS; i++)
		all[i] = unit_lmr(ia, pz, buf, sizeof(buf), DAT_MEM_PRIV_ALL_FLAG);
	ASSERT_DAT_EQ(sd_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, sizeof(buf), pz,
				    DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &extra,
				    NULL, NULL, NULL, NULL),
		      ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY_REGION));
	ASSERT_OK(sd_lmr_free(all[100]));
	all[100] = unit_lmr(ia, pz, buf, sizeof(buf), DAT_MEM_PRIV_ALL_FLAG);
	for (i = 0; i < SD_MAX_LMRS; i++)
		ASSERT_OK(sd_lmr_free(all[i]));
	free(all);
	ASSERT_OK(sd_pz_free(pz));
	unit_ia_free(ia);
	return 0;
}

TEST_IMPL(provider_mem_sync_rdma)
{
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia);
	static char buf[128];
	struct sd_lmr *lmr = unit_lmr(ia, pz, buf, sizeof(buf), 0);
	DAT_LMR_TRIPLET t[3] = {
		{ (uintptr_t)buf, 10, lmr->lmr_context },
		{ 0, 0, 0 },
		{ (uintptr_t)buf + 100, 28, lmr->lmr_context },
	};

	/* Nothing to synchronise in software: valid segments succeed. */
	ASSERT_OK(sd_lmr_sync_rdma_read(ia, t, 3));
	ASSERT_OK(sd_lmr_sync_rdma_write(ia, t, 3));
	ASSERT_OK(sd_lmr_sync_rdma_write(ia, NULL, 0));
	ASSERT_DAT_EQ(sd_lmr_sync_rdma_read(ia, NULL, 1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(sd_lmr_sync_rdma_read(pz, t, 3),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	t[2].segment_length = 29;
	ASSERT_DAT_EQ(sd_lmr_sync_rdma_read(ia, t, 3),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	t[2].segment_length = 28;
	t[0].lmr_context = lmr->rmr_context;
	ASSERT_DAT_EQ(sd_lmr_sync_rdma_write(ia, t, 3),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	ASSERT_OK(sd_lmr_free(lmr));
	ASSERT_OK(sd_pz_free(pz));
	unit_ia_free(ia);
	return 0;
}

TEST_IMPL(provider_mem_rmr)
{
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia);
	DAT_RMR_HANDLE rmr;
	DAT_RMR_PARAM p;
	DAT_RMR_CONTEXT rc;
	DAT_HANDLE_TYPE type;
	DAT_RMR_COOKIE cookie = { .as_64 = 1 };

	ASSERT_DAT_EQ(sd_rmr_create(NULL, &rmr),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	ASSERT_DAT_EQ(sd_rmr_create(ia, &rmr),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	ASSERT_DAT_EQ(sd_rmr_create(pz, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(sd_rmr_create(pz, &rmr));

	ASSERT_OK(sd_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p));
	ASSERT_PTR_EQ(p.ia_handle, ia);
	ASSERT_PTR_EQ(p.pz_handle, pz);
	ASSERT_EQ(p.rmr_context, 0);
	ASSERT_UINT64_EQ(p.lmr_triplet.segment_length, 0);
	ASSERT_DAT_EQ(sd_rmr_query(rmr, 0x80, &p),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(sd_rmr_query(rmr, DAT_RMR_FIELD_ALL, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(sd_rmr_query(pz, DAT_RMR_FIELD_ALL, &p),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	ASSERT_OK(sd_get_handle_type(rmr, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_RMR);

	/* Binds need an EP: test-provider-mem2.c. */
	ASSERT_DAT_EQ(sd_rmr_bind(rmr, NULL, NULL, 0, DAT_VA_TYPE_VA, NULL,
				  cookie, 0, &rc),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	ASSERT_DAT_EQ(sd_rmr_bind(pz, NULL, NULL, 0, DAT_VA_TYPE_VA, NULL,
				  cookie, 0, &rc),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	{
		DAT_RMR_HANDLE ep_rmr;

		ASSERT_OK(sd_rmr_create_for_ep(pz, &ep_rmr));
		ASSERT_OK(sd_rmr_query(ep_rmr, DAT_RMR_FIELD_ALL, &p));
		ASSERT_EQ(p.rmr_scope, DAT_RMR_SCOPE_EP);
		ASSERT_OK(sd_rmr_free(ep_rmr));
	}
	ASSERT_DAT_EQ(sd_rmr_create_for_ep(NULL, &rmr),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));

	ASSERT_DAT_EQ(sd_rmr_free(pz), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	ASSERT_OK(sd_rmr_free(rmr));
	ASSERT_OK(sd_pz_free(pz));
	unit_ia_free(ia);
	return 0;
}

/*
 * ia_close's teardown frees objects whatever their references, through
 * each kind's registered close op.
 */
TEST_IMPL(provider_mem_destroy)
{
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia);
	static char buf[32];
	struct sd_lmr *lmr = unit_lmr(ia, pz, buf, sizeof(buf), DAT_MEM_PRIV_ALL_FLAG);
	DAT_RMR_HANDLE rmr;

	ASSERT_OK(sd_rmr_create(pz, &rmr));
	sd_obj_close((struct sd_obj *)rmr);
	sd_obj_close(&lmr->obj);
	sd_obj_close(&pz->obj);
	unit_ia_free(ia);
	return 0;
}

/*
 * Threads registering, freeing and resolving on one IA at once (run it
 * under SAN=tsan): every resolve of a live LMR succeeds.
 */
struct mem_thread {
	struct sd_ia	*ia;
	struct sd_pz	*pz;
	struct sd_lmr	*shared;
	char		buf[256];
};

static void *mem_thread_main(void *arg)
{
	struct mem_thread *t = arg;
	int i;

	for (i = 0; i < 2000; i++) {
		struct sd_lmr *lmr = unit_lmr(t->ia, t->pz, t->buf, sizeof(t->buf),
					      DAT_MEM_PRIV_ALL_FLAG);
		struct sd_lmr *got;
		struct sd_sge sge;
		DAT_CONTEXT c = { .as_64 = (uint64_t)i };

		ASSERT_OK(resolve(t->ia, t->pz, (uintptr_t)t->buf + 5, 10,
				  lmr->lmr_context, DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
				  &sge));
		ASSERT_PTR_EQ(sge.addr, t->buf + 5);
		ASSERT_OK(sd_mem_resolve_remote(t->ia, t->pz, 0,
						t->shared->rmr_context,
						(uintptr_t)t->shared->addr, 1,
						DAT_MEM_PRIV_REMOTE_READ_FLAG,
						&sge, &got));
		sd_mem_remote_done(got);
		ASSERT_OK(sd_set_consumer_context(t->shared, c));
		ASSERT_OK(sd_lmr_free(lmr));
	}
	return NULL;
}

TEST_IMPL(provider_mem_threads)
{
	enum { N = 4 };
	struct sd_ia *ia = unit_ia();
	struct sd_pz *pz = unit_pz(ia);
	static char sbuf[16];
	struct sd_lmr *shared = unit_lmr(ia, pz, sbuf, sizeof(sbuf),
					 DAT_MEM_PRIV_ALL_FLAG);
	struct mem_thread t[N];
	pthread_t tid[N];
	int i;

	for (i = 0; i < N; i++) {
		t[i].ia = ia;
		t[i].pz = pz;
		t[i].shared = shared;
		ASSERT_OK(pthread_create(&tid[i], NULL, mem_thread_main, &t[i]));
	}
	for (i = 0; i < N; i++)
		ASSERT_OK(pthread_join(tid[i], NULL));
	ASSERT_OK(sd_lmr_free(shared));
	ASSERT_OK(sd_pz_free(pz));
	unit_ia_free(ia);
	return 0;
}

static void *hold_mem_lock(void *arg)
{
	pthread_mutex_t *go = arg;

	pthread_mutex_lock(&sd_mem_lock);
	pthread_mutex_lock(go);		/* until the test lets go */
	pthread_mutex_unlock(go);
	pthread_mutex_unlock(&sd_mem_lock);
	return NULL;
}

/*
 * The lock assertions are live (util.h, SD_ASSERT_HELD): the owner
 * check tells this thread from another one holding the lock, and a
 * function whose contract needs a lock aborts when called without it.
 */
TEST_IMPL(provider_assert_locks)
{
	pthread_mutex_t go = PTHREAD_MUTEX_INITIALIZER;
	struct sd_rmr rmr;
	pthread_t t;
	int status;
	pid_t pid;

#ifdef NDEBUG
	TEST_SKIP("built with NDEBUG: the assertions are compiled out");
#endif
	ASSERT_EQ(sd_mutex_held(&sd_mem_lock), false);
	pthread_mutex_lock(&sd_mem_lock);
	ASSERT_EQ(sd_mutex_held(&sd_mem_lock), true);
	pthread_mutex_unlock(&sd_mem_lock);
	ASSERT_EQ(sd_mutex_held(&sd_mem_lock), false);

	pthread_mutex_lock(&go);
	ASSERT_EQ(pthread_create(&t, NULL, hold_mem_lock, &go), 0);
	while (pthread_mutex_trylock(&sd_mem_lock) == 0) {	/* until it holds it */
		pthread_mutex_unlock(&sd_mem_lock);
		sched_yield();
	}
	ASSERT_EQ(sd_mutex_held(&sd_mem_lock), false);	/* held, not by us */
	pthread_mutex_unlock(&go);
	ASSERT_EQ(pthread_join(t, NULL), 0);

	/* sd_mem_unbind's contract: the memory lock held. */
	memset(&rmr, 0, sizeof(rmr));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		signal(SIGABRT, SIG_DFL);
		sd_mem_unbind(&rmr);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_NE(WIFSIGNALED(status), 0);
	ASSERT_EQ(WTERMSIG(status), SIGABRT);

	pthread_mutex_lock(&sd_mem_lock);
	sd_mem_unbind(&rmr);	/* with it: no abort */
	pthread_mutex_unlock(&sd_mem_lock);
	return 0;
}
