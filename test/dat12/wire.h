/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The messages of dat12_talks_to_dat2 (test-dat12-interop.c and
 * dat12/peer.c): plain C types only, so that a DAT 1.2 program and a
 * DAT 2.0 one both include it.
 */
#ifndef TEST_DAT12_WIRE_H
#define TEST_DAT12_WIRE_H

#include <stdint.h>

struct peer_msg {
	char		text[32];
	uint32_t	rmr_context;	/* where the receiver may RDMA-write */
	uint32_t	pad;
	uint64_t	addr;
	uint64_t	len;
};

#define PEER_HELLO12	"hello from DAT 1.2"
#define PEER_HELLO2	"hello from DAT 2.0"
#define PEER_WRITTEN12	"written by DAT 1.2"
#define PEER_WRITTEN2	"written by DAT 2.0"
#define PEER_DONE	"done"

#endif
