/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl, layer 1: what every object has (obj.c). Magic numbers, the
 * object head (struct sd_obj) and its handle checks, the provider tables
 * objects point at, the close ops the IA's teardown calls, the claim of a
 * connection request, and the port a connection qualifier names.
 */
#ifndef SD_OBJ_H
#define SD_OBJ_H

#include "util.h"

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

#endif
