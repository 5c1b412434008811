/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat-names.h: the names of DAT event numbers and DTO completion statuses,
 * for the messages of our tools and example programs. Return codes have
 * dat_strerror; events and statuses have nothing in the DAT API, so a
 * program that reports one prints its name from here, never a bare
 * number. Header-only: nothing to link.
 */
#ifndef DAT_NAMES_H
#define DAT_NAMES_H

#include <dat2/udat.h>

/* The name of event number @n, as dat2/dat.h spells it. */
static inline const char *dat_event_name(DAT_EVENT_NUMBER n)
{
	switch (n) {
	case DAT_DTO_COMPLETION_EVENT:	return "DAT_DTO_COMPLETION_EVENT";
	case DAT_RMR_BIND_COMPLETION_EVENT: return "DAT_RMR_BIND_COMPLETION_EVENT";
	case DAT_CONNECTION_REQUEST_EVENT: return "DAT_CONNECTION_REQUEST_EVENT";
	case DAT_CONNECTION_EVENT_ESTABLISHED:
		return "DAT_CONNECTION_EVENT_ESTABLISHED";
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
		return "DAT_CONNECTION_EVENT_PEER_REJECTED";
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
		return "DAT_CONNECTION_EVENT_NON_PEER_REJECTED";
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
		return "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR";
	case DAT_CONNECTION_EVENT_DISCONNECTED:
		return "DAT_CONNECTION_EVENT_DISCONNECTED";
	case DAT_CONNECTION_EVENT_BROKEN: return "DAT_CONNECTION_EVENT_BROKEN";
	case DAT_CONNECTION_EVENT_TIMED_OUT: return "DAT_CONNECTION_EVENT_TIMED_OUT";
	case DAT_CONNECTION_EVENT_UNREACHABLE:
		return "DAT_CONNECTION_EVENT_UNREACHABLE";
	case DAT_ASYNC_ERROR_EVD_OVERFLOW: return "DAT_ASYNC_ERROR_EVD_OVERFLOW";
	case DAT_ASYNC_ERROR_IA_CATASTROPHIC:
		return "DAT_ASYNC_ERROR_IA_CATASTROPHIC";
	case DAT_ASYNC_ERROR_EP_BROKEN:	return "DAT_ASYNC_ERROR_EP_BROKEN";
	case DAT_ASYNC_ERROR_TIMED_OUT:	return "DAT_ASYNC_ERROR_TIMED_OUT";
	case DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR:
		return "DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR";
	case DAT_SOFTWARE_EVENT:	return "DAT_SOFTWARE_EVENT";
	default:			return "an unknown event";
	}
}

/* The name of DTO completion status @s, as dat2/dat.h spells it. */
static inline const char *dat_dto_status_name(DAT_DTO_COMPLETION_STATUS s)
{
	switch (s) {
	case DAT_DTO_SUCCESS:		return "DAT_DTO_SUCCESS";
	case DAT_DTO_ERR_FLUSHED:	return "DAT_DTO_ERR_FLUSHED";
	case DAT_DTO_ERR_LOCAL_LENGTH:	return "DAT_DTO_ERR_LOCAL_LENGTH";
	case DAT_DTO_ERR_LOCAL_EP:	return "DAT_DTO_ERR_LOCAL_EP";
	case DAT_DTO_ERR_LOCAL_PROTECTION: return "DAT_DTO_ERR_LOCAL_PROTECTION";
	case DAT_DTO_ERR_BAD_RESPONSE:	return "DAT_DTO_ERR_BAD_RESPONSE";
	case DAT_DTO_ERR_REMOTE_ACCESS:	return "DAT_DTO_ERR_REMOTE_ACCESS";
	case DAT_DTO_ERR_REMOTE_RESPONDER: return "DAT_DTO_ERR_REMOTE_RESPONDER";
	case DAT_DTO_ERR_TRANSPORT:	return "DAT_DTO_ERR_TRANSPORT";
	case DAT_DTO_ERR_RECEIVER_NOT_READY:
		return "DAT_DTO_ERR_RECEIVER_NOT_READY";
	case DAT_DTO_ERR_PARTIAL_PACKET: return "DAT_DTO_ERR_PARTIAL_PACKET";
	case DAT_RMR_OPERATION_FAILED:	return "DAT_RMR_OPERATION_FAILED";
	case DAT_DTO_ERR_LOCAL_MM_ERROR: return "DAT_DTO_ERR_LOCAL_MM_ERROR";
	default:			return "an unknown status";
	}
}

#endif /* DAT_NAMES_H */
