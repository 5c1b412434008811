/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's two exported functions and the DAT_PROVIDER table.
 *
 * A registry (ours or OFED's) loads libdaplsoft.so.2 for a dat.conf entry
 * and calls dat_provider_init(info, ia_params) once per IA name it loads
 * the library for, and dat_provider_fini(info) once per name at the end.
 * The same library may be listed under several names with different
 * ia_params ("sd-lo ... "lo"", "sd-eth ... "eth0""), so init keeps one
 * registration per key: the ia_params, and a copy of the provider table
 * whose device_name is that IA name. The copy is needed because OFED's
 * dat_ia_close rebuilds the registry key from provider->device_name: with
 * one shared table, closing an IA of the second name would look up the
 * first. Every object points at its IA's copy (struct sd_obj), but UD
 * objects, which point at the UD table built here. The registrations are
 * reg.c's: init and fini hand it the table.
 */
#include "entry.h"
#include "ext.h"
#include "ia.h"
#include "obj.h"
#include "trace.h"
#include "util.h"

SD_EXPORT void DAT_API dat_provider_init(const DAT_PROVIDER_INFO *info,
					 const char *ia_params);
SD_EXPORT void DAT_API dat_provider_fini(const DAT_PROVIDER_INFO *info);

/*
 * The table, built module by module: adding an entry point is one token
 * in its module's list. Slots left out are NULL, which both registries
 * answer with DAT_NOT_IMPLEMENTED.
 */
#define SD_SLOTS_IA(X) \
	X(ia_open) X(ia_query) X(ia_close) X(ia_ha_related) \
	X(set_consumer_context) X(get_consumer_context) X(get_handle_type)

#define SD_SLOTS_MEM(X) \
	X(pz_create) X(pz_query) X(pz_free) \
	X(lmr_create) X(lmr_query) X(lmr_free) \
	X(lmr_sync_rdma_read) X(lmr_sync_rdma_write) \
	X(rmr_create) X(rmr_create_for_ep) X(rmr_query) X(rmr_bind) \
	X(rmr_free)

#define SD_SLOTS_EVD(X) \
	X(evd_create) X(evd_query) X(evd_modify_cno) X(evd_enable) \
	X(evd_disable) X(evd_wait) X(evd_resize) X(evd_post_se) \
	X(evd_dequeue) X(evd_free) X(evd_set_unwaitable) \
	X(evd_clear_unwaitable)

#define SD_SLOTS_CNO(X) \
	X(cno_create) X(cno_fd_create) X(cno_modify_agent) X(cno_query) \
	X(cno_free) X(cno_wait) X(cno_trigger)

/* EP, PSP, RSP, CR, CSP, SRQ and the posts (ep.c and the files after it). */
#define SD_SLOTS_EP(X) \
	X(ep_query) X(ep_modify) \
	X(ep_connect) X(ep_dup_connect) X(ep_common_connect) \
	X(ep_disconnect) X(ep_reset) X(ep_get_status) X(ep_free) \
	X(ep_recv_query) X(ep_set_watermark) \
	X(ep_post_send) X(ep_post_recv) X(ep_post_rdma_read) \
	X(ep_post_rdma_write) X(ep_post_send_with_invalidate) \
	X(ep_post_rdma_read_to_rmr) \
	X(psp_query) \
	X(rsp_create) X(rsp_query) X(rsp_free) \
	X(csp_create) X(csp_query) X(csp_free) \
	X(cr_query) X(cr_accept) X(cr_reject) X(cr_handoff) \
	X(srq_create) X(srq_free) X(srq_post_recv) X(srq_query) \
	X(srq_resize) X(srq_set_lw)

/*
 * The IB extensions (ext.h): the extension op, and the slots ext.c routes
 * first. A UD service type makes a UD EP (ud.c), anything else goes to
 * sd_ep_create or sd_ep_create_with_srq; every PSP also listens for UD requests on its port's UDP
 * side (udcm.c), then psp.c does the rest.
 */
#define SD_SLOTS_EXT(X) \
	X(handle_extendedop, sd_handle_extendedop) \
	X(ep_create, sd_ext_ep_create) \
	X(ep_create_with_srq, sd_ext_ep_create_with_srq) \
	X(psp_create, sd_ext_psp_create) \
	X(psp_create_any, sd_ext_psp_create_any) \
	X(psp_free, sd_ext_psp_free)

#define SD_SLOT(slot) .slot##_func = sd_##slot,
#define SD_SLOT_FN(slot, fn) .slot##_func = fn,

DAT_PROVIDER sd_provider = {
	.device_name = SD_PROVIDER_NAME,
	SD_SLOTS_IA(SD_SLOT)
	SD_SLOTS_MEM(SD_SLOT)
	SD_SLOTS_EVD(SD_SLOT)
	SD_SLOTS_CNO(SD_SLOT)
	SD_SLOTS_EP(SD_SLOT)
	SD_SLOTS_EXT(SD_SLOT_FN)
};

/*
 * The table UD objects (EPs, CRs) point at: sd_provider with the slots a
 * UD EP or CR reaches replaced (SD_UD_SLOTS, entry.h). Built at load,
 * right after trace-api.c's constructor wrapped sd_provider's slots when
 * tracing (SD_TRACE_CTOR + 1), so before any IA exists, and published to
 * the layers below as sd_obj_ud_table (obj.c), which they read to set
 * obj.provider; trace-api.c's second constructor (SD_TRACE_CTOR + 3)
 * then wraps its UD slots.
 */
static DAT_PROVIDER ud_provider;

#define SD_UD_SLOT_SET(slot, fn) p->slot##_func = fn;

__attribute__((constructor(SD_TRACE_CTOR + 2)))
static void ud_provider_build(void)
{
	DAT_PROVIDER *p = &ud_provider;

	/* Every slot as for the IA's objects, except those a UD EP or CR reaches. */
	*p = sd_provider;
	SD_UD_SLOTS(SD_UD_SLOT_SET)
	p->handle_extendedop_func = sd_handle_extendedop;
	sd_obj_ud_table = p;
}

SD_EXPORT void DAT_API dat_provider_init(const DAT_PROVIDER_INFO *info,
					 const char *ia_params)
{
	sd_reg_add(info, ia_params, &sd_provider);
}

SD_EXPORT void DAT_API dat_provider_fini(const DAT_PROVIDER_INFO *info)
{
	sd_reg_remove(info);
}
