/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_strerror against every name in <dat2/dat_error.h>: each type and
 * subtype reads as its enumerator's name, whatever the class bits, and the
 * values the header does not name read as unknown, as in OFED 2.1.10.
 *
 * The names are listed below once (X-macros) so that the compiler supplies
 * their values; the test parses dat_error.h in the source tree at run time
 * and fails if the lists and the header's two enums differ, so a name added
 * to the header cannot go unchecked.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat2/udat.h>

#include "test.h"

#define HEADER TEST_SRCDIR "/include/dat2/dat_error.h"

/* DAT_RETURN_TYPE, in the header's order. */
#define RETURN_TYPES(X)							\
	X(DAT_SUCCESS) X(DAT_ABORT) X(DAT_CONN_QUAL_IN_USE)		\
	X(DAT_INSUFFICIENT_RESOURCES) X(DAT_INTERNAL_ERROR)		\
	X(DAT_INVALID_HANDLE) X(DAT_INVALID_PARAMETER)			\
	X(DAT_INVALID_STATE) X(DAT_LENGTH_ERROR)			\
	X(DAT_MODEL_NOT_SUPPORTED) X(DAT_PROVIDER_NOT_FOUND)		\
	X(DAT_PRIVILEGES_VIOLATION) X(DAT_PROTECTION_VIOLATION)		\
	X(DAT_QUEUE_EMPTY) X(DAT_QUEUE_FULL) X(DAT_TIMEOUT_EXPIRED)	\
	X(DAT_PROVIDER_ALREADY_REGISTERED) X(DAT_PROVIDER_IN_USE)	\
	X(DAT_INVALID_ADDRESS) X(DAT_INTERRUPTED_CALL)			\
	X(DAT_CONN_QUAL_UNAVAILABLE) X(DAT_RESERVED_LMR)		\
	X(DAT_PORT_IN_USE) X(DAT_COMM_NOT_SUPPORTED)			\
	X(DAT_EXTENSION_BASE) X(DAT_NOT_IMPLEMENTED)

/* DAT_RETURN_SUBTYPE, in the header's order. */
#define RETURN_SUBTYPES(X)						\
	X(DAT_NO_SUBTYPE) X(DAT_SUB_INTERRUPTED)			\
	X(DAT_RESOURCE_MEMORY) X(DAT_RESOURCE_DEVICE)			\
	X(DAT_RESOURCE_TEP) X(DAT_RESOURCE_TEVD)			\
	X(DAT_RESOURCE_PROTECTION_DOMAIN) X(DAT_RESOURCE_MEMORY_REGION)	\
	X(DAT_RESOURCE_ERROR_HANDLER) X(DAT_RESOURCE_CREDITS)		\
	X(DAT_RESOURCE_SRQ)						\
	X(DAT_INVALID_HANDLE_IA) X(DAT_INVALID_HANDLE_EP)		\
	X(DAT_INVALID_HANDLE_LMR) X(DAT_INVALID_HANDLE_RMR)		\
	X(DAT_INVALID_HANDLE_PZ) X(DAT_INVALID_HANDLE_PSP)		\
	X(DAT_INVALID_HANDLE_RSP) X(DAT_INVALID_HANDLE_CR)		\
	X(DAT_INVALID_HANDLE_CNO) X(DAT_INVALID_HANDLE_EVD_CR)		\
	X(DAT_INVALID_HANDLE_EVD_REQUEST) X(DAT_INVALID_HANDLE_EVD_RECV) \
	X(DAT_INVALID_HANDLE_EVD_CONN) X(DAT_INVALID_HANDLE_EVD_ASYNC)	\
	X(DAT_INVALID_HANDLE_SRQ) X(DAT_INVALID_HANDLE_CSP)		\
	X(DAT_INVALID_HANDLE1) X(DAT_INVALID_HANDLE2)			\
	X(DAT_INVALID_HANDLE3) X(DAT_INVALID_HANDLE4)			\
	X(DAT_INVALID_HANDLE5) X(DAT_INVALID_HANDLE6)			\
	X(DAT_INVALID_HANDLE7) X(DAT_INVALID_HANDLE8)			\
	X(DAT_INVALID_HANDLE9) X(DAT_INVALID_HANDLE10)			\
	X(DAT_INVALID_ARG1) X(DAT_INVALID_ARG2) X(DAT_INVALID_ARG3)	\
	X(DAT_INVALID_ARG4) X(DAT_INVALID_ARG5) X(DAT_INVALID_ARG6)	\
	X(DAT_INVALID_ARG7) X(DAT_INVALID_ARG8) X(DAT_INVALID_ARG9)	\
	X(DAT_INVALID_ARG10)						\
	X(DAT_INVALID_STATE_EP_UNCONNECTED)				\
	X(DAT_INVALID_STATE_EP_ACTCONNPENDING)				\
	X(DAT_INVALID_STATE_EP_PASSCONNPENDING)				\
	X(DAT_INVALID_STATE_EP_TENTCONNPENDING)				\
	X(DAT_INVALID_STATE_EP_CONNECTED)				\
	X(DAT_INVALID_STATE_EP_DISCONNECTED)				\
	X(DAT_INVALID_STATE_EP_RESERVED)				\
	X(DAT_INVALID_STATE_EP_COMPLPENDING)				\
	X(DAT_INVALID_STATE_EP_DISCPENDING)				\
	X(DAT_INVALID_STATE_EP_PROVIDERCONTROL)				\
	X(DAT_INVALID_STATE_EP_NOTREADY)				\
	X(DAT_INVALID_STATE_EP_RECV_WATERMARK)				\
	X(DAT_INVALID_STATE_EP_PZ)					\
	X(DAT_INVALID_STATE_EP_EVD_REQUEST)				\
	X(DAT_INVALID_STATE_EP_EVD_RECV)				\
	X(DAT_INVALID_STATE_EP_EVD_CONNECT)				\
	X(DAT_INVALID_STATE_EP_UNCONFIGURED)				\
	X(DAT_INVALID_STATE_EP_UNCONFRESERVED)				\
	X(DAT_INVALID_STATE_EP_UNCONFPASSIVE)				\
	X(DAT_INVALID_STATE_EP_UNCONFTENTATIVE)				\
	X(DAT_INVALID_STATE_CNO_IN_USE) X(DAT_INVALID_STATE_CNO_DEAD)	\
	X(DAT_INVALID_STATE_EVD_OPEN) X(DAT_INVALID_STATE_EVD_ENABLED)	\
	X(DAT_INVALID_STATE_EVD_DISABLED)				\
	X(DAT_INVALID_STATE_EVD_WAITABLE)				\
	X(DAT_INVALID_STATE_EVD_UNWAITABLE)				\
	X(DAT_INVALID_STATE_EVD_IN_USE)					\
	X(DAT_INVALID_STATE_EVD_CONFIG_NOTIFY)				\
	X(DAT_INVALID_STATE_EVD_CONFIG_SOLICITED)			\
	X(DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD)			\
	X(DAT_INVALID_STATE_EVD_WAITER) X(DAT_INVALID_STATE_EVD_ASYNC)	\
	X(DAT_INVALID_STATE_IA_IN_USE) X(DAT_INVALID_STATE_LMR_IN_USE)	\
	X(DAT_INVALID_STATE_LMR_FREE) X(DAT_INVALID_STATE_PZ_IN_USE)	\
	X(DAT_INVALID_STATE_PZ_FREE)					\
	X(DAT_INVALID_STATE_SRQ_OPERATIONAL)				\
	X(DAT_INVALID_STATE_SRQ_ERROR) X(DAT_INVALID_STATE_SRQ_IN_USE)	\
	X(DAT_INVALID_STATE_SRQ_SHUTDOWN)				\
	X(DAT_PRIVILEGES_READ) X(DAT_PRIVILEGES_WRITE)			\
	X(DAT_PRIVILEGES_RDMA_READ) X(DAT_PRIVILEGES_RDMA_WRITE)	\
	X(DAT_PROTECTION_READ) X(DAT_PROTECTION_WRITE)			\
	X(DAT_PROTECTION_RDMA_READ) X(DAT_PROTECTION_RDMA_WRITE)	\
	X(DAT_INVALID_ADDRESS_UNSUPPORTED)				\
	X(DAT_INVALID_ADDRESS_UNREACHABLE)				\
	X(DAT_INVALID_ADDRESS_MALFORMED)				\
	X(DAT_NAME_NOT_REGISTERED) X(DAT_MAJOR_NOT_FOUND)		\
	X(DAT_MINOR_NOT_FOUND) X(DAT_THREAD_SAFETY_NOT_FOUND)

struct named {
	DAT_UINT32	 value;
	const char	*name;
};

#define NAMED(v) { (v), #v },
static const struct named types[] = { RETURN_TYPES(NAMED) };
static const struct named subtypes[] = { RETURN_SUBTYPES(NAMED) };
#undef NAMED

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* dat_strerror's answer for what dat_error.h does not name. */
#define UNKNOWN_RET	((DAT_RETURN)DAT_INVALID_PARAMETER)

/* A pointer the call must leave alone. */
static const char untouched[] = "untouched";

/*
 * The enumerators of "typedef enum @tag {...}" in @src, in order, into
 * names[] (at most @max, each malloc'd). Comments and preprocessor lines
 * are skipped, so an enumerator under #ifdef counts. Returns the count.
 */
static size_t enum_names(const char *src, const char *tag, char **names,
			 size_t max)
{
	char head[128];
	const char *p;
	size_t n = 0;
	int want_name = 1, at_line_start = 1;

	snprintf(head, sizeof(head), "typedef enum %s {", tag);
	p = strstr(src, head);
	if (p == NULL)
		TEST_FAIL("%s: no \"%s\"", HEADER, head);
	p += strlen(head);

	while (*p != '\0' && *p != '}') {
		if (p[0] == '/' && p[1] == '*') {
			p = strstr(p + 2, "*/");
			ASSERT_NOT_NULL(p);
			p += 2;
		} else if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
		} else if (*p == '#' && at_line_start) {
			p += strcspn(p, "\n");
		} else if (*p == '\n') {
			at_line_start = 1;
			p++;
		} else if (isspace((unsigned char)*p)) {
			p++;
		} else if (*p == ',') {
			want_name = 1;
			at_line_start = 0;
			p++;
		} else if (want_name && (isalpha((unsigned char)*p) || *p == '_')) {
			size_t len = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "abcdefghijklmnopqrstuvwxyz"
					       "0123456789_");

			ASSERT_LT(n, max);
			names[n] = strndup(p, len);
			ASSERT_NOT_NULL(names[n]);
			n++;
			p += len;
			want_name = 0;
			at_line_start = 0;
		} else {
			p++;		/* a value: "= 0x00010000" */
			at_line_start = 0;
		}
	}
	if (*p != '}')
		TEST_FAIL("%s: enum %s does not end", HEADER, tag);
	return n;
}

/* The list written here is the header's enum, name for name. */
static void same_names(const char *tag, const struct named *list,
		       size_t count)
{
	char *src = test_read_file(HEADER), *names[512];
	size_t n, i;

	if (src == NULL)
		TEST_FAIL("cannot read %s", HEADER);
	n = enum_names(src, tag, names, COUNT(names));
	printf("%s: %zu enumerators in %s, %zu listed here\n", tag, n, HEADER,
	       count);
	for (i = 0; i < n && i < count; i++)
		if (strcmp(names[i], list[i].name) != 0)
			TEST_FAIL("enum %s: %s in the header where the test "
				  "lists %s", tag, names[i], list[i].name);
	ASSERT_EQ(n, count);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(src);
}

/* One dat_strerror call and what it must answer. */
static void check(DAT_RETURN value, DAT_RETURN want, const char *major,
		  const char *minor)
{
	const char *ma = untouched, *mi = untouched;
	DAT_RETURN ret = dat_strerror(value, &ma, &mi);

	if (ret != want || ma == NULL || mi == NULL || strcmp(ma, major) != 0 ||
	    strcmp(mi, minor) != 0)
		TEST_FAIL("dat_strerror(0x%08x) = 0x%08x \"%s\" / \"%s\", "
			  "expected 0x%08x \"%s\" / \"%s\"", (unsigned)value,
			  (unsigned)ret, ma ? ma : "(null)", mi ? mi : "(null)",
			  (unsigned)want, major, minor);
}

static int is_type(DAT_UINT32 type)
{
	size_t i;

	for (i = 0; i < COUNT(types); i++)
		if (types[i].value == type)
			return 1;
	return 0;
}

TEST_IMPL(strerror_every_code)
{
	static const DAT_UINT32 classes[] = {
		DAT_CLASS_SUCCESS, DAT_CLASS_ERROR, DAT_CLASS_WARNING,
	};
	const char *ma, *mi;
	unsigned long codes = 0;
	size_t t, s, c;
	DAT_UINT32 v;

	same_names("dat_return_type", types, COUNT(types));
	same_names("dat_return_subtype", subtypes, COUNT(subtypes));

	/* The subtypes are numbered without gaps, as strerror.c relies on. */
	for (s = 0; s < COUNT(subtypes); s++)
		ASSERT_EQ(subtypes[s].value, s);

	/*
	 * Every type with every subtype, under every class: the names, and
	 * for DAT_NO_SUBTYPE an empty minor text (OFED's too).
	 */
	for (c = 0; c < COUNT(classes); c++)
		for (t = 0; t < COUNT(types); t++)
			for (s = 0; s < COUNT(subtypes); s++) {
				check(classes[c] | types[t].value |
				      subtypes[s].value, DAT_SUCCESS,
				      types[t].name,
				      s == 0 ? "" : subtypes[s].name);
				codes++;
			}

	/* DAT_SUCCESS itself. */
	check(DAT_SUCCESS, DAT_SUCCESS, "DAT_SUCCESS", "");
	codes++;

	/*
	 * Every type value the header does not name (the extension range
	 * included) is unknown; the minor text is then left alone, as OFED
	 * leaves it, and the return is the bare DAT_INVALID_PARAMETER.
	 */
	for (v = 0; v <= DAT_TYPE_MASK >> 16; v++) {
		if (is_type(v << 16))
			continue;
		ma = mi = untouched;
		ASSERT_DAT_EQ(dat_strerror(DAT_CLASS_ERROR | v << 16 |
					   DAT_INVALID_HANDLE_EP, &ma, &mi),
			      UNKNOWN_RET);
		if (ma == NULL || strcmp(ma, "unknown error") != 0)
			TEST_FAIL("type 0x%x: \"%s\"", (unsigned)v,
				  ma ? ma : "(null)");
		ASSERT_PTR_EQ(mi, untouched);
		codes++;
	}

	/*
	 * Every subtype value past the last: a known type, and an unknown
	 * minor text. All of them under one type, three under each.
	 */
	for (v = COUNT(subtypes); v <= DAT_SUBTYPE_MASK; v++) {
		check(DAT_CLASS_ERROR | DAT_INVALID_HANDLE | v, UNKNOWN_RET,
		      "DAT_INVALID_HANDLE", "unknown minor error");
		codes++;
	}
	for (t = 0; t < COUNT(types); t++) {
		check(types[t].value | (DAT_UINT32)COUNT(subtypes), UNKNOWN_RET,
		      types[t].name, "unknown minor error");
		check(types[t].value | 0x100, UNKNOWN_RET, types[t].name,
		      "unknown minor error");
		check(types[t].value | DAT_SUBTYPE_MASK, UNKNOWN_RET,
		      types[t].name, "unknown minor error");
		codes += 3;
	}

	/*
	 * NULL outputs (strerror.c): either half may be left out. Without
	 * the minor half the subtype is not looked at; without the major
	 * half an unknown type is still reported by the return.
	 */
	mi = untouched;
	ASSERT_OK(dat_strerror(DAT_CLASS_ERROR | DAT_INVALID_HANDLE |
			       DAT_INVALID_HANDLE_IA, NULL, &mi));
	ASSERT_STR_EQ(mi, "DAT_INVALID_HANDLE_IA");
	mi = untouched;
	ASSERT_DAT_EQ(dat_strerror(DAT_CLASS_ERROR | DAT_INVALID_HANDLE | 500,
				   NULL, &mi), UNKNOWN_RET);
	ASSERT_STR_EQ(mi, "unknown minor error");
	mi = untouched;
	ASSERT_DAT_EQ(dat_strerror(DAT_CLASS_ERROR | 0x00190000, NULL, &mi),
		      UNKNOWN_RET);
	ASSERT_PTR_EQ(mi, untouched);

	ma = untouched;
	ASSERT_OK(dat_strerror(DAT_CLASS_ERROR | DAT_QUEUE_EMPTY, &ma, NULL));
	ASSERT_STR_EQ(ma, "DAT_QUEUE_EMPTY");
	ma = untouched;
	ASSERT_OK(dat_strerror(DAT_CLASS_ERROR | DAT_INVALID_HANDLE | 500, &ma,
			       NULL));
	ASSERT_STR_EQ(ma, "DAT_INVALID_HANDLE");
	ma = untouched;
	ASSERT_DAT_EQ(dat_strerror(DAT_CLASS_ERROR | 0x00190000, &ma, NULL),
		      UNKNOWN_RET);
	ASSERT_STR_EQ(ma, "unknown error");

	ASSERT_OK(dat_strerror(DAT_CLASS_ERROR | DAT_ABORT, NULL, NULL));
	ASSERT_OK(dat_strerror(DAT_CLASS_ERROR | DAT_ABORT | 500, NULL, NULL));
	ASSERT_DAT_EQ(dat_strerror(DAT_CLASS_ERROR | 0x00190000, NULL, NULL),
		      UNKNOWN_RET);
	codes += 9;

	printf("%zu types, %zu subtypes, %lu codes checked\n", COUNT(types),
	       COUNT(subtypes), codes);
	return 0;
}
