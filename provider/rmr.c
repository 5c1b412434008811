/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RMRs (memory windows). For now an RMR can be created, queried and
 * freed, but not bound: dat_rmr_bind and dat_rmr_create_for_ep return
 * DAT_NOT_IMPLEMENTED until memory windows are implemented (a later
 * issue: a bind will take a context from the IA's table in lmr.c and
 * complete on the EP's request EVD). Consumers that expose memory use the
 * LMR's rmr_context, as dapltest does.
 */
#include <stdlib.h>
#include <string.h>

#include "softdapl.h"
#include "entry.h"

static struct sd_rmr *rmr_of(DAT_RMR_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_RMR);

	return obj != NULL ? sd_container_of(obj, struct sd_rmr, obj) : NULL;
}

static struct sd_pz *pz_of(DAT_PZ_HANDLE h)
{
	struct sd_obj *obj = sd_obj_check(h, SD_MAGIC_PZ);

	return obj != NULL ? sd_container_of(obj, struct sd_pz, obj) : NULL;
}

DAT_RETURN DAT_API sd_rmr_create(DAT_PZ_HANDLE pz_handle,
				 DAT_RMR_HANDLE *rmr_handle)
{
	struct sd_pz *pz = pz_of(pz_handle);
	struct sd_rmr *rmr;
	struct sd_ia *ia;

	if (pz == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (rmr_handle == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ia = pz->obj.ia;

	rmr = calloc(1, sizeof(*rmr));
	if (rmr == NULL)
		return SD_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	sd_obj_init(&rmr->obj, ia, SD_MAGIC_RMR, DAT_HANDLE_TYPE_RMR);
	rmr->pz = pz;

	pthread_mutex_lock(&ia->lock);
	pz->refs++;
	sd_list_add_tail(&ia->rmrs, &rmr->obj.node);
	pthread_mutex_unlock(&ia->lock);
	*rmr_handle = rmr;
	return DAT_SUCCESS;
}

/* Not implemented yet: see the top of this file. */
DAT_RETURN DAT_API sd_rmr_create_for_ep(DAT_PZ_HANDLE pz_handle,
					DAT_RMR_HANDLE *rmr_handle)
{
	if (pz_of(pz_handle) == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (rmr_handle == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

/* An RMR is never bound yet: its triplet, privileges and context are 0. */
DAT_RETURN DAT_API sd_rmr_query(DAT_RMR_HANDLE rmr_handle,
				DAT_RMR_PARAM_MASK mask, DAT_RMR_PARAM *param)
{
	struct sd_rmr *rmr = rmr_of(rmr_handle);

	if (rmr == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	if (mask & ~DAT_RMR_FIELD_ALL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (param == NULL)
		return SD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	memset(param, 0, sizeof(*param));
	param->ia_handle = sd_ia_handle(rmr->obj.ia);
	param->pz_handle = rmr->pz;
	param->mem_priv = DAT_MEM_PRIV_NONE_FLAG;
	param->rmr_scope = DAT_RMR_SCOPE_PZ;
	param->va_type = DAT_VA_TYPE_VA;
	return DAT_SUCCESS;
}

/* Not implemented yet: see the top of this file. */
DAT_RETURN DAT_API sd_rmr_bind(DAT_RMR_HANDLE rmr_handle,
			       DAT_LMR_HANDLE lmr_handle,
			       const DAT_LMR_TRIPLET *lmr_triplet,
			       DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			       DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE cookie,
			       DAT_COMPLETION_FLAGS flags,
			       DAT_RMR_CONTEXT *rmr_context)
{
	if (rmr_of(rmr_handle) == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	return SD_ERR(DAT_NOT_IMPLEMENTED, 0);
}

DAT_RETURN DAT_API sd_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	struct sd_rmr *rmr = rmr_of(rmr_handle);

	if (rmr == NULL)
		return SD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	sd_rmr_destroy(rmr);
	return DAT_SUCCESS;
}

void sd_rmr_destroy(struct sd_rmr *rmr)
{
	struct sd_ia *ia = rmr->obj.ia;

	pthread_mutex_lock(&ia->lock);
	rmr->pz->refs--;
	sd_list_del(&rmr->obj.node);
	rmr->obj.magic = SD_MAGIC_DEAD;
	pthread_mutex_unlock(&ia->lock);
	free(rmr);
}
