/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why a call was refused: the line SOFTDAPL_DEBUG prints for every
 * refusal of an entry point (refuse.h says what each function writes).
 * Only refusals reach this file, and only with debugging on: the macros
 * of refuse.h test sd_debug_level first. Any thread; no lock of its own.
 *
 * The names of a DAT_RETURN are dat_strerror's, taken, like
 * dats_get_ia_handle, from whichever registry loaded the provider (ours,
 * or OFED's, whose names are the same where it has them). The reference
 * is weak so that a program linking provider objects without a registry
 * still runs: the value is then printed as a number.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ia.h"
#include "obj.h"
#include "refuse.h"
#include "trace.h"
#include "util.h"

extern __typeof__(dat_strerror) dat_strerror __attribute__((weak));

/* "TYPE SUBTYPE" (or "TYPE") of @ret into @buf. */
static void ret_names(DAT_RETURN ret, char *buf, size_t n)
{
	const char *major = NULL, *minor = NULL;

	if (dat_strerror == NULL ||
	    dat_strerror(ret, &major, NULL) != DAT_SUCCESS) {
		snprintf(buf, n, "0x%08x", (unsigned)ret);
		return;
	}
	if (DAT_GET_SUBTYPE(ret) == DAT_NO_SUBTYPE)
		snprintf(buf, n, "%s", major);
	else if (dat_strerror(ret, &major, &minor) == DAT_SUCCESS)
		snprintf(buf, n, "%s %s", major, minor);
	else
		snprintf(buf, n, "%s 0x%x", major,
			 (unsigned)DAT_GET_SUBTYPE(ret));
}

/* The one line of a refusal, @why already formatted. */
static DAT_RETURN line(const char *call, const struct sd_obj *obj,
		       DAT_RETURN ret, const char *why)
{
	char names[128];

	ret_names(ret, names, sizeof(names));
	if (obj != NULL)
		sd_log_debug("dat_%s(%s): refused: %s (%s)", call,
			     sd_obj_name(obj).s, why, names);
	else
		sd_log_debug("dat_%s: refused: %s (%s)", call, why, names);
	return ret;
}

DAT_RETURN sd_refused(const char *call, const struct sd_obj *obj,
		      DAT_RETURN ret, const char *fmt, ...)
{
	char why[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return line(call, obj, ret, why);
}

/* What an object of kind @magic is called in a reason, or NULL. */
static const char *kind(uint32_t magic)
{
	switch (magic) {
	case SD_MAGIC_IA:	return "an IA";
	case SD_MAGIC_PZ:	return "a PZ";
	case SD_MAGIC_LMR:	return "an LMR";
	case SD_MAGIC_RMR:	return "an RMR";
	case SD_MAGIC_EVD:	return "an EVD";
	case SD_MAGIC_CNO:	return "a CNO";
	case SD_MAGIC_EP:	return "an EP";
	case SD_MAGIC_PSP:	return "a PSP";
	case SD_MAGIC_RSP:	return "an RSP";
	case SD_MAGIC_CR:	return "a CR";
	case SD_MAGIC_SRQ:	return "an SRQ";
	case SD_MAGIC_CSP:	return "a CSP";
	case SD_MAGIC_UD_EP:	return "a UD EP";
	case SD_MAGIC_UD_CR:	return "a UD CR";
	case SD_MAGIC_QUERY:	return "a query handle";
	default:		return NULL;
	}
}

DAT_RETURN sd_refused_handle(const char *call, const struct sd_obj *obj,
			     const char *arg, DAT_HANDLE h, uint32_t magic,
			     DAT_RETURN_SUBTYPE sub)
{
	DAT_RETURN ret = SD_ERR(DAT_INVALID_HANDLE, sub);
	const char *want = magic != 0 ? kind(magic) : "a DAT object";
	const struct sd_obj *o = h;
	const char *is;

	if (h == DAT_HANDLE_NULL)
		return sd_refused(call, obj, ret, "%s is NULL", arg);
	/* sd_obj_check read the magic of any handle from here up too. */
	if ((uintptr_t)h < SD_HANDLE_MIN)
		return sd_refused(call, obj, ret, "%s %p is not %s handle",
				  arg, h, want);
	if (o->magic == SD_MAGIC_DEAD)
		return sd_refused(call, obj, ret, "%s %p names an object "
				  "already freed%s", arg, h,
				  magic == SD_MAGIC_CR || magic == SD_MAGIC_UD_CR ?
				  " (or a CR already accepted, rejected or "
				  "handed off)" : "");
	is = kind(o->magic);
	if (is == NULL)
		return sd_refused(call, obj, ret, "%s %p is not %s handle",
				  arg, h, want);
	if (magic != 0 && o->magic != magic)
		return sd_refused(call, obj, ret, "%s %p is %s (%s), not %s",
				  arg, h, sd_obj_name(o).s, is, want);
	if (obj != NULL && o->ia != obj->ia)
		return sd_refused(call, obj, ret, "%s %p is %s of %s, not of %s",
				  arg, h, sd_obj_name(o).s,
				  sd_obj_name(&o->ia->obj).s,
				  sd_obj_name(&obj->ia->obj).s);
	return sd_refused(call, obj, ret, "%s %p is %s, which this call "
			  "cannot take", arg, h, sd_obj_name(o).s);
}

DAT_RETURN sd_refused_bits(const char *call, const struct sd_obj *obj,
			   DAT_RETURN ret, const char *arg, uint64_t v,
			   uint64_t known)
{
	return sd_refused(call, obj, ret, "%s 0x%llx has bits DAT 2.0 does "
			  "not define (0x%llx)", arg, (unsigned long long)v,
			  (unsigned long long)(v & ~known));
}

void sd_why_set(struct sd_why *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->s, sizeof(w->s), fmt, ap);
	va_end(ap);
}
