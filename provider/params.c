/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ia_params: the address an IA listens on and reports, from the dat.conf
 * field the registry hands to dat_provider_init. Parsed at each ia_open,
 * so that an interface that got its address after the library was loaded
 * is found, and so that a mistake is reported by the open that suffers
 * from it. The syntax is one word, optionally followed by a number:
 *
 *   lo, eth0        an interface: its first IPv4 address, else its first
 *                   IPv6 address (a global one before a link-local one)
 *   127.0.0.1, ::1  an address literal (IPv6 may be [bracketed] and carry
 *                   a %scope); it must be an address of this host
 *   0.0.0.0, ::     a wildcard: listen on every address of that family;
 *                   ia_address_ptr (which dtest sends to its peer) is
 *                   then the first non-loopback address of the family on
 *                   an interface that is up, else the loopback address
 *   localhost, a host name
 *                   resolved with getaddrinfo: the first result that is
 *                   an address of this host
 *   "lo 0", "ib0 0" OFED's style: the number (OFED's HCA port) is accepted
 *                   and ignored; anything after it is an error
 *
 * An interface name is tried before a host name. Nothing here keeps
 * state; it is called without locks.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ia.h"

/* The message for a failure: "ia_params "x": what went wrong". */
__attribute__((format(printf, 4, 5)))
static int fail(int err, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return err;
}

static void set_addr(struct sd_ia_addr *a, const struct sockaddr *sa)
{
	a->len = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
					  : sizeof(struct sockaddr_in6);
	memset(&a->ss, 0, sizeof(a->ss));
	memcpy(&a->ss, sa, a->len);
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&a->ss)->sin6_port = 0;
}

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr)
			>> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static bool is_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static bool is_link_local(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 &&
	       IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/*
 * Out of descriptors or memory: a lookup that failed for that says
 * nothing about the name (ia.c answers DAT_INSUFFICIENT_RESOURCES).
 */
static bool no_resources(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM || err == ENOBUFS;
}

/*
 * 1 when @sa is an address of this host (a socket can bind to it), 0
 * when it is not, -errno when no socket could be made to find out.
 */
static int is_local(const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr_storage ss;
	int fd, ok;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memcpy(&ss, sa, len);
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	ok = bind(fd, (struct sockaddr *)&ss, len) == 0;
	close(fd);
	return ok;
}

/* The interface holding address @sa into @ifname ("" if none does). */
static void find_ifname(const struct sockaddr *sa, char *ifname, size_t len)
{
	struct ifaddrs *ifs, *i;

	ifname[0] = '\0';
	if (getifaddrs(&ifs) != 0)
		return;
	for (i = ifs; i != NULL; i = i->ifa_next) {
		const struct sockaddr *a = i->ifa_addr;

		if (a == NULL || a->sa_family != sa->sa_family)
			continue;
		if ((a->sa_family == AF_INET &&
		     ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		     ((const struct sockaddr_in *)sa)->sin_addr.s_addr) ||
		    (a->sa_family == AF_INET6 &&
		     memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			    &((const struct sockaddr_in6 *)sa)->sin6_addr,
			    sizeof(struct in6_addr)) == 0)) {
			snprintf(ifname, len, "%s", i->ifa_name);
			break;
		}
	}
	freeifaddrs(ifs);
}

/*
 * Ranks an address of interface list entry @i for choice @name (NULL:
 * the wildcard of @family): 0 unusable, higher is better.
 */
static int rank(const struct ifaddrs *i, const char *name, int family)
{
	const struct sockaddr *a = i->ifa_addr;

	if (a == NULL || (a->sa_family != AF_INET && a->sa_family != AF_INET6))
		return 0;
	if (name != NULL) {
		/* An interface: IPv4, then global IPv6, then link-local. */
		if (strcmp(i->ifa_name, name) != 0)
			return 0;
		return a->sa_family == AF_INET ? 3 : is_link_local(a) ? 1 : 2;
	}
	/* A wildcard: the family's non-loopback addresses of an up link. */
	if (a->sa_family != family)
		return 0;
	if (is_loopback(a))
		return 1;
	if (!(i->ifa_flags & IFF_UP))
		return 0;
	return is_link_local(a) ? 2 : 3;
}

/*
 * The best address of interface @name, or for the wildcard of @family
 * when @name is NULL, into @a. Returns 0, -ENODEV when there is no such
 * interface, -EADDRNOTAVAIL when it has no address.
 */
static int pick_ifaddr(const char *name, int family, struct sd_ia_addr *a)
{
	struct ifaddrs *ifs, *i, *best = NULL;
	int best_rank = 0, r, err = -ENODEV;

	if (getifaddrs(&ifs) != 0)
		return -errno;
	for (i = ifs; i != NULL; i = i->ifa_next) {
		if (name != NULL && strcmp(i->ifa_name, name) == 0)
			err = -EADDRNOTAVAIL;
		r = rank(i, name, family);
		if (r > best_rank) {
			best = i;
			best_rank = r;
		}
	}
	if (best != NULL) {
		set_addr(a, best->ifa_addr);
		snprintf(a->ifname, sizeof(a->ifname), "%s", best->ifa_name);
		err = 0;
	}
	freeifaddrs(ifs);
	return err;
}

/* The loopback address of @family into @a (a wildcard on a bare host). */
static void loopback(int family, struct sd_ia_addr *a)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_loopback;
	}
	set_addr(a, (struct sockaddr *)&ss);
}

/* An address literal, or -ENOENT when @word is not one. */
static int parse_literal(const char *word, struct sd_ia_addr *a, char *err,
			 size_t errlen, const char *params)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICHOST,
	};
	struct addrinfo *res;
	char buf[256];
	size_t n = strlen(word);
	int rc;

	/* [::1] as in URLs. */
	if (n >= 2 && word[0] == '[' && word[n - 1] == ']') {
		if (n - 2 >= sizeof(buf))
			return -ENOENT;
		memcpy(buf, word + 1, n - 2);
		buf[n - 2] = '\0';
		word = buf;
	}
	if (getaddrinfo(word, NULL, &hints, &res) != 0)
		return -ENOENT;

	if (is_any(res->ai_addr)) {
		int family = res->ai_family;

		freeaddrinfo(res);
		if (pick_ifaddr(NULL, family, a) != 0)
			loopback(family, a);
		a->any = true;
		return 0;
	}
	rc = is_local(res->ai_addr, res->ai_addrlen);
	if (rc < 0) {
		freeaddrinfo(res);
		return fail(rc, err, errlen, "ia_params \"%s\": no socket to "
			    "check %s with: %s", params, word, strerror(-rc));
	}
	if (rc == 0) {
		freeaddrinfo(res);
		return fail(-EADDRNOTAVAIL, err, errlen,
			    "ia_params \"%s\": %s is not an address of this host",
			    params, word);
	}
	set_addr(a, res->ai_addr);
	freeaddrinfo(res);
	find_ifname((struct sockaddr *)&a->ss, a->ifname, sizeof(a->ifname));
	return 0;
}

/* A host name: the first of its addresses that is this host's. */
static int parse_host(const char *word, struct sd_ia_addr *a, char *err,
		      size_t errlen, const char *params)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res, *r;
	int rc;

	rc = getaddrinfo(word, NULL, &hints, &res);
	if (rc != 0)
		return fail(-ENODEV, err, errlen,
			    "ia_params \"%s\": no interface or host named %s (%s)",
			    params, word, gai_strerror(rc));
	for (r = res; r != NULL; r = r->ai_next) {
		if ((r->ai_family == AF_INET || r->ai_family == AF_INET6) &&
		    is_local(r->ai_addr, r->ai_addrlen) == 1) {
			set_addr(a, r->ai_addr);
			freeaddrinfo(res);
			find_ifname((struct sockaddr *)&a->ss, a->ifname,
				    sizeof(a->ifname));
			return 0;
		}
	}
	freeaddrinfo(res);
	return fail(-EADDRNOTAVAIL, err, errlen,
		    "ia_params \"%s\": host %s has no address of this host",
		    params, word);
}

/*
 * What the IA's interface is like now (its MTU, hardware address and
 * whether it is up), for the named attributes (ia.c). Best effort: a
 * fact that cannot be read stays 0.
 */
static void link_facts(struct sd_ia_addr *a)
{
	struct ifreq ifr;
	int fd;

	if (a->ifname[0] == '\0' || strlen(a->ifname) >= sizeof(ifr.ifr_name))
		return;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, a->ifname, strlen(a->ifname));
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		a->mtu = (unsigned)ifr.ifr_mtu;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(a->mac, ifr.ifr_hwaddr.sa_data, sizeof(a->mac));
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		a->up = (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) ==
			(IFF_UP | IFF_RUNNING);
	close(fd);
}

/* The address, without the link facts (sd_params_parse adds them). */
static int parse_addr(const char *ia_params, struct sd_ia_addr *addr,
		      char *err, size_t errlen)
{
	char word[256], port[32], extra[2];
	const char *params = ia_params != NULL ? ia_params : "";
	int n, rc;

	memset(addr, 0, sizeof(*addr));
	n = sscanf(params, "%255s %31s %1s", word, port, extra);
	if (n < 1)
		return fail(-EINVAL, err, errlen,
			    "ia_params \"%s\": empty; name an interface (lo), an address or a host",
			    params);
	if (strlen(word) == sizeof(word) - 1)
		return fail(-EINVAL, err, errlen, "ia_params \"%.40s...\": too long",
			    params);
	if (n >= 2) {
		size_t i;

		for (i = 0; port[i] != '\0'; i++)
			if (!isdigit((unsigned char)port[i]))
				return fail(-EINVAL, err, errlen,
					    "ia_params \"%s\": \"%s\" after the address is not a port number",
					    params, port);
	}
	if (n == 3)
		return fail(-EINVAL, err, errlen,
			    "ia_params \"%s\": more than an address and a port number",
			    params);

	rc = parse_literal(word, addr, err, errlen, params);
	if (rc != -ENOENT)
		return rc;

	rc = pick_ifaddr(word, AF_UNSPEC, addr);
	if (rc == 0)
		return 0;
	if (no_resources(-rc))
		return fail(rc, err, errlen, "ia_params \"%s\": cannot list "
			    "the interfaces: %s", params, strerror(-rc));
	if (rc == -EADDRNOTAVAIL)
		return fail(-ENODEV, err, errlen,
			    "ia_params \"%s\": interface %s has no IP address",
			    params, word);

	return parse_host(word, addr, err, errlen, params);
}

int sd_params_parse(const char *ia_params, struct sd_ia_addr *addr,
		    char *err, size_t errlen)
{
	int rc = parse_addr(ia_params, addr, err, errlen);

	if (rc == 0)
		link_facts(addr);
	return rc;
}
