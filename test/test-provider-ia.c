/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider through the registry: dat.conf entries for build/lib's
 * libdaplsoft.so.2, opened with dat_ia_open like any consumer would.
 * IA open, query and close, the ia_params syntax, the async EVD, several
 * IA names in one dat.conf, and the memory entry points as a consumer
 * reaches them (the checks themselves are in test-provider-mem.c).
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <dat2/dat_registry.h>
#include <dat2/dat_ib_extensions.h>

#include "provider-util.h"
#include "test.h"

#define ERR(type, sub) (DAT_CLASS_ERROR | (type) | (sub))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A dat.conf with one entry per (name, ia_params) pair, NULL-terminated. */
static void conf_names(const char *name, ...)
{
	char conf[8192];
	size_t n = 0;
	va_list ap;

	va_start(ap, name);
	for (; name != NULL; name = va_arg(ap, const char *)) {
		const char *params = va_arg(ap, const char *);

		n += (size_t)snprintf(conf + n, sizeof(conf) - n,
			"%s u2.0 nonthreadsafe default %s softdapl.2.0 \"%s\" \"\"\n",
			name, sdt_provider_path(), params);
		ASSERT_LT(n, sizeof(conf));
	}
	va_end(ap);
	test_dat_conf(conf);
}

static DAT_IA_HANDLE open_ia(const char *name, DAT_EVD_HANDLE *async)
{
	DAT_EVD_HANDLE a = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", name);
	ASSERT_OK(dat_ia_open(buf, 8, async != NULL ? async : &a, &ia));
	return ia;
}

static DAT_RETURN try_open(const char *name, DAT_IA_HANDLE *ia)
{
	DAT_EVD_HANDLE a = DAT_HANDLE_NULL;
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", name);
	return dat_ia_open(buf, 8, &a, ia);
}

/* The IA's address as "family/text", e.g. "4/127.0.0.1". */
static const char *ia_addr(DAT_IA_HANDLE ia)
{
	static char buf[INET6_ADDRSTRLEN + 8];
	DAT_IA_ATTR attr;
	const struct sockaddr *sa;
	char text[INET6_ADDRSTRLEN];

	ASSERT_OK(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0,
			       NULL));
	sa = attr.ia_address_ptr;
	ASSERT_NOT_NULL(sa);
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
			  text, sizeof(text));
	else
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr,
			  text, sizeof(text));
	snprintf(buf, sizeof(buf), "%d/%s", sa->sa_family == AF_INET ? 4 : 6,
		 text);
	return buf;
}

/* True when @text is an address of this host (a socket binds to it). */
static bool is_local(const char *text)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	bool v6 = strchr(text, ':') != NULL, ok;
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return false;
	if (v6)
		ok = inet_pton(AF_INET6, text, &a6.sin6_addr) == 1 &&
		     bind(fd, (struct sockaddr *)&a6, sizeof(a6)) == 0;
	else
		ok = inet_pton(AF_INET, text, &a4.sin_addr) == 1 &&
		     bind(fd, (struct sockaddr *)&a4, sizeof(a4)) == 0;
	close(fd);
	return ok;
}

/* A documentation address (RFC 5737) this host does not have. */
static const char *not_ours(void)
{
	static const char *const cand[] = { "192.0.2.254", "198.51.100.254",
					    "203.0.113.254" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cand); i++)
		if (!is_local(cand[i]))
			return cand[i];
	return "192.0.2.254";
}

/*
 * An interface other than lo with an IPv4 address (its name and that
 * address as "4/a.b.c.d"), and one with no IP address at all; "" when
 * this host has none.
 */
static void find_ifs(char *with4, char *want4, char *bare, size_t len)
{
	struct ifaddrs *ifs, *i, *j;

	with4[0] = want4[0] = bare[0] = '\0';
	ASSERT_OK(getifaddrs(&ifs));
	for (i = ifs; i != NULL; i = i->ifa_next) {
		bool has_ip = false;

		if (with4[0] == '\0' && i->ifa_addr != NULL &&
		    i->ifa_addr->sa_family == AF_INET &&
		    strcmp(i->ifa_name, "lo") != 0) {
			char text[INET_ADDRSTRLEN];
			bool first = true;

			/* The interface's first IPv4 address is the one. */
			for (j = ifs; j != i; j = j->ifa_next)
				if (j->ifa_addr != NULL &&
				    j->ifa_addr->sa_family == AF_INET &&
				    strcmp(j->ifa_name, i->ifa_name) == 0)
					first = false;
			if (first) {
				inet_ntop(AF_INET,
					  &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
					  text, sizeof(text));
				snprintf(with4, len, "%s", i->ifa_name);
				snprintf(want4, len, "4/%s", text);
			}
		}
		for (j = ifs; j != NULL; j = j->ifa_next)
			if (strcmp(j->ifa_name, i->ifa_name) == 0 &&
			    j->ifa_addr != NULL &&
			    (j->ifa_addr->sa_family == AF_INET ||
			     j->ifa_addr->sa_family == AF_INET6))
				has_ip = true;
		if (!has_ip && bare[0] == '\0')
			snprintf(bare, len, "%s", i->ifa_name);
	}
	freeifaddrs(ifs);
}

static const char *named_attr(const DAT_PROVIDER_ATTR *p, const char *name)
{
	DAT_COUNT i;

	for (i = 0; i < p->num_provider_specific_attr; i++)
		if (strcmp(p->provider_specific_attr[i].name, name) == 0)
			return p->provider_specific_attr[i].value;
	return NULL;
}

TEST_IMPL(provider_ia_open_query_close)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, evd;
	DAT_IA_HANDLE ia = sdt_open_ia("lo", &async);
	DAT_IA_ATTR a;
	DAT_PROVIDER_ATTR p;
	DAT_HANDLE_TYPE type;

	/* ia_open made an async EVD and handed it back. */
	ASSERT_PTR_NE(async, DAT_HANDLE_NULL);
	ASSERT_OK(dat_get_handle_type(async, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_EVD);
	ASSERT_OK(dat_ia_query(ia, &evd, 0, NULL, 0, NULL));
	ASSERT_PTR_EQ(evd, async);

	ASSERT_OK(dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &a,
			       DAT_PROVIDER_FIELD_ALL, &p));
	ASSERT_STR_EQ(a.adapter_name, "softdapl");
	ASSERT_STR_EQ(a.vendor_name, "softdapl");
	ASSERT_STR_EQ(ia_addr(ia), "4/127.0.0.1");
	ASSERT_GE(a.max_eps, 64);
	ASSERT_GT(a.max_dto_per_ep, 0);
	ASSERT_GT(a.max_evd_qlen, 0);
	ASSERT_GT(a.max_iov_segments_per_dto, 0);
	ASSERT_GT(a.max_lmrs, 0);
	ASSERT_GT(a.max_message_size, 0);
	ASSERT_GT(a.max_rdma_size, 0);
	ASSERT_GT(a.max_rdma_read_per_ep_in, 0);
	ASSERT_EQ(a.extension_supported, DAT_EXTENSION_IB);	/* ext.h */
	ASSERT_EQ(a.zb_supported, DAT_FALSE);

	/* What OFED's registry rebuilds its key from at close. */
	ASSERT_STR_EQ(p.provider_name, "softdapl");
	ASSERT_EQ(p.dapl_version_major, 2);
	ASSERT_EQ(p.dapl_version_minor, 0);
	ASSERT_EQ(p.is_thread_safe, DAT_FALSE);
	/* COMMON-3: posts copy the iov. COMMON-9: an alignment hint. */
	ASSERT_EQ(p.iov_ownership_on_return, DAT_IOV_CONSUMER);
	ASSERT_GT(p.optimal_buffer_alignment, 0);
	ASSERT_EQ(p.optimal_buffer_alignment & (p.optimal_buffer_alignment - 1), 0);
	ASSERT_EQ(p.max_private_data_size, 1024);
	ASSERT_EQ(p.srq_supported, DAT_TRUE);
	ASSERT_EQ(p.lmr_sync_req, DAT_FALSE);
	ASSERT(p.completion_flags_supported & DAT_COMPLETION_SUPPRESS_FLAG);
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_RDMA_READ"), "TRUE");

	/*
	 * A NULL output asked for nothing is fine (both registries query so
	 * at open and close); asked for fields, it is a bad parameter
	 * (dapltest -T F queryinfo case 10).
	 */
	ASSERT_OK(dat_ia_query(ia, NULL, 0, NULL, 0, NULL));
	ASSERT_OK(dat_ia_query(ia, NULL, ~(DAT_IA_ATTR_MASK)0, &a, 0, NULL));
	ASSERT_DAT_EQ(dat_ia_query(ia, NULL, ~(DAT_IA_ATTR_MASK)0, &a,
				   ~(DAT_PROVIDER_ATTR_MASK)0, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	ASSERT_DAT_EQ(dat_ia_query(ia, NULL, DAT_IA_ALL, NULL, 0, NULL),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));

	ASSERT_DAT_EQ(dat_ia_close(ia, (DAT_CLOSE_FLAGS)7),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_DAT_EQ(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	return 0;
}

/* The interface MTU of @ifname by ioctl, 0 if unknown. */
static unsigned if_mtu(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	unsigned mtu = 0;

	ASSERT(fd >= 0);
	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name)) {
		close(fd);
		return 0;
	}
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
		mtu = (unsigned)ifr.ifr_mtu;
	close(fd);
	return mtu;
}

/*
 * The named attributes of an IA on "lo", "::1" and another interface
 * with IPv4 when there is one (ia.c: the set OFED's providers give,
 * values from the interface as a RoCE device takes them):
 * DAT_IB_TRANSPORT_MTU is the largest IB MTU whose UD datagram (40-byte
 * UD header, UDP, IP) fits the interface's MTU; the GID is the address
 * (IPv4 mapped); the node GUID the MAC as an EUI-64; the pointers stay
 * valid while the IA is open; dat_ib_open_query gives the same set.
 */
TEST_IMPL(provider_ia_named_attrs)
{
	static const char *const want[] = {
		"DAT_IB_PROVIDER_NAME", "DAT_IB_DEVICE_NAME",
		"DAT_IB_CONNECTIVITY_MODE", "DAT_IB_RDMA_READ",
		"DAT_IB_NODE_GUID", "DAT_IB_GID", "DAT_IB_TRANSPORT_MTU",
		"DAT_IB_PORT_STATUS", "DAT_IB_PORT_NUMBER",
		"DAT_EXTENSION_INTERFACE", "DAT_IB_IMMED_DATA",
		"DAT_IB_FETCH_AND_ADD", "DAT_IB_CMP_AND_SWAP", "DAT_IB_UD",
		"DAT_COUNTERS",
	};
	char with4[64], want4[64], bare[64], mtu[16];
	DAT_PROVIDER_ATTR p, q;
	DAT_IA_HANDLE ia, qh;
	char name[] = "sd-lo";
	size_t i;

	find_ifs(with4, want4, bare, sizeof(with4));
	conf_names("sd-lo", "lo", "sd-lo6", "::1", "sd-if",
		   with4[0] != '\0' ? with4 : "lo", NULL);
	ia = open_ia("sd-lo", NULL);
	ASSERT_OK(dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &p));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		if (named_attr(&p, want[i]) == NULL)
			TEST_FAIL("%s is not advertised", want[i]);
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_PROVIDER_NAME"), "softdapl");
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_DEVICE_NAME"), "softdapl");
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_CONNECTIVITY_MODE"), "DIRECT");
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_TRANSPORT_MTU"), "4096");
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_GID"),
		      "0000:0000:0000:0000:0000:ffff:7f00:0001");
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_NODE_GUID"), "0200:00ff:fe00:0000");
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_PORT_STATUS"), "ACTIVE");
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_PORT_NUMBER"), "1");
	/* Another query: the same values at the same addresses. */
	ASSERT_OK(dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &q));
	ASSERT_PTR_EQ(q.provider_specific_attr, p.provider_specific_attr);
	ASSERT_EQ(q.num_provider_specific_attr, p.num_provider_specific_attr);
	/* dat_ib_open_query: no IA, the same set. */
	ASSERT_OK(dat_ib_open_query(name, &qh, 0, NULL, DAT_PROVIDER_FIELD_ALL, &q));
	ASSERT_EQ(q.num_provider_specific_attr, p.num_provider_specific_attr);
	for (i = 0; i < (size_t)p.num_provider_specific_attr; i++) {
		ASSERT_STR_EQ(q.provider_specific_attr[i].name,
			      p.provider_specific_attr[i].name);
		ASSERT_STR_EQ(q.provider_specific_attr[i].value,
			      p.provider_specific_attr[i].value);
	}
	ASSERT_OK(dat_ib_close_query(qh));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));

	ia = open_ia("sd-lo6", NULL);
	ASSERT_OK(dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &p));
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_GID"),
		      "0000:0000:0000:0000:0000:0000:0000:0001");
	ASSERT_STR_EQ(named_attr(&p, "DAT_IB_TRANSPORT_MTU"), "4096");
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));

	if (with4[0] != '\0') {
		unsigned m = 4096, ifm = if_mtu(with4);

		while (m > 256 && m + 40 + 8 + 20 > ifm)
			m /= 2;
		snprintf(mtu, sizeof(mtu), "%u", m);
		ia = open_ia("sd-if", NULL);
		ASSERT_OK(dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &p));
		printf("%s: MTU %u, DAT_IB_TRANSPORT_MTU %s, GUID %s\n", with4,
		       ifm, named_attr(&p, "DAT_IB_TRANSPORT_MTU"),
		       named_attr(&p, "DAT_IB_NODE_GUID"));
		ASSERT_STR_EQ(named_attr(&p, "DAT_IB_TRANSPORT_MTU"), mtu);
		ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	}
	return 0;
}

/* Every ia_params form, and the errors, in one dat.conf. */
TEST_IMPL(provider_ia_params)
{
	static const struct {
		const char *name, *params, *want;
		DAT_RETURN err;
	} c[] = {
		{ "p-lo", "lo", "4/127.0.0.1", 0 },
		{ "p-lo0", "lo 0", "4/127.0.0.1", 0 },
		{ "p-lo1", "  lo   1  ", "4/127.0.0.1", 0 },
		{ "p-v4", "127.0.0.1", "4/127.0.0.1", 0 },
		{ "p-v4b", "127.0.0.1 0", "4/127.0.0.1", 0 },
		{ "p-host", "localhost", NULL, 0 },
		{ "p-any", "0.0.0.0", NULL, 0 },
		{ "p-empty", "", NULL,
		  ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_MALFORMED) },
		{ "p-port", "lo x", NULL,
		  ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_MALFORMED) },
		{ "p-extra", "lo 0 0", NULL,
		  ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_MALFORMED) },
		{ "p-nohost", "no-such-host.invalid", NULL,
		  ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNREACHABLE) },
	};
	char conf[8192], with4[64], want4[64], bare[64];
	const char *lib = sdt_provider_path();
	size_t i, n = 0;
	DAT_IA_HANDLE ia;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		n += (size_t)snprintf(conf + n, sizeof(conf) - n,
			"%s u2.0 nonthreadsafe default %s softdapl.2.0 \"%s\" \"\"\n",
			c[i].name, lib, c[i].params);
	/* Cases that depend on this host's interfaces. */
	find_ifs(with4, want4, bare, sizeof(with4));
	n += (size_t)snprintf(conf + n, sizeof(conf) - n,
		"p-v6 u2.0 nonthreadsafe default %s softdapl.2.0 \"::1\" \"\"\n"
		"p-v6b u2.0 nonthreadsafe default %s softdapl.2.0 \"[::1] 0\" \"\"\n"
		"p-any6 u2.0 nonthreadsafe default %s softdapl.2.0 \"::\" \"\"\n"
		"p-notours u2.0 nonthreadsafe default %s softdapl.2.0 \"%s\" \"\"\n"
		"p-if u2.0 nonthreadsafe default %s softdapl.2.0 \"%s 1\" \"\"\n"
		"p-bare u2.0 nonthreadsafe default %s softdapl.2.0 \"%s\" \"\"\n",
		lib, lib, lib, lib, not_ours(), lib, with4, lib, bare);
	ASSERT_LT(n, sizeof(conf));
	test_dat_conf(conf);

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		DAT_RETURN ret;

		ia = DAT_HANDLE_NULL;
		ret = try_open(c[i].name, &ia);

		if (c[i].err != 0) {
			ASSERT_DAT_EQ(ret, c[i].err);
			continue;
		}
		if (ret != DAT_SUCCESS)
			TEST_FAIL("%s \"%s\": 0x%08x", c[i].name, c[i].params,
				  (unsigned)ret);
		if (c[i].want != NULL)
			ASSERT_STR_EQ(ia_addr(ia), c[i].want);
		else if (strcmp(c[i].name, "p-host") == 0)
			ASSERT(strcmp(ia_addr(ia), "4/127.0.0.1") == 0 ||
			       strcmp(ia_addr(ia), "6/::1") == 0);
		else	/* the wildcard reports a real IPv4 address */
			ASSERT(strncmp(ia_addr(ia), "4/", 2) == 0 &&
			       strcmp(ia_addr(ia), "4/0.0.0.0") != 0);
		ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	}

	/* An address this host does not have. */
	ASSERT_DAT_EQ(try_open("p-notours", &ia),
		      ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNREACHABLE));
	if (with4[0] != '\0') {
		ia = open_ia("p-if", NULL);
		ASSERT_STR_EQ(ia_addr(ia), want4);
		ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	}
	if (bare[0] != '\0')
		ASSERT_DAT_EQ(try_open("p-bare", &ia),
			      ERR(DAT_INVALID_ADDRESS,
				  DAT_INVALID_ADDRESS_UNREACHABLE));
	if (is_local("::1")) {
		ia = open_ia("p-v6", NULL);
		ASSERT_STR_EQ(ia_addr(ia), "6/::1");
		ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
		ia = open_ia("p-v6b", NULL);
		ASSERT_STR_EQ(ia_addr(ia), "6/::1");
		ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
		ia = open_ia("p-any6", NULL);
		ASSERT(strncmp(ia_addr(ia), "6/", 2) == 0 &&
		       strcmp(ia_addr(ia), "6/::") != 0);
		ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	}
	return 0;
}

TEST_IMPL(provider_ia_close_graceful)
{
	DAT_IA_HANDLE ia = sdt_open_ia("lo", NULL);
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE evd;

	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_DAT_EQ(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE));
	ASSERT_OK(dat_pz_free(pz));

	ASSERT_OK(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd));
	ASSERT_DAT_EQ(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE));
	ASSERT_OK(dat_evd_free(evd));

	/* Its own async EVD does not keep the IA open. */
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* Abrupt close frees every object (the leak checker has the last word). */
TEST_IMPL(provider_ia_close_abrupt)
{
	DAT_IA_HANDLE ia = sdt_open_ia("lo", NULL);
	static char buf[3][4096];
	DAT_REGION_DESCRIPTION r;
	DAT_PZ_HANDLE pz[2];
	DAT_LMR_HANDLE lmr;
	DAT_RMR_HANDLE rmr;
	DAT_EVD_HANDLE evd;
	DAT_CNO_HANDLE cno;
	int i;

	for (i = 0; i < 2; i++)
		ASSERT_OK(dat_pz_create(ia, &pz[i]));
	for (i = 0; i < 3; i++) {
		r.for_va = buf[i];
		ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r,
					 sizeof(buf[i]), pz[i % 2],
					 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
					 &lmr, NULL, NULL, NULL, NULL));
	}
	ASSERT_OK(dat_rmr_create(pz[1], &rmr));
	ASSERT_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	ASSERT_OK(dat_evd_create(ia, 4, cno, DAT_EVD_DTO_FLAG, &evd));

	ASSERT_DAT_EQ(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));

	/* The provider is loaded again for the next open, and still works. */
	ia = sdt_open_ia("lo", NULL);
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}

/* DAT_HANDLE_NULL, a given EVD, DAT_EVD_ASYNC_EXISTS, and the errors. */
TEST_IMPL(provider_ia_async_evd)
{
	DAT_EVD_HANDLE async1 = DAT_HANDLE_NULL, mine, plain, got, h;
	DAT_IA_HANDLE ia1, ia2, ia3, bad = DAT_HANDLE_NULL;
	static char not_an_evd[64];
	char name[] = SDT_IA_NAME;

	sdt_conf("lo");
	/* DAT_EVD_ASYNC_EXISTS needs an earlier IA of the name. */
	h = DAT_EVD_ASYNC_EXISTS;
	ASSERT_DAT_EQ(dat_ia_open(name, 8, &h, &bad),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC));
	h = DAT_HANDLE_NULL;
	ASSERT_DAT_EQ(dat_ia_open(name, 0, &h, &bad),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ia1 = open_ia(name, &async1);

	/* A consumer's EVD: it must accept async events. */
	ASSERT_OK(dat_evd_create(ia1, 8, DAT_HANDLE_NULL, DAT_EVD_ASYNC_FLAG, &mine));
	ASSERT_OK(dat_evd_create(ia1, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &plain));
	h = plain;
	ASSERT_DAT_EQ(dat_ia_open(name, 8, &h, &bad),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC));
	h = not_an_evd;
	ASSERT_DAT_EQ(dat_ia_open(name, 8, &h, &bad),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC));
	h = mine;
	ASSERT_OK(dat_ia_open(name, 8, &h, &ia2));
	ASSERT_PTR_EQ(h, mine);
	ASSERT_OK(dat_ia_query(ia2, &got, 0, NULL, 0, NULL));
	ASSERT_PTR_EQ(got, mine);
	/* In use as ia2's async EVD. */
	ASSERT(dat_evd_free(mine) != DAT_SUCCESS);

	h = DAT_EVD_ASYNC_EXISTS;
	ASSERT_OK(dat_ia_open(name, 8, &h, &ia3));
	ASSERT_OK(dat_ia_query(ia3, &got, 0, NULL, 0, NULL));
	ASSERT_PTR_EQ(got, DAT_EVD_OUT_OF_SCOPE);
	/* ia1's async EVD serves ia3 too: ia1 cannot close gracefully. */
	ASSERT_OK(dat_evd_free(plain));
	ASSERT_DAT_EQ(dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE));
	ASSERT_OK(dat_ia_close(ia3, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_evd_free(mine));
	ASSERT_OK(dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG));

	/* An abrupt close of the EVD's IA detaches the IAs that used it. */
	async1 = DAT_HANDLE_NULL;
	ia1 = open_ia(name, &async1);
	h = async1;
	ASSERT_OK(dat_ia_open(name, 8, &h, &ia2));
	ASSERT_OK(dat_ia_close(ia1, DAT_CLOSE_ABRUPT_FLAG));
	ASSERT_OK(dat_ia_query(ia2, &got, 0, NULL, 0, NULL));
	ASSERT_PTR_EQ(got, DAT_HANDLE_NULL);
	ASSERT_OK(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Two names with different ia_params in one dat.conf, and the same name
 * twice: each name has its own table, whose device_name OFED's registry
 * uses at close.
 */
TEST_IMPL(provider_ia_two_names)
{
	DAT_IA_HANDLE a1, a2, b;
	DAT_PZ_HANDLE pa, pb;
	DAT_PROVIDER *ta, *tb;

	conf_names("sd-a", "lo", "sd-b", "127.0.0.1 1", NULL);
	a1 = open_ia("sd-a", NULL);
	b = open_ia("sd-b", NULL);
	a2 = open_ia("sd-a", NULL);
	ASSERT_PTR_NE(a1, a2);
	ASSERT_STR_EQ(ia_addr(a1), "4/127.0.0.1");
	ASSERT_STR_EQ(ia_addr(b), "4/127.0.0.1");

	ASSERT_OK(dat_pz_create(a2, &pa));
	ASSERT_OK(dat_pz_create(b, &pb));
	ta = DAT_HANDLE_TO_PROVIDER(pa);
	tb = DAT_HANDLE_TO_PROVIDER(pb);
	ASSERT_PTR_NE(ta, tb);
	ASSERT_STR_EQ(ta->device_name, "sd-a");
	ASSERT_STR_EQ(tb->device_name, "sd-b");

	ASSERT_OK(dat_ia_close(b, DAT_CLOSE_ABRUPT_FLAG));
	/* sd-a is unaffected by sd-b's close. */
	ASSERT_OK(dat_pz_free(pa));
	ASSERT_OK(dat_ia_close(a1, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(a2, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/*
 * Consumer-side views: IA handles in query results are the registry's
 * indices, the generic calls work on every kind, and the provider's
 * errors reach the consumer unchanged.
 */
TEST_IMPL(provider_ia_handles)
{
	DAT_IA_HANDLE ia = sdt_open_ia("lo", NULL);
	static char buf[256];
	DAT_REGION_DESCRIPTION r = { .for_va = buf };
	DAT_PZ_HANDLE pz;
	DAT_PZ_PARAM pp;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_PARAM lp;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_PARAM rp;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_HANDLE_TYPE type;
	DAT_CONTEXT c = { .as_64 = 42 };

	ASSERT_LT((uintptr_t)ia, 4096);
	ASSERT_OK(dat_pz_create(ia, &pz));
	ASSERT_OK(dat_pz_query(pz, DAT_PZ_FIELD_ALL, &pp));
	ASSERT_PTR_EQ(pp.ia_handle, ia);
	ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, sizeof(buf), pz,
				 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr,
				 &lc, &rc, NULL, NULL));
	ASSERT_OK(dat_lmr_query(lmr, DAT_LMR_FIELD_ALL, &lp));
	ASSERT_PTR_EQ(lp.ia_handle, ia);
	ASSERT_EQ(lp.lmr_context, lc);
	ASSERT_EQ(lp.rmr_context, rc);
	ASSERT_OK(dat_rmr_create(pz, &rmr));
	ASSERT_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &rp));
	ASSERT_PTR_EQ(rp.ia_handle, ia);

	ASSERT_OK(dat_get_handle_type(ia, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_IA);
	ASSERT_OK(dat_get_handle_type(pz, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_PZ);
	ASSERT_OK(dat_get_handle_type(lmr, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_LMR);
	ASSERT_OK(dat_get_handle_type(rmr, &type));
	ASSERT_EQ(type, DAT_HANDLE_TYPE_RMR);
	ASSERT_OK(dat_set_consumer_context(ia, c));
	c.as_64 = 0;
	ASSERT_OK(dat_get_consumer_context(ia, &c));
	ASSERT_UINT64_EQ(c.as_64, 42);

	ASSERT_DAT_EQ(dat_pz_free(pz),
		      ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE));
	ASSERT_DAT_EQ(dat_lmr_sync_rdma_read(ia, NULL, 1),
		      ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	ASSERT_DAT_EQ(dat_rmr_query(lmr, DAT_RMR_FIELD_ALL, &rp),
		      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	ASSERT_OK(dat_rmr_free(rmr));
	ASSERT_OK(dat_lmr_free(lmr));
	ASSERT_OK(dat_pz_free(pz));
	ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}

/* Several threads open, use and close IAs of one name at once. */
static void *ia_thread_main(void *arg)
{
	static char buf[8][512];
	int id = (int)(intptr_t)arg, i;

	for (i = 0; i < 20; i++) {
		DAT_IA_HANDLE ia = open_ia(SDT_IA_NAME, NULL);
		DAT_REGION_DESCRIPTION r = { .for_va = buf[id] };
		DAT_PZ_HANDLE pz;
		DAT_LMR_HANDLE lmr;

		ASSERT_OK(dat_pz_create(ia, &pz));
		ASSERT_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 512, pz,
					 DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
					 &lmr, NULL, NULL, NULL, NULL));
		if (i % 2)
			ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
		else {
			ASSERT_OK(dat_lmr_free(lmr));
			ASSERT_OK(dat_pz_free(pz));
			ASSERT_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
		}
	}
	return NULL;
}

TEST_IMPL(provider_ia_threads)
{
	enum { N = 6 };
	pthread_t tid[N];
	DAT_IA_HANDLE keep;
	int i;

	keep = sdt_open_ia("lo", NULL);	/* keeps the library loaded */
	for (i = 0; i < N; i++)
		ASSERT_OK(pthread_create(&tid[i], NULL, ia_thread_main,
					 (void *)(intptr_t)i));
	for (i = 0; i < N; i++)
		ASSERT_OK(pthread_join(tid[i], NULL));
	ASSERT_OK(dat_ia_close(keep, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
