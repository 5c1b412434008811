/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Text for DAT_RETURN values: dat_strerror for consumers and dreg_ret_name
 * for the registry's own debug output.
 *
 * The text of each type and subtype is its name in dat_error.h, so that a
 * log can be searched for the name a program tests against. OFED prints
 * the same names for the values it knows; it misspells one subtype
 * (DAT_INVALID_STATE_EP_EVD_RCV for ..._RECV) and leaves the newer types
 * and the SRQ state subtypes unnamed, which we name.
 */
#include <stdio.h>

#include "registry.h"

/* Pairs a value with its name, spelled once. */
#define DREG_NAMED(v) { (v), #v }

struct dreg_name {
	DAT_UINT32	value;
	const char	*name;
};

/*
 * Every DAT_RETURN_TYPE, as it stands in bits 29..16. The types are not
 * contiguous (DAT_NOT_IMPLEMENTED is 0x3fff0000), so the table is searched.
 */
static const struct dreg_name dreg_types[] = {
	DREG_NAMED(DAT_SUCCESS),
	DREG_NAMED(DAT_ABORT),
	DREG_NAMED(DAT_CONN_QUAL_IN_USE),
	DREG_NAMED(DAT_INSUFFICIENT_RESOURCES),
	DREG_NAMED(DAT_INTERNAL_ERROR),
	DREG_NAMED(DAT_INVALID_HANDLE),
	DREG_NAMED(DAT_INVALID_PARAMETER),
	DREG_NAMED(DAT_INVALID_STATE),
	DREG_NAMED(DAT_LENGTH_ERROR),
	DREG_NAMED(DAT_MODEL_NOT_SUPPORTED),
	DREG_NAMED(DAT_PROVIDER_NOT_FOUND),
	DREG_NAMED(DAT_PRIVILEGES_VIOLATION),
	DREG_NAMED(DAT_PROTECTION_VIOLATION),
	DREG_NAMED(DAT_QUEUE_EMPTY),
	DREG_NAMED(DAT_QUEUE_FULL),
	DREG_NAMED(DAT_TIMEOUT_EXPIRED),
	DREG_NAMED(DAT_PROVIDER_ALREADY_REGISTERED),
	DREG_NAMED(DAT_PROVIDER_IN_USE),
	DREG_NAMED(DAT_INVALID_ADDRESS),
	DREG_NAMED(DAT_INTERRUPTED_CALL),
	DREG_NAMED(DAT_CONN_QUAL_UNAVAILABLE),
	DREG_NAMED(DAT_RESERVED_LMR),
	DREG_NAMED(DAT_PORT_IN_USE),
	DREG_NAMED(DAT_COMM_NOT_SUPPORTED),
	DREG_NAMED(DAT_EXTENSION_BASE),
	DREG_NAMED(DAT_NOT_IMPLEMENTED),
};

/*
 * Every DAT_RETURN_SUBTYPE, indexed by its value. The subtypes run from
 * DAT_NO_SUBTYPE (0, which has no text) to DAT_THREAD_SAFETY_NOT_FOUND
 * without gaps, so a missing line would leave a NULL that the lookup
 * reports as unknown rather than a wrong name.
 */
#define DREG_SUB(v) [v] = #v
static const char *const dreg_subtypes[] = {
	[DAT_NO_SUBTYPE] = "",
	DREG_SUB(DAT_SUB_INTERRUPTED),

	DREG_SUB(DAT_RESOURCE_MEMORY),
	DREG_SUB(DAT_RESOURCE_DEVICE),
	DREG_SUB(DAT_RESOURCE_TEP),
	DREG_SUB(DAT_RESOURCE_TEVD),
	DREG_SUB(DAT_RESOURCE_PROTECTION_DOMAIN),
	DREG_SUB(DAT_RESOURCE_MEMORY_REGION),
	DREG_SUB(DAT_RESOURCE_ERROR_HANDLER),
	DREG_SUB(DAT_RESOURCE_CREDITS),
	DREG_SUB(DAT_RESOURCE_SRQ),

	DREG_SUB(DAT_INVALID_HANDLE_IA),
	DREG_SUB(DAT_INVALID_HANDLE_EP),
	DREG_SUB(DAT_INVALID_HANDLE_LMR),
	DREG_SUB(DAT_INVALID_HANDLE_RMR),
	DREG_SUB(DAT_INVALID_HANDLE_PZ),
	DREG_SUB(DAT_INVALID_HANDLE_PSP),
	DREG_SUB(DAT_INVALID_HANDLE_RSP),
	DREG_SUB(DAT_INVALID_HANDLE_CR),
	DREG_SUB(DAT_INVALID_HANDLE_CNO),
	DREG_SUB(DAT_INVALID_HANDLE_EVD_CR),
	DREG_SUB(DAT_INVALID_HANDLE_EVD_REQUEST),
	DREG_SUB(DAT_INVALID_HANDLE_EVD_RECV),
	DREG_SUB(DAT_INVALID_HANDLE_EVD_CONN),
	DREG_SUB(DAT_INVALID_HANDLE_EVD_ASYNC),
	DREG_SUB(DAT_INVALID_HANDLE_SRQ),
	DREG_SUB(DAT_INVALID_HANDLE_CSP),
	DREG_SUB(DAT_INVALID_HANDLE1),
	DREG_SUB(DAT_INVALID_HANDLE2),
	DREG_SUB(DAT_INVALID_HANDLE3),
	DREG_SUB(DAT_INVALID_HANDLE4),
	DREG_SUB(DAT_INVALID_HANDLE5),
	DREG_SUB(DAT_INVALID_HANDLE6),
	DREG_SUB(DAT_INVALID_HANDLE7),
	DREG_SUB(DAT_INVALID_HANDLE8),
	DREG_SUB(DAT_INVALID_HANDLE9),
	DREG_SUB(DAT_INVALID_HANDLE10),

	DREG_SUB(DAT_INVALID_ARG1),
	DREG_SUB(DAT_INVALID_ARG2),
	DREG_SUB(DAT_INVALID_ARG3),
	DREG_SUB(DAT_INVALID_ARG4),
	DREG_SUB(DAT_INVALID_ARG5),
	DREG_SUB(DAT_INVALID_ARG6),
	DREG_SUB(DAT_INVALID_ARG7),
	DREG_SUB(DAT_INVALID_ARG8),
	DREG_SUB(DAT_INVALID_ARG9),
	DREG_SUB(DAT_INVALID_ARG10),

	DREG_SUB(DAT_INVALID_STATE_EP_UNCONNECTED),
	DREG_SUB(DAT_INVALID_STATE_EP_ACTCONNPENDING),
	DREG_SUB(DAT_INVALID_STATE_EP_PASSCONNPENDING),
	DREG_SUB(DAT_INVALID_STATE_EP_TENTCONNPENDING),
	DREG_SUB(DAT_INVALID_STATE_EP_CONNECTED),
	DREG_SUB(DAT_INVALID_STATE_EP_DISCONNECTED),
	DREG_SUB(DAT_INVALID_STATE_EP_RESERVED),
	DREG_SUB(DAT_INVALID_STATE_EP_COMPLPENDING),
	DREG_SUB(DAT_INVALID_STATE_EP_DISCPENDING),
	DREG_SUB(DAT_INVALID_STATE_EP_PROVIDERCONTROL),
	DREG_SUB(DAT_INVALID_STATE_EP_NOTREADY),
	DREG_SUB(DAT_INVALID_STATE_EP_RECV_WATERMARK),
	DREG_SUB(DAT_INVALID_STATE_EP_PZ),
	DREG_SUB(DAT_INVALID_STATE_EP_EVD_REQUEST),
	DREG_SUB(DAT_INVALID_STATE_EP_EVD_RECV),
	DREG_SUB(DAT_INVALID_STATE_EP_EVD_CONNECT),
	DREG_SUB(DAT_INVALID_STATE_EP_UNCONFIGURED),
	DREG_SUB(DAT_INVALID_STATE_EP_UNCONFRESERVED),
	DREG_SUB(DAT_INVALID_STATE_EP_UNCONFPASSIVE),
	DREG_SUB(DAT_INVALID_STATE_EP_UNCONFTENTATIVE),
	DREG_SUB(DAT_INVALID_STATE_CNO_IN_USE),
	DREG_SUB(DAT_INVALID_STATE_CNO_DEAD),
	DREG_SUB(DAT_INVALID_STATE_EVD_OPEN),
	DREG_SUB(DAT_INVALID_STATE_EVD_ENABLED),
	DREG_SUB(DAT_INVALID_STATE_EVD_DISABLED),
	DREG_SUB(DAT_INVALID_STATE_EVD_WAITABLE),
	DREG_SUB(DAT_INVALID_STATE_EVD_UNWAITABLE),
	DREG_SUB(DAT_INVALID_STATE_EVD_IN_USE),
	DREG_SUB(DAT_INVALID_STATE_EVD_CONFIG_NOTIFY),
	DREG_SUB(DAT_INVALID_STATE_EVD_CONFIG_SOLICITED),
	DREG_SUB(DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD),
	DREG_SUB(DAT_INVALID_STATE_EVD_WAITER),
	DREG_SUB(DAT_INVALID_STATE_EVD_ASYNC),
	DREG_SUB(DAT_INVALID_STATE_IA_IN_USE),
	DREG_SUB(DAT_INVALID_STATE_LMR_IN_USE),
	DREG_SUB(DAT_INVALID_STATE_LMR_FREE),
	DREG_SUB(DAT_INVALID_STATE_PZ_IN_USE),
	DREG_SUB(DAT_INVALID_STATE_PZ_FREE),
	DREG_SUB(DAT_INVALID_STATE_SRQ_OPERATIONAL),
	DREG_SUB(DAT_INVALID_STATE_SRQ_ERROR),
	DREG_SUB(DAT_INVALID_STATE_SRQ_IN_USE),
	DREG_SUB(DAT_INVALID_STATE_SRQ_SHUTDOWN),

	DREG_SUB(DAT_PRIVILEGES_READ),
	DREG_SUB(DAT_PRIVILEGES_WRITE),
	DREG_SUB(DAT_PRIVILEGES_RDMA_READ),
	DREG_SUB(DAT_PRIVILEGES_RDMA_WRITE),
	DREG_SUB(DAT_PROTECTION_READ),
	DREG_SUB(DAT_PROTECTION_WRITE),
	DREG_SUB(DAT_PROTECTION_RDMA_READ),
	DREG_SUB(DAT_PROTECTION_RDMA_WRITE),

	DREG_SUB(DAT_INVALID_ADDRESS_UNSUPPORTED),
	DREG_SUB(DAT_INVALID_ADDRESS_UNREACHABLE),
	DREG_SUB(DAT_INVALID_ADDRESS_MALFORMED),

	DREG_SUB(DAT_NAME_NOT_REGISTERED),
	DREG_SUB(DAT_MAJOR_NOT_FOUND),
	DREG_SUB(DAT_MINOR_NOT_FOUND),
	DREG_SUB(DAT_THREAD_SAFETY_NOT_FOUND),
};

#define DREG_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The name of the type in @value (class bits ignored), or NULL. */
static const char *dreg_type_name(DAT_RETURN value)
{
	DAT_UINT32 type = DAT_GET_TYPE(value);
	size_t i;

	for (i = 0; i < DREG_COUNT(dreg_types); i++)
		if (dreg_types[i].value == type)
			return dreg_types[i].name;
	return NULL;
}

/* The name of the subtype in @value ("" for none), or NULL. */
static const char *dreg_subtype_name(DAT_RETURN value)
{
	DAT_UINT32 sub = DAT_GET_SUBTYPE(value);

	return sub < DREG_COUNT(dreg_subtypes) ? dreg_subtypes[sub] : NULL;
}

/*
 * DAT 2.0 section 6.1: names the type of @value in *major_message and its
 * subtype in *minor_message ("" when it has none); the class bits are not
 * looked at. Either pointer may be NULL when that half is not wanted (OFED
 * allows it for the minor half and crashes for the major one). Returns
 * DAT_SUCCESS, or for a type or (when asked for) a subtype that dat_error.h
 * does not define, "unknown error" / "unknown minor error" in the
 * respective message and DAT_INVALID_PARAMETER. That return is the bare
 * type without the error class bit, exactly as OFED returns it.
 */
DREG_EXPORT DAT_RETURN DAT_API
dat_strerror(DAT_RETURN value, const char **major_message,
	     const char **minor_message)
{
	const char *major = dreg_type_name(value);
	const char *minor;

	if (major_message != NULL)
		*major_message = major != NULL ? major : "unknown error";
	if (major == NULL)
		return DAT_INVALID_PARAMETER;
	if (minor_message == NULL)
		return DAT_SUCCESS;

	minor = dreg_subtype_name(value);
	*minor_message = minor != NULL ? minor : "unknown minor error";
	return minor != NULL ? DAT_SUCCESS : DAT_INVALID_PARAMETER;
}

const char *dreg_ret_name(DAT_RETURN ret)
{
	static __thread char buf[96];
	const char *type = dreg_type_name(ret);
	const char *sub = dreg_subtype_name(ret);
	int n;

	if (type != NULL)
		n = snprintf(buf, sizeof(buf), "%s", type);
	else
		n = snprintf(buf, sizeof(buf), "0x%x",
			     (unsigned)DAT_GET_TYPE(ret));
	if (DAT_GET_SUBTYPE(ret) == DAT_NO_SUBTYPE || n < 0 ||
	    (size_t)n >= sizeof(buf))
		return buf;
	if (sub != NULL)
		snprintf(buf + n, sizeof(buf) - n, ":%s", sub);
	else
		snprintf(buf + n, sizeof(buf) - n, ":0x%x",
			 (unsigned)DAT_GET_SUBTYPE(ret));
	return buf;
}
