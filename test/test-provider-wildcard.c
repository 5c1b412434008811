/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An IA named by a wildcard address (ia_params "0.0.0.0") listens on every
 * address of the host: a client reaches its service point through
 * 127.0.0.1 as well as through the address the IA reports.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "provider-conn.h"
#include "provider-util.h"
#include "test.h"

TEST_IMPL(provider_wildcard_listens_everywhere)
{
	char conf[2048], name_any[] = "sdany", name_lo[] = "sdlo";
	DAT_EVD_HANDLE async1 = DAT_HANDLE_NULL, async2 = DAT_HANDLE_NULL;
	struct sdt_node srv, cli;
	DAT_IA_HANDLE ia_any, ia_lo;
	struct sockaddr_in to;
	DAT_EVENT ev;

	snprintf(conf, sizeof(conf),
		 "sdany u2.0 nonthreadsafe default %s softdapl.2.0 \"0.0.0.0\" \"\"\n"
		 "sdlo u2.0 nonthreadsafe default %s softdapl.2.0 \"lo\" \"\"\n",
		 sdt_provider_path(), sdt_provider_path());
	test_dat_conf(conf);
	ASSERT_OK(dat_ia_open(name_any, 8, &async1, &ia_any));
	ASSERT_OK(dat_ia_open(name_lo, 8, &async2, &ia_lo));
	sdt_node_init(&srv, ia_any, NULL, 4096);
	sdt_node_init(&cli, ia_lo, NULL, 4096);

	ASSERT_OK(dat_psp_create_any(ia_any, &srv.port, srv.cr_evd,
				     DAT_PSP_CONSUMER_FLAG, &srv.psp));
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(dat_ep_connect(cli.ep, (DAT_IA_ADDRESS_PTR)&to, srv.port,
				 10 * 1000 * 1000, 0, NULL, DAT_QOS_BEST_EFFORT,
				 DAT_CONNECT_DEFAULT_FLAG));
	ev = sdt_wait(srv.cr_evd, 10000);
	ASSERT_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	ASSERT_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				srv.ep, 0, NULL));
	sdt_expect_conn(srv.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
	sdt_expect_conn(cli.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);

	sdt_disconnect(&cli, &srv);
	sdt_node_fini(&cli);
	sdt_node_fini(&srv);
	ASSERT_OK(dat_ia_close(ia_lo, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(dat_ia_close(ia_any, DAT_CLOSE_GRACEFUL_FLAG));
	return 0;
}
