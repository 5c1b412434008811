/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection zones. A PZ is a name that LMRs, RMRs, EPs and SRQs share:
 * memory of one PZ is usable only by an EP of the same PZ (COMMON-6,
 * WRITE-6). It holds nothing but a count of its users, kept under the
 * IA's lock by whoever takes or drops a reference.
 */
#include <stdlib.h>

#include "entry.h"
#include "ia.h"
#include "mem.h"
#include "obj.h"
#include "refuse.h"
#include "util.h"

static struct sd_pz *pz_of(DAT_PZ_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_PZ);

	return obj != NULL ? sd_container_of(obj, struct sd_pz, obj) : NULL;
}

DAT_RETURN DAT_API sd_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
	struct sd_ia *ia = sd_obj_ia(ia_handle);
	struct sd_pz *pz;

	if (ia == NULL)
		return sd_refuse_handle("pz_create", NULL, "ia_handle",
					ia_handle, SD_MAGIC_IA,
					DAT_INVALID_HANDLE_IA);
	if (pz_handle == NULL)
		return sd_refuse_null("pz_create", &ia->obj, "pz_handle",
				      DAT_INVALID_ARG2);

	pz = calloc(1, sizeof(*pz));
	if (pz == NULL)
		return sd_refuse("pz_create", &ia->obj,
				 SD_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY),
				 "no memory for the PZ");
	sd_obj_init(&pz->obj, ia, SD_MAGIC_PZ, DAT_HANDLE_TYPE_PZ);

	pthread_mutex_lock(&ia->lock);
	sd_list_add_tail(&ia->pzs, &pz->obj.node);
	pthread_mutex_unlock(&ia->lock);
	sd_cnt_inc(ia->cnt, DCNT_IA_PZ_CREATE);
	*pz_handle = pz;
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_pz_query(DAT_PZ_HANDLE pz_handle, DAT_PZ_PARAM_MASK mask,
			       DAT_PZ_PARAM *param)
{
	struct sd_pz *pz = pz_of(pz_handle);

	if (pz == NULL)
		return sd_refuse_handle("pz_query", NULL, "pz_handle", pz_handle,
					SD_MAGIC_PZ, DAT_INVALID_HANDLE_PZ);
	if (mask & ~DAT_PZ_FIELD_ALL)
		return sd_refuse_bits("pz_query", &pz->obj,
				      SD_ERR(DAT_INVALID_PARAMETER,
					     DAT_INVALID_ARG2),
				      "pz_param_mask", mask, DAT_PZ_FIELD_ALL);
	if (param == NULL)
		return sd_refuse_null("pz_query", &pz->obj, "pz_param",
				      DAT_INVALID_ARG3);
	param->ia_handle = sd_obj_ia_handle(pz->obj.ia);
	return DAT_SUCCESS;
}

/* DAT_INVALID_STATE while an LMR, RMR, EP or SRQ still uses the PZ. */
DAT_RETURN DAT_API sd_pz_free(DAT_PZ_HANDLE pz_handle)
{
	struct sd_pz *pz = pz_of(pz_handle);
	struct sd_ia *ia;

	if (pz == NULL)
		return sd_refuse_handle("pz_free", NULL, "pz_handle", pz_handle,
					SD_MAGIC_PZ, DAT_INVALID_HANDLE_PZ);
	ia = pz->obj.ia;

	pthread_mutex_lock(&ia->lock);
	if (pz->refs > 0) {
		unsigned refs = (unsigned)pz->refs;

		pthread_mutex_unlock(&ia->lock);
		return sd_refuse("pz_free", &pz->obj,
				 SD_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_PZ_IN_USE),
				 "%u LMRs, RMRs, EPs or SRQs still use it "
				 "(free them first)", refs);
	}
	/* Counted while the PZ is the IA's: once it is gone, a graceful
	 * dat_ia_close on another thread may free the IA. */
	sd_cnt_inc(ia->cnt, DCNT_IA_PZ_FREE);
	sd_list_del(&pz->obj.node);
	pz->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ia->lock);
	free(pz);
	return DAT_SUCCESS;
}

/* ia_close: whatever its references (sd_obj_close). */
static void pz_close(struct sd_obj *o)
{
	struct sd_pz *pz = sd_container_of(o, struct sd_pz, obj);
	struct sd_ia *ia = o->ia;

	pthread_mutex_lock(&ia->lock);
	sd_list_del(&pz->obj.node);
	pz->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ia->lock);
	free(pz);
}

SD_OBJ_CLOSE_OP(SD_MAGIC_PZ, pz_close)
