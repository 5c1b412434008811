/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DAT 1.2: the data transfer posts (dat12.h). Each converts its segments
 * (and the RMR triplet) on the stack, D12_IOV_MAX at most, and posts them
 * through DAT 2.0; nothing is allocated and the data is not touched. The
 * contract is the provider's: a post that fails here or there never
 * completes, one that succeeds completes exactly once.
 */
#include <stdbool.h>

#include "dat12.h"

D12_API DAT_RETURN DAT_API dat_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT n,
				    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				    DAT_COMPLETION_FLAGS flags)
{
	D2_LMR_TRIPLET t[D12_IOV_MAX];
	D2_DTO_COOKIE c;
	DAT_RETURN ret = d12_lmr_iov(n, iov, t, DAT_INVALID_ARG2);

	if (ret != DAT_SUCCESS)
		return ret;
	c.as_64 = cookie.as_64;
	return d12_ret(d2.ep_post_send(ep, n, t, c, (D2_COMPLETION_FLAGS)flags));
}

D12_API DAT_RETURN DAT_API dat_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT n,
				    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				    DAT_COMPLETION_FLAGS flags)
{
	D2_LMR_TRIPLET t[D12_IOV_MAX];
	D2_DTO_COOKIE c;
	DAT_RETURN ret = d12_lmr_iov(n, iov, t, DAT_INVALID_ARG2);

	if (ret != DAT_SUCCESS)
		return ret;
	c.as_64 = cookie.as_64;
	return d12_ret(d2.ep_post_recv(ep, n, t, c, (D2_COMPLETION_FLAGS)flags));
}

/*
 * RDMA read (@read) or write: the segments, and the RMR triplet, whose
 * 1.2 target_address is 2.0's virtual_address.
 */
static DAT_RETURN post_rdma(bool read, DAT_EP_HANDLE ep, DAT_COUNT n,
			    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    const DAT_RMR_TRIPLET *rmr, DAT_COMPLETION_FLAGS flags)
{
	D2_LMR_TRIPLET t[D12_IOV_MAX];
	D2_RMR_TRIPLET r;
	D2_DTO_COOKIE c;
	DAT_RETURN ret = d12_lmr_iov(n, iov, t, DAT_INVALID_ARG2);

	if (ret != DAT_SUCCESS)
		return ret;
	if (rmr == NULL)
		return D12_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	ret = d12_rmr_triplet(rmr, &r);
	if (ret != DAT_SUCCESS)
		return ret;
	c.as_64 = cookie.as_64;
	return d12_ret(read ? d2.ep_post_rdma_read(ep, n, t, c, &r,
						   (D2_COMPLETION_FLAGS)flags) :
			      d2.ep_post_rdma_write(ep, n, t, c, &r,
						    (D2_COMPLETION_FLAGS)flags));
}

D12_API DAT_RETURN DAT_API dat_ep_post_rdma_read(DAT_EP_HANDLE ep, DAT_COUNT n,
						 DAT_LMR_TRIPLET *iov,
						 DAT_DTO_COOKIE cookie,
						 const DAT_RMR_TRIPLET *rmr,
						 DAT_COMPLETION_FLAGS flags)
{
	return post_rdma(true, ep, n, iov, cookie, rmr, flags);
}

D12_API DAT_RETURN DAT_API dat_ep_post_rdma_write(DAT_EP_HANDLE ep, DAT_COUNT n,
						  DAT_LMR_TRIPLET *iov,
						  DAT_DTO_COOKIE cookie,
						  const DAT_RMR_TRIPLET *rmr,
						  DAT_COMPLETION_FLAGS flags)
{
	return post_rdma(false, ep, n, iov, cookie, rmr, flags);
}

D12_API DAT_RETURN DAT_API dat_srq_post_recv(DAT_SRQ_HANDLE srq, DAT_COUNT n,
				     DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie)
{
	D2_LMR_TRIPLET t[D12_IOV_MAX];
	D2_DTO_COOKIE c;
	DAT_RETURN ret = d12_lmr_iov(n, iov, t, DAT_INVALID_ARG2);

	if (ret != DAT_SUCCESS)
		return ret;
	c.as_64 = cookie.as_64;
	return d12_ret(d2.srq_post_recv(srq, n, t, c));
}
