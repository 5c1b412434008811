/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datinfo: opening an IA through libdat2 as a consumer does, its
 * attributes, and the registry's debug output captured around each call.
 *
 * The attributes are formatted while the IA is open: their named-attribute
 * arrays and address point into the provider, which may be unloaded at the
 * close.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "datinfo.h"

/* "DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED (0x...)" into @buf. */
const char *di_ret_str(DAT_RETURN r, char *buf, size_t len)
{
	const char *major = NULL, *minor = NULL;

	if (dat_strerror(r, &major, &minor) != DAT_SUCCESS || major == NULL)
		major = "(unknown DAT_RETURN)";
	di_fmt(buf, len, "%s%s%s (0x%08x)", major,
	       minor && *minor ? " " : "", minor ? minor : "", (unsigned)r);
	return buf;
}

/* ------------------------------------------------------------------------
 * Capture: stderr, where the registry writes (DAT_DBG_DEST unset), and
 * stdout, where some providers print (OFED's write "open_hca: ..." there),
 * go to one temporary file between begin and end. Not nested.
 */

static FILE *cap_file;
static int cap_saved[2] = { -1, -1 };	/* the real stdout and stderr */

static void cap_restore(void)
{
	int fd;

	for (fd = 0; fd < 2; fd++) {
		if (cap_saved[fd] < 0)
			continue;
		dup2(cap_saved[fd], fd + 1);
		close(cap_saved[fd]);
		cap_saved[fd] = -1;
	}
}

void di_capture_begin(void)
{
	int fd;

	if (!di_opts.capture)
		return;
	fflush(stdout);
	fflush(stderr);
	cap_file = tmpfile();
	if (cap_file == NULL)
		return;
	for (fd = 0; fd < 2; fd++) {
		cap_saved[fd] = dup(fd + 1);
		if (cap_saved[fd] < 0 || dup2(fileno(cap_file), fd + 1) < 0) {
			cap_restore();
			fclose(cap_file);
			cap_file = NULL;
			return;
		}
	}
}

/* The captured text (malloc'd), or NULL when there was none. */
char *di_capture_end(void)
{
	char *s = NULL;
	long n;

	if (cap_file == NULL)
		return NULL;
	fflush(stdout);
	fflush(stderr);
	cap_restore();
	if (fseek(cap_file, 0, SEEK_END) == 0 && (n = ftell(cap_file)) > 0) {
		s = malloc((size_t)n + 1);
		rewind(cap_file);
		if (s != NULL) {
			n = (long)fread(s, 1, (size_t)n, cap_file);
			s[n] = '\0';
		}
	}
	fclose(cap_file);
	cap_file = NULL;
	return s;
}

/* Prints @log line by line, each after @indent. */
void di_print_log(const char *log, const char *indent)
{
	while (log != NULL && *log != '\0') {
		size_t n = strcspn(log, "\n");

		printf("%s%.*s\n", indent, (int)n, log);
		log += n + (log[n] == '\n');
	}
}

/* The file libdat2 was loaded from: the registry every DAT call goes to. */
const char *di_registry_path(void)
{
	static char path[PATH_MAX];
	void *sym = dlsym(RTLD_DEFAULT, "dat_ia_openv");
	Dl_info info;

	if (sym == NULL || !dladdr(sym, &info) || info.dli_fname == NULL)
		return "(unknown)";
	if (realpath(info.dli_fname, path) == NULL)
		di_fmt(path, sizeof(path), "%s", info.dli_fname);
	return path;
}

/* ------------------------------------------------------------------------
 * Attributes
 */

static void format_address(const DAT_SOCK_ADDR *sa, char *out, size_t size)
{
	char ip[INET6_ADDRSTRLEN];

	if (sa == NULL) {
		di_fmt(out, size, "none");
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		di_fmt(out, size, "%s", ip);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		di_fmt(out, size, "%s", ip);
	} else {
		di_fmt(out, size, "address family %d", sa->sa_family);
	}
}

static const char *yes_no(DAT_BOOLEAN b)
{
	return b ? "yes" : "no";
}

static const char *ext_name(DAT_EXTENSION e)
{
	switch (e) {
	case DAT_EXTENSION_NONE:
		return "none";
	case DAT_EXTENSION_IB:
		return "IB";
	case DAT_EXTENSION_IW:
		return "iWARP";
	}
	return "unknown";
}

static void print_named(FILE *f, const char *what, DAT_COUNT n,
			const DAT_NAMED_ATTR *a)
{
	DAT_COUNT i;

	fprintf(f, "%-36s %d\n", what, (int)n);
	for (i = 0; a != NULL && i < n; i++)
		fprintf(f, "    %-32s %s\n", a[i].name ? a[i].name : "(null)",
			a[i].value ? a[i].value : "(null)");
}

/* The concise block: adapter, limits, SRQ, extensions, provider. */
static char *format_short(const DAT_IA_ATTR *ia, const DAT_PROVIDER_ATTR *p)
{
	char addr[128], *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int i;

	if (f == NULL)
		return NULL;
	format_address(ia->ia_address_ptr, addr, sizeof(addr));
	fprintf(f, "adapter %s, vendor %s (hardware %u.%u, firmware %u.%u), address %s\n",
		ia->adapter_name, ia->vendor_name, ia->hardware_version_major,
		ia->hardware_version_minor, ia->firmware_version_major,
		ia->firmware_version_minor, addr);
	fprintf(f, "max_eps %d, max_dto_per_ep %d, max_message_size %" PRIu64
		", max_rdma_size %" PRIu64 "\n",
		(int)ia->max_eps, (int)ia->max_dto_per_ep,
		(uint64_t)ia->max_message_size, (uint64_t)ia->max_rdma_size);
	fprintf(f, "max_iov_segments %d per DTO (%d per RDMA read, %d per write), max_rdma_read_per_ep %d in, %d out\n",
		(int)ia->max_iov_segments_per_dto,
		(int)ia->max_iov_segments_per_rdma_read,
		(int)ia->max_iov_segments_per_rdma_write,
		(int)ia->max_rdma_read_per_ep_in,
		(int)ia->max_rdma_read_per_ep_out);
	if (p->srq_supported)
		fprintf(f, "srq: yes (max_srqs %d, max_recv_per_srq %d)",
			(int)ia->max_srqs, (int)ia->max_recv_per_srq);
	else
		fprintf(f, "srq: no");
	fprintf(f, ", extensions: %s", ext_name(ia->extension_supported));
	if (ia->extension_supported != DAT_EXTENSION_NONE)
		fprintf(f, " version %d", (int)ia->extension_version);
	fprintf(f, "\nprovider %s %u.%u, DAPL %u.%u, %s\n", p->provider_name,
		p->provider_version_major, p->provider_version_minor,
		p->dapl_version_major, p->dapl_version_minor,
		p->is_thread_safe ? "thread safe" : "not thread safe");
	for (i = 0; i < p->num_provider_specific_attr; i++) {
		const DAT_NAMED_ATTR *a = &p->provider_specific_attr[i];

		if (strcmp(a->name, "SOFTDAPL_TRANSPORT") != 0)
			continue;
		fprintf(f, "connections on this host: %s (SOFTDAPL_TRANSPORT=%s)\n",
			strcmp(a->value, "tcp") == 0 ? "TCP" :
			strcmp(a->value, "copy") == 0 ?
			"shared memory, copied through rings" :
			"shared memory, RDMA placed by the initiator where "
			"the kernel allows, else TCP", a->value);
	}
	fclose(f);
	return s;
}

#define FIELD_U(f, s, name)  fprintf(f, "%-36s %u\n", #name, (unsigned)(s)->name)
#define FIELD_D(f, s, name)  fprintf(f, "%-36s %d\n", #name, (int)(s)->name)
#define FIELD_X(f, s, name)  fprintf(f, "%-36s 0x%" PRIx64 "\n", #name, \
				     (uint64_t)(s)->name)
#define FIELD_L(f, s, name)  fprintf(f, "%-36s %" PRIu64 "\n", #name, \
				     (uint64_t)(s)->name)
#define FIELD_B(f, s, name)  fprintf(f, "%-36s %s\n", #name, yes_no((s)->name))

/* Every field of both structures, one per line. */
static char *format_all(const DAT_IA_ATTR *ia, const DAT_PROVIDER_ATTR *p)
{
	char addr[128], *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int i, j;

	if (f == NULL)
		return NULL;
	format_address(ia->ia_address_ptr, addr, sizeof(addr));
	fprintf(f, "ia_attr:\n");
	fprintf(f, "%-36s %s\n", "adapter_name", ia->adapter_name);
	fprintf(f, "%-36s %s\n", "vendor_name", ia->vendor_name);
	FIELD_U(f, ia, hardware_version_major);
	FIELD_U(f, ia, hardware_version_minor);
	FIELD_U(f, ia, firmware_version_major);
	FIELD_U(f, ia, firmware_version_minor);
	fprintf(f, "%-36s %s\n", "ia_address_ptr", addr);
	FIELD_D(f, ia, max_eps);
	FIELD_D(f, ia, max_dto_per_ep);
	FIELD_D(f, ia, max_rdma_read_per_ep_in);
	FIELD_D(f, ia, max_rdma_read_per_ep_out);
	FIELD_D(f, ia, max_evds);
	FIELD_D(f, ia, max_evd_qlen);
	FIELD_D(f, ia, max_iov_segments_per_dto);
	FIELD_D(f, ia, max_lmrs);
	FIELD_L(f, ia, max_lmr_block_size);
	FIELD_X(f, ia, max_lmr_virtual_address);
	FIELD_D(f, ia, max_pzs);
	FIELD_L(f, ia, max_message_size);
	FIELD_L(f, ia, max_rdma_size);
	FIELD_D(f, ia, max_rmrs);
	FIELD_X(f, ia, max_rmr_target_address);
	FIELD_D(f, ia, max_srqs);
	FIELD_D(f, ia, max_ep_per_srq);
	FIELD_D(f, ia, max_recv_per_srq);
	FIELD_D(f, ia, max_iov_segments_per_rdma_read);
	FIELD_D(f, ia, max_iov_segments_per_rdma_write);
	FIELD_D(f, ia, max_rdma_read_in);
	FIELD_D(f, ia, max_rdma_read_out);
	FIELD_B(f, ia, max_rdma_read_per_ep_in_guaranteed);
	FIELD_B(f, ia, max_rdma_read_per_ep_out_guaranteed);
	FIELD_B(f, ia, zb_supported);
	fprintf(f, "%-36s %s\n", "extension_supported",
		ext_name(ia->extension_supported));
	FIELD_D(f, ia, extension_version);
	print_named(f, "transport_attr", ia->num_transport_attr,
		    ia->transport_attr);
	print_named(f, "vendor_attr", ia->num_vendor_attr, ia->vendor_attr);

	fprintf(f, "provider_attr:\n");
	fprintf(f, "%-36s %s\n", "provider_name", p->provider_name);
	FIELD_U(f, p, provider_version_major);
	FIELD_U(f, p, provider_version_minor);
	FIELD_U(f, p, dapl_version_major);
	FIELD_U(f, p, dapl_version_minor);
	FIELD_X(f, p, lmr_mem_types_supported);
	FIELD_X(f, p, iov_ownership_on_return);
	FIELD_X(f, p, dat_qos_supported);
	FIELD_X(f, p, completion_flags_supported);
	FIELD_B(f, p, is_thread_safe);
	FIELD_D(f, p, max_private_data_size);
	FIELD_B(f, p, supports_multipath);
	FIELD_D(f, p, ep_creator);
	FIELD_D(f, p, pz_support);
	FIELD_U(f, p, optimal_buffer_alignment);
	fprintf(f, "%-36s", "evd_stream_merging_supported");
	for (i = 0; i < 6; i++) {
		fprintf(f, " ");
		for (j = 0; j < 6; j++)
			fprintf(f, "%c", p->evd_stream_merging_supported[i][j] ? '1' : '0');
	}
	fprintf(f, "\n");
	FIELD_B(f, p, srq_supported);
	FIELD_D(f, p, srq_watermarks_supported);
	FIELD_B(f, p, srq_ep_pz_difference_supported);
	FIELD_D(f, p, srq_info_supported);
	FIELD_D(f, p, ep_recv_info_supported);
	FIELD_B(f, p, lmr_sync_req);
	FIELD_B(f, p, dto_async_return_guaranteed);
	FIELD_B(f, p, rdma_write_for_rdma_read_req);
	FIELD_B(f, p, rdma_read_lmr_rmr_context_exposure);
	FIELD_D(f, p, rmr_scope_supported);
	FIELD_B(f, p, is_signal_safe);
	FIELD_B(f, p, ha_supported);
	FIELD_D(f, p, ha_loadbalancing);
	print_named(f, "provider_specific_attr", p->num_provider_specific_attr,
		    p->provider_specific_attr);
	fclose(f);
	return s;
}

/*
 * dat_ia_openv(@name, @major, @minor, @ts) as a consumer calls it, then
 * dat_ia_query and dat_ia_close; results go into @l (attrs, reg_log,
 * query_ret, close_ret). Returns what dat_ia_openv returned.
 */
DAT_RETURN di_open_query(const char *name, DAT_UINT32 major, DAT_UINT32 minor,
			 DAT_BOOLEAN ts, struct di_line *l)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_PROVIDER_ATTR pattr;
	DAT_IA_ATTR attr;
	char buf[DAT_NAME_MAX_LENGTH + 1];
	DAT_RETURN r;

	di_fmt(buf, sizeof(buf), "%s", name);
	di_capture_begin();
	r = dat_ia_openv(buf, 8, &async, &ia, major, minor, ts);
	if (r == DAT_SUCCESS) {
		memset(&attr, 0, sizeof(attr));
		memset(&pattr, 0, sizeof(pattr));
		l->query_ret = dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &attr,
					    DAT_PROVIDER_FIELD_ALL, &pattr);
		if (l->query_ret == DAT_SUCCESS) {
			l->attrs = format_short(&attr, &pattr);
			l->attrs_all = format_all(&attr, &pattr);
		}
		l->close_ret = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	}
	free(l->reg_log);
	l->reg_log = di_capture_end();
	return r;
}

void di_line_free(struct di_line *l)
{
	free(l->reg_log);
	free(l->attrs);
	free(l->attrs_all);
	l->reg_log = l->attrs = l->attrs_all = NULL;
}
