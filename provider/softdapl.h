/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: the map of the provider. It declares nothing: the headers
 * below do, one small header per layer's part (see Headers).
 *
 * What lives where (one file per DAT object, as the entry points are laid
 * out in struct dat_provider):
 *
 *   provider.c   dat_provider_init/fini, the DAT_PROVIDER table; reg.c:
 *                its registrations, one per IA name
 *   ia.c         IA open/query/close; params.c: ia_params parsing
 *   pz.c lmr.c rmr.c                memory: PZ, LMR (bounds, types),
 *                                   RMR (memory windows, binds)
 *   ctx.c mem.c                     their contexts; the memory lock, the
 *                                   checks and binds the data path makes
 *   evd.c cno.c                     events: EVD rings, waiting, CNO
 *   evq.c trigger.c                 below them: posting to an EVD and async
 *                                   errors (evq.c), CNO triggering
 *   ep.c         EP lifecycle and state machine
 *   psp.c rsp.c cr.c cm.c           service points, requests, handshake
 *   post.c       the DTO entry points (post_send/recv/rdma_write/rdma_read,
 *                send_with_invalidate, rdma_read_to_rmr), the EP side of
 *                dat_rmr_bind, the IB extension's requests (for ext.c)
 *   srq.c        SRQ; srqbuf.c: its buffers (the FIFO, take and give-back)
 *   wq.c         work queues: the rings of work requests (sd_wq)
 *   tx.c rx.c    the wire engine: framing out, placing in (proto.h)
 *   engine.c     the event loop thread and how other threads reach it
 *   progress.c   consumer threads moving frames from dat_evd_dequeue and
 *                dat_evd_wait, spinning and sleeping there; the poll
 *                events of the engine, wake-ups of an EP; deferred ACKs
 *                and batches
 *   obj.c util.c what every object has (handles, IA handles, debug
 *                output); timed waits
 *
 * Headers, by layer (the layer numbers are those of the table below; a
 * file includes the headers of its own layer and below):
 *
 *   1h util.h     basics: SD_ERR, lists, counters, debug output, timed
 *                 waits, sd_env_num, the clock, SD_ASSERT_HELD
 *      obj.h      objects: magic, struct sd_obj, handles, close ops, claims
 *      ia.h       the IA, its address and named attributes; reg.c
 *      mem.h      PZ, LMR, RMR, binds, segments; ctx.c, and mem.c's side
 *      trace.h    the trace (TRACE.md)
 *      proto.h udproto.h  the wire formats (RC, UD)
 *      entry.h    the entry points, one per slot of struct dat_provider
 *      softdapl.h this map
 *   2h engine.h   the engine: commands, hooks, tick, spinning,
 *                 SD_ASSERT_ENGINE, sd_engine_sync
 *   3h wq.h       work requests and queues; the limits of EPs and SRQs
 *      evq.h      EVD and CNO; evq.c, trigger.c, async errors
 *      srqbuf.h   the SRQ and its buffers
 *      transport.h  the transport seam (tcp.c)
 *   4h sock.h     sockets (cm.c)
 *      wire.h     tx and rx state; tx.c, rx.c, complete.c; fault.c
 *      progress.h progress from consumer threads (progress.c)
 *      qp.h       the EP (struct sd_ep) and qp.c
 *      sp.h       service points and connection requests (sp.c)
 *      ext.h      the IB extensions and the UD core (udep.c, udcm.c)
 *   5h api.h      helpers of the entry points (api.c)
 *      post.h     post.c's requests for ext.c
 *
 * Naming: DAT entry points keep their DAT names with an sd_ prefix
 * (sd_ep_post_send); internal functions are sd_<object>_<verb>; helpers are
 * static. Internally functions return 0 or a negative errno, or a
 * DAT_RETURN where the value goes straight back to the consumer; each says
 * which. The translation happens once, at the entry point.
 *
 * Threads. Consumer threads call the entry points, any number at once. One
 * engine thread per process runs a libuv loop (engine.c) that owns every
 * socket: it completes connects and accepts, and reads and writes frames
 * whenever no consumer does. Consumers reach it through sd_engine_submit
 * (a command queue and a uv_async_t). Completions are appended to an EVD
 * ring under the EVD's lock by whichever thread completes the DTO.
 *
 * The data path avoids the hop to the engine where it can (progress.c):
 * a post writes its frame from the consumer's thread when nothing is in
 * flight, and otherwise leaves it for a batch; a thread in dat_evd_dequeue
 * or dat_evd_wait reads and writes the sockets of the EPs completing on
 * that EVD itself, spinning briefly and then sleeping in poll() on them,
 * so that a message wakes the thread that wants it and no other; the
 * engine stops polling a socket that consumers read first, until its next
 * tick. Nothing in the data path allocates: work requests, frames and
 * event slots are preallocated when their queue is created.
 *
 * Locks, in the order they nest (never take an earlier one while holding a
 * later one):
 *
 *   IA list lock (ia.c)  the list of open IAs
 *   ia->lock     object lists of the IA, the LMR context table
 *   ep->lock     EP state, its queues, its connection's tx/rx state
 *   srq->lock    SRQ buffers
 *   memory lock (mem.c)  context tables, LMR references, RMR bindings
 *   async lock (evq.c)   which EVD each IA's async errors go to
 *   evd->lock    the event ring, waiters
 *   cno->lock
 *   engine command queue lock (leaf)
 *   progress.c's tick lock (leaf: EPs owing writes)
 *
 * Every struct says which lock guards which field; "engine" means the
 * field is touched only on the engine thread, "const" that it is set at
 * creation and read-only afterwards.
 *
 * Layers. A file calls only functions of its own layer and the layers
 * below; nothing calls a DAT entry point but the provider table and the
 * extension dispatch. Upcalls happen only by completion delivery, the one
 * failure path of an EP, or a command or function pointer the upper layer
 * registered: completion delivery is complete.c posting through evq.c,
 * the failure path is qp.c's sd_qp_close, and the registered ones are
 * the engine's hooks (tick, shutdown), commands (struct sd_cmd), the CNO
 * proxy agent, the transport's readiness callback and the SRQ's watermark
 * check (sd_srqbuf_take's refuse). Files call each other in a cycle only
 * inside the connection core (layer 4), at most 8 of them.
 * test/layers/check-layers.sh reads the table below (one file on one
 * line) and checks it against the objects' symbols (nm) in make check
 * (layers_*), and fails on any break. The lines ending in h give the headers
 * their layers: a .c of layers 1 to 4, or a header, includes no provider
 * header of a higher layer (a .c of 5s, 5e or 5d may include any), and
 * every header has a layer, as every .c does. entry.h, trace.h, proto.h
 * and udproto.h (the ABI, the trace and the wire formats) include no other
 * provider header and are in 1h, so that any file may include them; what
 * a file may call of them is the call rule's business.
 *
 * LAYERS-BEGIN
 *   1  util.c obj.c trace.c params.c ctx.c reg.c
 *   2  engine.c
 *   3  wq.c mem.c evq.c trigger.c srqbuf.c tcp.c
 *   4  qp.c complete.c sp.c tx.c rx.c progress.c cm.c fault.c udep.c udcm.c
 *   5s api.c
 *   5e ia.c pz.c lmr.c rmr.c evd.c cno.c ep.c post.c psp.c rsp.c cr.c srq.c counters.c ud.c
 *   5d provider.c ext.c trace-api.c
 *   1h util.h obj.h ia.h mem.h trace.h proto.h udproto.h entry.h softdapl.h
 *   2h engine.h
 *   3h wq.h evq.h srqbuf.h transport.h
 *   4h sock.h wire.h progress.h qp.h sp.h ext.h
 *   5h api.h post.h
 * LAYERS-END
 *
 *   1  utilities and objects
 *   2  the engine: loop, commands, hooks registered from above
 *   3  services objects offer below the API (memory resolution, work
 *      queues, EVD posting, SRQ buffers)
 *   4  the connection core: EP state machine, completion and flush, tx,
 *      rx, progress, sockets, connection management, faults (the only
 *      cycle allowed)
 *   5s helpers shared by the entry points
 *   5e the DAT entry points
 *   5d the provider table and extension dispatch, which call them
 */
