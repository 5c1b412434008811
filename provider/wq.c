/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Work queues: the preallocated rings of work requests that EPs (their
 * request and receive queues) and UD EPs post into (wq.h, struct
 * sd_wq, with the inlines that fill and empty them). Allocated when the
 * queue is created, so that nothing on the post path allocates
 * (COMMON-4). No lock of their own: a queue is guarded by its owner's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wq.h"

int sd_wq_init(struct sd_wq *wq, uint32_t size, uint32_t max_sge)
{
	memset(wq, 0, sizeof(*wq));
	wq->size = size;
	wq->max_sge = max_sge;
	if (size == 0)
		return 0;
	wq->wqe = calloc(size, sizeof(*wq->wqe));
	wq->sge = calloc((size_t)size * (max_sge ? max_sge : 1), sizeof(*wq->sge));
	if (wq->wqe == NULL || wq->sge == NULL) {
		sd_wq_destroy(wq);
		return -ENOMEM;
	}
	return 0;
}

void sd_wq_destroy(struct sd_wq *wq)
{
	free(wq->wqe);
	free(wq->sge);
	memset(wq, 0, sizeof(*wq));
}
