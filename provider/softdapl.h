/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl: the map of the provider. It declares nothing: the headers
 * below do, one small header per layer's part (see Headers).
 *
 * What lives where, by layer (the LAYERS table below is the rule):
 *
 *   1  util.c       messages, the debug level, timed waits, sd_env_num,
 *                   the lock-owner check
 *      refuse.c     why a call was refused: SOFTDAPL_DEBUG's line for
 *                   every refusal of an entry point
 *      obj.c        objects: handles, IA handles, close ops, CR claims
 *      trace.c      the trace (TRACE.md); params.c ia_params; ctx.c the
 *                   LMR and RMR context tables; cma.c what they grant
 *                   to same-host peers, and RDMA placed by the
 *                   initiator; reg.c registrations
 *   2  engine.c     the libuv thread: commands, hooks, tick, spinning
 *   3  wq.c         work request rings
 *      mem.c        memory checks and binds of the data path, the memory
 *                   lock
 *      evq.c        posting to an EVD, asynchronous errors
 *      trigger.c    CNO triggering and the proxy agent
 *      srqbuf.c     SRQ buffers: the FIFO, take and give-back
 *      tcp.c        TCP behind transport.h, the seam a transport fills
 *      shm.c        shared memory between processes of one host, behind
 *                   the same seam, over a TCP stream
 *   4  the connection core, the one cycle of files:
 *      qp.c         the EP: state machine, the one failure path
 *                   (sd_qp_close), watermarks, creation, release, flush,
 *                   the queueing of a bind
 *      complete.c   completion delivery (the notification rules)
 *      tx.c rx.c    frames out and in (proto.h, PROTOCOL.md)
 *      progress.c   consumer threads moving frames in dat_evd_dequeue
 *                   and dat_evd_wait, spinning and sleeping there; the
 *                   engine's poll events; wake-ups; deferred writes
 *      cm.c         sockets and the handshake, linger, close
 *      sp.c         service points: listening, a request's arrival
 *      fault.c      fault injection (SOFTDAPL_FAULT)
 *      udep.c udcm.c  UD endpoints and their connection exchange
 *   5s api.c        what entry points share: the errno table
 *                   (sd_api_err), modify checks, completion flags, the
 *                   refusals more than one of them says
 *   5e the DAT entry points, one file per object as struct dat_provider
 *      lays them out: ia.c pz.c lmr.c rmr.c evd.c cno.c ep.c post.c
 *      psp.c rsp.c cr.c srq.c ud.c (UD EPs) counters.c (IB counters)
 *   5d provider.c (the DAT_PROVIDER tables), ext.c (the IB extension's
 *      dispatch), trace-api.c (api lines): the only callers of 5e
 *
 * Headers, by layer (the layer numbers are those of the table below; a
 * file includes the headers of its own layer and below):
 *
 *   1h util.h     basics: SD_ERR, lists, counters, debug output, timed
 *                 waits, sd_env_num, the clock, SD_ASSERT_HELD
 *      refuse.h   refusals: the line each says under SOFTDAPL_DEBUG
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
 *      transport.h  the transport seam (tcp.c, shm.c)
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
 * (sd_ep_post_send); internal functions are sd_<file>_<verb>, named for
 * the file they live in; helpers are static. Below the entry points
 * functions return 0 or a negative errno (a count where one is due), and
 * an entry point turns the errno into its DAT_RETURN once, through api.c's
 * table (sd_api_err). A DTO's completion status
 * (DAT_DTO_COMPLETION_STATUS) is an event's payload, not an error of the
 * call: it is made where the completion is.
 *
 * Threads. Consumer threads call the entry points, any number at once. One
 * engine thread per process runs a libuv loop (engine.c) that owns every
 * socket: it completes connects and accepts, and reads and writes frames
 * whenever no consumer does. Consumers reach it through sd_engine_submit
 * (a command queue and an eventfd). Completions are appended to an EVD
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
 *   1  util.c obj.c trace.c params.c ctx.c cma.c reg.c refuse.c
 *   2  engine.c
 *   3  wq.c mem.c evq.c trigger.c srqbuf.c tcp.c shm.c
 *   4  qp.c complete.c sp.c tx.c rx.c progress.c cm.c fault.c udep.c udcm.c
 *   5s api.c
 *   5e ia.c pz.c lmr.c rmr.c evd.c cno.c ep.c post.c psp.c rsp.c cr.c srq.c counters.c ud.c
 *   5d provider.c ext.c trace-api.c
 *   1h util.h obj.h ia.h mem.h cma.h trace.h proto.h udproto.h entry.h softdapl.h refuse.h
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
