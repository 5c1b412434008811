/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 1: the IA (struct sd_ia; ia.c opens and closes it), its
 * address (params.c parses ia_params), its named attributes, and the
 * registrations (reg.c). The IA's async errors are evq.h's.
 */
#ifndef SD_IA_H
#define SD_IA_H

#include <sys/socket.h>

#include "obj.h"

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
	/* What the contexts grant, for same-host peers to read (cma.c). */
	struct sd_cma_grant	*cma_grants;	/* memory lock; NULL: none */
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
 * registration. 0, -ENOENT (no such name) or -ENOMEM.
 */
int sd_reg_open(const char *name, DAT_PROVIDER **table, char **ia_params);
/* Drops what sd_reg_open counted, once the IA is closed. */
void sd_reg_close(DAT_PROVIDER *table);

/* The IA of a consumer's IA handle or provider IA pointer, or NULL (obj.c). */
struct sd_ia *sd_obj_ia(DAT_IA_HANDLE h);

/* The consumer's handle for @ia (dats_get_ia_handle), for query results. */
DAT_IA_HANDLE sd_obj_ia_handle(struct sd_ia *ia);

#endif
