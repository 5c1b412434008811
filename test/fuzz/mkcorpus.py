#!/usr/bin/env python3
# Writes the seed corpus of the fuzzers, test/fuzz/corpus/<target>/, from
# the wire format of provider/proto.h and the dat.conf syntax of
# registry/conf.h. The files are in the tree; run this again (from the top
# of the tree) after changing a format or the options of a harness:
#
#   python3 test/fuzz/mkcorpus.py
#
# Each seed's name says what it is. rx seeds start with the harness's
# option byte (fuzz-rx.c: OPT_*) and name memory by the context index
# ctx_fix translates (0 the remote-writable LMR, 1 read-only, 2 local-only,
# 3 the RMR window, 4 the EP-scope RMR window, 5 another PZ's LMR, 6 a
# freed LMR's context, 7 the receive buffers' LMR). ring seeds start with
# fuzz-ring.c's option byte, then its operations (OP_*); the frames they
# put into the ring name memory as rx seeds do.
import os
import shutil
import struct

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# ---- proto.h --------------------------------------------------------------
MAGIC, VERSION = 0x4C504453, 1
HELLO, ACCEPT, REJECT, RTU = 1, 2, 3, 4
(SEND, SEND_SE, WRITE, READ_REQ, READ_RESP, ACK, TERMINATE, DISCONNECT,
 SEND_INV, SEND_SE_INV, WRITE_IMM, WRITE_IMM_SE, FETCH_ADD, CMP_SWAP,
 ATOMIC_RESP) = range(1, 16)
TAG_NONE = 0xFFFFFFFF


def cm(typ, reason=0, qual=0, max_msg=1 << 31, max_rdma=1 << 31, rd_in=4,
       rd_out=4, pdata=b"", pdata_len=None, magic=MAGIC, version=VERSION):
    n = len(pdata) if pdata_len is None else pdata_len
    return struct.pack("<IHBBQIIIIH6x", magic, version, typ, reason, qual,
                       max_msg, max_rdma, rd_in, rd_out, n) + pdata


def hdr(op, ack=0, ln=0, rkey=0, addr=0, tag=0, code=0, flags=0, res=0):
    return struct.pack("<BBHIIIQII", op, flags, res, ack, ln, rkey, addr,
                       tag, code)


def frame(op, payload=b"", **kw):
    if "ln" not in kw:
        kw["ln"] = len(payload)
    return hdr(op, **kw) + payload


def pat(n, seed=1):
    return bytes((seed + i * 13) & 0xFF for i in range(n))


def atomic_args(a, b=0):
    return struct.pack("<QQ", a, b)


# rx options (fuzz-rx.c): the first byte, then the second
SRQ, REQS, CHUNKS, RD1, DISC = 0x08, 0x10, 0x20, 0x40, 0x80
LATE, DRIVE = 0x01, 0x02


def write_dir(name, seeds):
    d = os.path.join(TOP, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    for fname, data in seeds:
        with open(os.path.join(d, fname), "wb") as f:
            f.write(data)
    print("%s: %d seeds" % (d, len(seeds)))


# ---- rx ---------------------------------------------------------------------
def rx_seeds():
    s = []
    add2 = lambda n, opt, opt2, *frames: s.append(
        (n, bytes([opt, opt2]) + b"".join(frames)))
    add = lambda n, opt, *frames: add2(n, opt, 0, *frames)
    d = frame(DISCONNECT, tag=TAG_NONE)
    # Receive slots, in order: 0, 4000+1000, 16, 8+24, 128, 1+2+3+100,
    # 50+0+50, 256 (an EP posts 7 at most; an SRQ 8).
    add("send-every-slot", 7,
        frame(SEND), frame(SEND, pat(5000)), frame(SEND, pat(16, 2)),
        frame(SEND_SE, pat(32, 3)), frame(SEND, pat(128, 4)),
        frame(SEND, pat(106, 5)), frame(SEND, pat(77, 6)), d)
    add("send-too-long", 1, frame(SEND, pat(1)))
    add("send-big-too-long", 2, frame(SEND), frame(SEND, pat(5001)))
    add2("late-recv", 3, LATE, frame(SEND), frame(SEND, pat(4500)),
         frame(SEND, pat(16)), d)
    add2("late-recv-srq", SRQ | 3, LATE, frame(SEND), frame(SEND, pat(5)), d)
    add2("late-write-imm", 2, LATE, frame(WRITE_IMM, pat(10), rkey=0, code=3),
         frame(WRITE_IMM_SE, pat(9000), rkey=0, code=4), d)
    add2("drive", 7, DRIVE, frame(SEND), frame(SEND, pat(5000)),
         frame(WRITE, pat(9000), rkey=0), frame(SEND, pat(16)), d)
    add2("drive-chunks-requests", 7 | CHUNKS | REQS, DRIVE,
         frame(READ_RESP, pat(96), tag=0),
         frame(SEND, ack=1), frame(SEND, pat(300), ack=1),
         frame(DISCONNECT, ack=5, tag=TAG_NONE))
    add2("late-drive-srq", SRQ | 7, LATE | DRIVE, frame(SEND, pat(3)),
         frame(SEND_SE, pat(40)), d)
    add("send-rnr", 0, frame(SEND, pat(10)))
    add("send-rnr-srq", SRQ, frame(SEND, pat(10)))
    # SRQ slots are taken in the order posted: 0 bytes, 16, 32, 128, ...
    add("send-srq", SRQ | 7, frame(SEND), frame(SEND, pat(16)),
        frame(SEND_SE, pat(5)), frame(SEND, pat(128)), d)
    add("send-srq-too-long", SRQ | 2, frame(SEND, pat(300)))
    add("send-chunks", CHUNKS | 4, frame(SEND), frame(SEND, pat(16)),
        frame(SEND, pat(32)), frame(SEND, pat(128)), d)
    add("send-inv-rmr", 2, frame(SEND_INV, pat(0), rkey=3),
        frame(WRITE, pat(8), rkey=3, addr=0))
    add("send-inv-ep-rmr", 2, frame(SEND_SE_INV, rkey=4), d)
    add("send-inv-lmr", 2, frame(SEND_INV, rkey=0))
    add("send-inv-unknown", 2, frame(SEND_INV, rkey=0x7777))
    add("write-rw", 0, frame(WRITE, pat(100), rkey=0, addr=0),
        frame(WRITE, pat(8), rkey=0, addr=16376), frame(WRITE, rkey=0, addr=0),
        d)
    add("write-rw-large", 0, frame(WRITE, pat(16384), rkey=0, addr=0), d)
    add("write-rw-large-chunks", CHUNKS, frame(WRITE, pat(9000), rkey=0,
                                               addr=100), d)
    add("write-rw-past-end", 0, frame(WRITE, pat(9), rkey=0, addr=16376))
    add("write-rw-before", 0,
        frame(WRITE, pat(4), rkey=0, addr=(1 << 64) - 1))
    add("write-rw-wrap", 0,
        frame(WRITE, pat(16), rkey=0, addr=(1 << 64) - 8))
    add("write-ro", 0, frame(WRITE, pat(4), rkey=1))
    add("write-local", 0, frame(WRITE, pat(4), rkey=2))
    add("write-window", 0, frame(WRITE, pat(512), rkey=3),
        frame(WRITE, pat(256), rkey=4), d)
    add("write-window-past-end", 0, frame(WRITE, pat(2), rkey=3, addr=511))
    add("write-window-before", 0,
        frame(WRITE, pat(2), rkey=3, addr=(1 << 64) - 1))
    add("write-ep-window-past-end", 0, frame(WRITE, pat(1), rkey=4, addr=256))
    add("write-other-pz", 0, frame(WRITE, pat(4), rkey=5))
    add("write-dead-ctx", 0, frame(WRITE, pat(4), rkey=6))
    add("write-recv-lmr", 0, frame(WRITE, pat(4), rkey=7))
    add("write-unknown-ctx", 0, frame(WRITE, pat(4), rkey=0xDEADBEEF))
    add("write-imm", 2, frame(WRITE_IMM, pat(10), rkey=0, code=0xABCD),
        frame(WRITE_IMM_SE, rkey=0, code=7), d)
    add("write-imm-rnr", 0, frame(WRITE_IMM, pat(10), rkey=0, code=1))
    add("write-imm-srq", SRQ | 1, frame(WRITE_IMM, pat(64), rkey=3), d)
    add("write-imm-refused", 2, frame(WRITE_IMM, pat(10), rkey=1))
    add("read-req", 0, frame(READ_REQ, ln=100, rkey=0, tag=0),
        frame(READ_REQ, ln=1024, rkey=1, tag=1),
        frame(READ_REQ, ln=512, rkey=3, tag=2),
        frame(READ_REQ, ln=0, rkey=0, tag=3), d)
    add("read-req-past-end", 0, frame(READ_REQ, ln=1025, rkey=1, tag=0))
    add("read-req-local", 0, frame(READ_REQ, ln=4, rkey=2, tag=0))
    add("read-req-ep-window", 0, frame(READ_REQ, ln=4, rkey=4, tag=0))
    add("read-req-too-many", RD1, frame(READ_REQ, ln=4, rkey=0, tag=0),
        frame(READ_REQ, ln=4, rkey=0, tag=1))
    add("read-req-huge", 0, frame(READ_REQ, ln=0x80000001, rkey=0))
    add("atomics", 0, frame(FETCH_ADD, atomic_args(5), rkey=0, addr=8, tag=0),
        frame(CMP_SWAP, atomic_args(0, 9), rkey=0, addr=16, tag=1),
        frame(FETCH_ADD, atomic_args(1), rkey=4, addr=0, tag=2), d)
    add("atomic-misaligned", 0, frame(FETCH_ADD, atomic_args(1), rkey=0, addr=4))
    add("atomic-no-priv", 0, frame(CMP_SWAP, atomic_args(1, 2), rkey=3))
    add("atomic-bad-len", 0, frame(FETCH_ADD, atomic_args(1)[:8], rkey=0))
    add("atomic-too-many", RD1, frame(FETCH_ADD, atomic_args(1), rkey=0),
        frame(FETCH_ADD, atomic_args(1), rkey=0, addr=8))
    # Responses to the harness's requests: READ tag 0 (96 bytes), FETCH_ADD
    # tag 1, SEND tag 2, WRITE tag 3, CMP_SWAP tag 4; ack 5 covers all.
    # Every header carries the sender's cumulative ack: it never goes back.
    add("responses", REQS, frame(READ_RESP, pat(96), tag=0),
        frame(ATOMIC_RESP, struct.pack("<Q", 41), tag=1, ack=2),
        frame(ACK, ack=4), frame(ATOMIC_RESP, struct.pack("<Q", 7), tag=4,
                                 ack=4),
        frame(DISCONNECT, ack=5, tag=TAG_NONE))
    add("responses-chunks", REQS | CHUNKS, frame(READ_RESP, pat(96), tag=0),
        frame(ATOMIC_RESP, struct.pack("<Q", 41), tag=1),
        frame(ATOMIC_RESP, struct.pack("<Q", 7), tag=4, ack=5),
        frame(DISCONNECT, ack=5, tag=TAG_NONE))
    add("responses-rd1", REQS | RD1, frame(ACK, ack=1),
        frame(READ_RESP, pat(96), tag=0, ack=1),
        frame(DISCONNECT, ack=1, tag=TAG_NONE))
    add("response-wrong-tag", REQS, frame(READ_RESP, pat(96), tag=1))
    add("response-wrong-len", REQS, frame(READ_RESP, pat(95), tag=0))
    add("response-wrong-kind", REQS, frame(ATOMIC_RESP, pat(8), tag=0))
    add("response-unasked", 0, frame(READ_RESP, pat(8), tag=0))
    add("ack-beyond", REQS, frame(ACK, ack=6))
    add("ack-unasked", 0, frame(ACK, ack=1))
    add("terminate-access", REQS, frame(TERMINATE, tag=3, code=2))
    add("terminate-length", REQS, frame(TERMINATE, tag=2, code=3))
    add("terminate-protocol", REQS, frame(TERMINATE, tag=TAG_NONE, code=1))
    add("terminate-bad-code", REQS, frame(TERMINATE, tag=0, code=9))
    add("terminate-protocol-named", REQS, frame(TERMINATE, tag=2, code=1))
    add("write-huge", 0, hdr(WRITE, ln=0x80000001, rkey=0))
    add("disconnect", REQS | DISC, frame(ACK, ack=2),
        frame(DISCONNECT, ack=2, tag=TAG_NONE))
    add("disconnect-ours", DISC | 3, frame(SEND, pat(16)))
    add("bad-op-0", 0, hdr(0))
    add("bad-op-16", 0, hdr(16))
    add("bad-flags", 0, hdr(ACK, flags=1))
    add("bad-reserved", 0, hdr(ACK, res=0x100))
    add("len-on-ack", 0, hdr(ACK, ln=4))
    add("truncated-header", 1, frame(SEND, pat(4))[:20])
    add("truncated-payload", 3, frame(SEND, pat(100))[:60])
    add("send-huge", 7, hdr(SEND, ln=0x80000001))
    add("burst-of-writes", 0, *([frame(WRITE, pat(1), rkey=0, addr=i)
                                  for i in range(300)] + [d]))
    add("burst-of-acks-chunks", CHUNKS, *([frame(ACK)] * 40 + [d]))
    add("empty", 7 | REQS)
    return s


# ---- cm ---------------------------------------------------------------------
def cm_seeds():
    s = []
    ACTIVE, REJ, CHK, PD = 1, 2, 4, 8
    add = lambda n, opt, *parts: s.append((n, bytes([opt]) + b"".join(parts)))
    rtu = cm(RTU, max_msg=0, max_rdma=0, rd_in=0, rd_out=0)
    ack = frame(ACK)
    disc = frame(DISCONNECT, tag=TAG_NONE)
    # passive: conn_qual 0 = the consumer PSP, 1 = the provider PSP
    add("hello-rtu", 0, cm(HELLO, qual=0), rtu, disc)
    add("hello-pdata-rtu", PD, cm(HELLO, qual=0, pdata=pat(100)), rtu, ack, disc)
    add("hello-max-pdata", 0, cm(HELLO, qual=0, pdata=pat(1024)), rtu)
    add("hello-too-much-pdata", 0, cm(HELLO, qual=0, pdata=pat(1025)))
    add("hello-provider-psp", 0, cm(HELLO, qual=1, rd_in=1, rd_out=9), rtu, disc)
    add("hello-provider-psp-reject", REJ | PD, cm(HELLO, qual=1, pdata=b"x"))
    add("hello-reject", REJ, cm(HELLO, qual=0, pdata=pat(10)))
    add("hello-chunks", CHK | PD, cm(HELLO, qual=0, pdata=pat(33)), rtu, disc)
    add("hello-no-rtu", 0, cm(HELLO, qual=0))
    add("hello-rtu-pdata", 0, cm(HELLO, qual=0), cm(RTU, pdata=b"zz"))
    add("hello-bad-rtu", 0, cm(HELLO, qual=0), cm(ACCEPT))
    add("hello-wrong-port", 0, cm(HELLO, qual=7))
    add("hello-bad-magic", 0, cm(HELLO, qual=0, magic=0x4C504454))
    add("hello-bad-version", 0, cm(HELLO, qual=0, version=2))
    add("hello-bad-type", 0, cm(RTU, qual=0))
    add("hello-truncated", 0, cm(HELLO, qual=0)[:39])
    add("hello-pdata-truncated", 0, cm(HELLO, qual=0, pdata=pat(50))[:70])
    add("hello-rtu-frames", 0, cm(HELLO, qual=0), rtu,
        frame(SEND, pat(8)), frame(WRITE, pat(8), rkey=1), disc)
    add("nothing", 0)
    # active: the answer to the victim's HELLO
    add("accept", ACTIVE, cm(ACCEPT), disc)
    add("accept-pdata", ACTIVE | PD, cm(ACCEPT, pdata=pat(64)), ack, disc)
    add("accept-max-pdata", ACTIVE, cm(ACCEPT, pdata=pat(1024)))
    add("accept-depth-0", ACTIVE, cm(ACCEPT, rd_in=0, rd_out=0), disc)
    add("accept-depth-huge", ACTIVE, cm(ACCEPT, rd_in=0xFFFFFFFF,
                                        rd_out=0xFFFFFFFF), disc)
    add("accept-chunks", ACTIVE | CHK, cm(ACCEPT, pdata=pat(20)), disc)
    add("accept-then-frames", ACTIVE, cm(ACCEPT), frame(SEND, pat(4)),
        frame(READ_REQ, ln=8, rkey=5))
    add("reject-consumer", ACTIVE, cm(REJECT, reason=0, pdata=pat(12)))
    add("reject-no-sp", ACTIVE, cm(REJECT, reason=1))
    add("reject-protocol", ACTIVE | PD, cm(REJECT, reason=2))
    add("reject-reason-255", ACTIVE, cm(REJECT, reason=255, pdata=b"r"))
    add("answer-hello", ACTIVE, cm(HELLO))
    add("answer-rtu", ACTIVE, cm(RTU))
    add("answer-bad-magic", ACTIVE, cm(ACCEPT, magic=0))
    add("answer-too-much-pdata", ACTIVE, cm(ACCEPT, pdata_len=1025))
    add("answer-truncated", ACTIVE, cm(ACCEPT, pdata=pat(30))[:50])
    add("answer-nothing", ACTIVE)
    return s


# ---- ud ---------------------------------------------------------------------
UD_MAGIC = 0x44554453
UDATA, UREQ, UREP, UREJ, URTU = range(1, 6)


def ud(typ, dst_qpn=1, dst_qkey=1, src_qpn=0x42, src_qkey=7, cm_id=0, arg=0,
       pdata=b"", pdata_len=None, flags=0, magic=UD_MAGIC, version=1, rsvd=0,
       rsvd2=0):
    if pdata_len is None:       # DATA: a payload, not private data
        pdata_len = 0 if typ == UDATA else len(pdata)
    n = pdata_len
    return struct.pack("<IBBBBIIIIQIHH", magic, version, typ, flags, rsvd,
                       dst_qpn, dst_qkey, src_qpn, src_qkey, cm_id, arg, n,
                       rsvd2) + pdata


def dg(d, psp=False):
    return struct.pack("<H", len(d) | (0x8000 if psp else 0)) + d


def ud_seeds():
    s = []
    add = lambda n, opt, *d: s.append((n, bytes([opt]) + b"".join(d)))
    # Receive slots, in order (GRH included): 40, 41, 39, 120, 256, 170,
    # 0, 106; dst_qpn and dst_qkey 1 name the EP, cm_id 1 the attempt.
    add("data", 8, dg(ud(UDATA)), dg(ud(UDATA, pdata=b"x")),
        dg(ud(UDATA, pdata=pat(1))), dg(ud(UDATA, pdata=pat(80))),
        dg(ud(UDATA, pdata=pat(216), flags=1)), dg(ud(UDATA, pdata=pat(130))),
        dg(ud(UDATA)), dg(ud(UDATA, pdata=pat(66))))
    add("data-too-long", 2, dg(ud(UDATA, pdata=pat(2))), dg(ud(UDATA, pdata=pat(5000))))
    add("data-no-receive", 0, dg(ud(UDATA, pdata=pat(8))))
    add("data-wrong-qpn", 1, dg(ud(UDATA, dst_qpn=2)))
    add("data-wrong-qkey", 1, dg(ud(UDATA, dst_qkey=2)))
    add("data-bad-flags", 1, dg(ud(UDATA, flags=2)))
    add("data-cm-id", 1, dg(ud(UDATA, cm_id=5)))
    add("data-pdata-len", 1, dg(ud(UDATA, pdata_len=3) + b"abc"))
    add("data-to-psp", 1, dg(ud(UDATA), psp=True))
    add("bad-magic", 1, dg(ud(UDATA, magic=0)))
    add("bad-version", 1, dg(ud(UDATA, version=2)))
    add("bad-type", 1, dg(ud(0)), dg(ud(6)))
    add("bad-reserved", 1, dg(ud(UDATA, rsvd=1)), dg(ud(UDATA, rsvd2=1)))
    add("bad-src-qpn", 1, dg(ud(UDATA, src_qpn=0)))
    add("short", 1, dg(ud(UDATA)[:39]), dg(b""))
    add("req-to-psp", 0, dg(ud(UREQ, dst_qpn=0, dst_qkey=0, cm_id=77,
                                pdata=pat(20)), psp=True))
    add("req-to-psp-twice", 0, dg(ud(UREQ, dst_qpn=0, dst_qkey=0, cm_id=78), psp=True),
        dg(ud(UREQ, dst_qpn=0, dst_qkey=0, cm_id=78), psp=True))
    add("req-wrong-port", 0, dg(ud(UREQ, cm_id=79, arg=9), psp=True))
    add("req-max-pdata", 0, dg(ud(UREQ, cm_id=80, pdata=pat(1024)), psp=True))
    add("req-too-much-pdata", 0, dg(ud(UREQ, cm_id=81, pdata=pat(1025)), psp=True))
    add("req-pdata-len-lies", 0, dg(ud(UREQ, cm_id=82, pdata_len=100) + pat(10), psp=True))
    add("req-to-ep", 1, dg(ud(UREQ, cm_id=83)))
    add("rep-established", 1, dg(ud(UREP, cm_id=1, pdata=pat(4))))
    add("rep-unknown", 1, dg(ud(UREP, cm_id=2)))
    add("rej-established", 1, dg(ud(UREJ, cm_id=1, arg=0, pdata=b"no")))
    add("rtu", 1, dg(ud(URTU, cm_id=1)), dg(ud(URTU, cm_id=1, pdata=b"x")))
    add("cm-flags", 1, dg(ud(UREP, cm_id=1, flags=1)))
    add("burst", 4, *[dg(ud(UDATA, pdata=pat(i % 50))) for i in range(100)])
    add("empty", 15)
    return s


# ---- ring -------------------------------------------------------------------
# ring options (fuzz-ring.c: OPT_*), the first byte, and its operations
R_REQS, R_DISC, R_RD1, R_NO_RTU, R_NOREAD = 0x08, 0x10, 0x20, 0x40, 0x80
(OP_PUT, OP_SET, OP_REWRITE, OP_BELL, OP_READ0, OP_WAIT, OP_DRIVE, OP_POST,
 OP_VSEND, OP_SHUT, OP_CLOSE, OP_DISC, OP_SIDE) = range(13)
PROVE = 0x80
(F_TAIL1, F_CLOSED1, F_WAITING1, F_HEAD1, F_ARMED1, F_TAIL0, F_CLOSED0,
 F_WAITING0, F_HEAD0, F_ARMED0, F_MAGIC, F_VERSION, F_NONCE, F_SIZE,
 F_PID_L, F_PID_R) = range(16)
ABS, PLUS, MINUS, PAIR = 0x00, 0x10, 0x20, 0x30
ADOPT, BELL = 0x40, 0x80
SHM_END, SHM_RESET = 1, 2
RING = 4096


def put(*frames):
    b = b"".join(frames)
    return struct.pack("<BH", OP_PUT, len(b)) + b


def setf(field, v=0, how=ABS, adopt=False, bell=False):
    sel = field | how | (ADOPT if adopt else 0) | (BELL if bell else 0)
    return struct.pack("<BBQ", OP_SET, sel, v & ((1 << 64) - 1))


def rewrite(off, data):
    return struct.pack("<BHB", OP_REWRITE, off, len(data)) + data


def side(sel, v=0):
    return struct.pack("<BBQ", OP_SIDE, sel, v & ((1 << 64) - 1))


def wait(ms=20):
    return bytes([OP_WAIT, ms])


def vsend(k):
    return bytes([OP_VSEND, k])


def disc(abrupt=False):
    return bytes([OP_DISC, 1 if abrupt else 0])


def ring_seeds():
    s = []
    add = lambda n, opt, *ops: s.append((n, bytes([opt]) + b"".join(ops)))
    d = frame(DISCONNECT, tag=TAG_NONE)
    rtu = cm(RTU, max_msg=0, max_rdma=0, rd_in=0, rd_out=0)
    r0 = bytes([OP_READ0])
    # Receive slots as rx's: 0, 4000+1000, 16, 8+24, 128, 1+2+3+100,
    # 50+0+50, 256; the ring holds 4096 bytes.
    add("send-every-slot", 7,
        put(frame(SEND)), put(frame(SEND, pat(5000))), put(frame(SEND, pat(16, 2))),
        put(frame(SEND_SE, pat(32, 3)), frame(SEND, pat(128, 4))),
        put(frame(SEND, pat(106, 5)), frame(SEND, pat(77, 6))), wait(), r0,
        put(d))
    add("send-wraps", 4, put(frame(SEND)), put(frame(SEND, pat(3000))), wait(),
        put(frame(SEND, pat(16)), frame(SEND, pat(32))), wait(), put(d))
    add("send-one-put", 7, put(frame(SEND), frame(SEND, pat(5000)),
                               frame(SEND, pat(16)), d))
    add("send-too-long", 1, put(frame(SEND, pat(1))))
    add("send-rnr", 0, put(frame(SEND, pat(10))), wait())
    add("send-rnr-post", 0, put(frame(SEND)), wait(),
        bytes([OP_POST]), put(frame(SEND, pat(5000))), wait(), put(d))
    add("send-rnr-fills-ring", 0, put(frame(SEND, pat(10)),
                                      *[frame(ACK)] * 200))
    add("drive", 7, put(frame(SEND)), bytes([OP_DRIVE]),
        put(frame(SEND, pat(5000))), bytes([OP_DRIVE]),
        put(frame(WRITE, pat(3000), rkey=0)), bytes([OP_DRIVE]), put(d))
    add("write-rw", 0, put(frame(WRITE, pat(100), rkey=0, addr=0)),
        put(frame(WRITE, pat(8), rkey=0, addr=16376)),
        put(frame(WRITE, pat(9000), rkey=0, addr=100)), put(d))
    add("write-rw-past-end", 0, put(frame(WRITE, pat(9), rkey=0, addr=16376)))
    add("write-window", 0, put(frame(WRITE, pat(512), rkey=3)),
        put(frame(WRITE, pat(256), rkey=4)), put(d))
    add("write-window-past-end", 0, put(frame(WRITE, pat(2), rkey=3, addr=511)))
    add("write-ro", 0, put(frame(WRITE, pat(4), rkey=1)))
    add("write-imm", 2, put(frame(WRITE_IMM, pat(10), rkey=0, code=0xABCD)),
        put(frame(WRITE_IMM_SE, rkey=0, code=7)), put(d))
    add("send-inv-rmr", 2, put(frame(SEND_INV, rkey=3)),
        put(frame(WRITE, pat(8), rkey=3)))
    add("read-req", 0, put(frame(READ_REQ, ln=100, rkey=0, tag=0),
                           frame(READ_REQ, ln=1024, rkey=1, tag=1),
                           frame(READ_REQ, ln=512, rkey=3, tag=2)),
        wait(), r0, put(d))
    add("read-req-big-noread", R_NOREAD,
        put(frame(READ_REQ, ln=16384, rkey=0, tag=0)), wait(), r0, bytes([OP_BELL]),
        wait(), r0, put(d))
    add("atomics", 0, put(frame(FETCH_ADD, atomic_args(5), rkey=0, addr=8, tag=0),
                          frame(CMP_SWAP, atomic_args(0, 9), rkey=0, addr=16, tag=1),
                          frame(FETCH_ADD, atomic_args(1), rkey=4, tag=2), d))
    add("responses", R_REQS, put(frame(READ_RESP, pat(96), tag=0)),
        put(frame(ATOMIC_RESP, struct.pack("<Q", 41), tag=1, ack=2)),
        put(frame(ACK, ack=4)),
        put(frame(ATOMIC_RESP, struct.pack("<Q", 7), tag=4, ack=4)),
        put(frame(DISCONNECT, ack=5, tag=TAG_NONE)))
    add("responses-rd1", R_REQS | R_RD1, put(frame(ACK, ack=1)),
        put(frame(READ_RESP, pat(96), tag=0, ack=1)), wait(), r0,
        put(frame(DISCONNECT, ack=1, tag=TAG_NONE)))
    add("response-wrong-len", R_REQS, put(frame(READ_RESP, pat(95), tag=0)))
    add("terminate", R_REQS, put(frame(TERMINATE, tag=3, code=2)))
    add("garbage", 1, put(b"\xee" * 32))
    # SENDs by address: refused from a peer never proved; from a proved
    # one, read from its memory (here the harness's, an address it does
    # not have: refused too); the sides' fields written as a liar would.
    add("send-by-address-unproved", 7, put(frame(SEND)),
        put(frame(SEND, ln=5000, addr=0x10000)), wait())
    add("send-by-address-proved", 7, side(PROVE, 1), put(frame(SEND)),
        put(frame(SEND, ln=5000, addr=0x1000)), wait())
    add("sides-lie", 7, side(0, 7), side(1, 0x1000), side(2, 1 << 47),
        side(3, 0xffffffff), side(4, 1), side(9, 1), side(10, 0),
        side(12, 5), put(frame(SEND, pat(16))), wait(), put(d))
    add("truncated-then-end", 1, put(frame(SEND, pat(100))[:60]),
        setf(F_CLOSED1, SHM_END, bell=True))
    add("header-then-end", 1, put(frame(SEND, pat(4))[:16]),
        setf(F_CLOSED1, SHM_END, bell=True))
    add("end-in-order", 1, put(frame(SEND, pat(4)), d),
        setf(F_CLOSED1, SHM_END), bytes([OP_SHUT]))
    add("reset", 1, put(frame(SEND, pat(4))), setf(F_CLOSED1, SHM_RESET),
        bytes([OP_BELL]))
    add("closed-other-value", 1, setf(F_CLOSED1, 0xDEADBEEF, bell=True), wait())
    add("closed-then-more", 3, setf(F_CLOSED1, SHM_END), put(frame(SEND)),
        wait(), setf(F_CLOSED1, 0), put(frame(SEND, pat(8))))
    add("tail-jump", 1, put(frame(SEND, pat(16))), wait(),
        setf(F_TAIL1, RING + 1, PLUS, bell=True), wait())
    add("tail-jump-adopt", 1, setf(F_TAIL1, RING * 3, PLUS, adopt=True),
        put(frame(SEND, pat(16))), wait())
    add("tail-full-ring", 1, setf(F_TAIL1, RING, PAIR, bell=True), wait(),
        put(frame(SEND, pat(16))))
    add("tail-back", 1, put(frame(SEND, pat(16))), wait(),
        setf(F_TAIL1, 8, MINUS, bell=True), wait())
    add("tail-back-adopt", 2, put(frame(SEND, pat(16))), wait(),
        setf(F_TAIL1, 48, MINUS, adopt=True), put(frame(SEND, pat(16))), wait())
    add("tail-huge", 1, setf(F_TAIL1, (1 << 64) - 1, bell=True), wait())
    add("tail-ahead-of-bytes", 2, setf(F_TAIL1, 32, PLUS, bell=True), wait(),
        put(frame(SEND, pat(16))))
    add("rewrite-unread", 2, setf(F_WAITING1, 0), put(frame(SEND, pat(16)),
                                                      frame(SEND, pat(2000))),
        rewrite(0, hdr(SEND, ln=0xFFFFFF)), rewrite(40, b"\xff" * 200), wait())
    add("head0-jump", 1, setf(F_HEAD0, 1 << 40), vsend(1), wait(), r0)
    add("head0-back", 1, vsend(10), wait(), r0, setf(F_HEAD0, 64, MINUS),
        vsend(200), vsend(200), vsend(200), wait(), r0)
    add("head0-pair", 1, vsend(10), setf(F_HEAD0, 0, PAIR, adopt=True),
        vsend(20), r0)
    add("armed0", 1, setf(F_ARMED0, 1), vsend(4), wait(), r0,
        setf(F_ARMED0, 0xFFFFFFFF), vsend(4), r0)
    add("waiting1", 3, setf(F_WAITING1, 1), put(frame(SEND)), wait(),
        setf(F_WAITING1, 7), put(frame(SEND, pat(8))), wait())
    add("victim-lines", 3, setf(F_HEAD1, 100, PLUS, bell=True), wait(),
        put(frame(SEND)), setf(F_ARMED1, 5), setf(F_TAIL0, 4000),
        setf(F_CLOSED0, SHM_END), setf(F_WAITING0, 1), vsend(2), wait(),
        put(frame(SEND, pat(8))), wait())
    add("header-fields", 3, setf(F_MAGIC, 0), setf(F_VERSION, 9),
        setf(F_NONCE, 1), setf(F_SIZE, 0xFFFFFFFF), setf(F_PID_L, 0),
        setf(F_PID_R, 1), put(frame(SEND), d))
    add("ring0-full-noread", R_NOREAD | 1, *[vsend(255)] * 3, wait(), r0,
        wait(), r0, put(d))
    add("ring0-full-end", R_NOREAD | 1, *[vsend(255)] * 6)
    add("ring0-full-head-lies", R_NOREAD, *[vsend(255)] * 3,
        setf(F_HEAD0, 1 << 33, bell=True), wait())
    add("disconnect", R_DISC | 2, put(frame(SEND)), wait(), r0)
    add("disconnect-op", 2, vsend(3), disc(), wait(), r0, put(d), wait())
    add("disconnect-abrupt", 2, vsend(3), disc(True), wait(), r0)
    add("shut-mid-frame", 2, put(frame(SEND, pat(100))[:50]), bytes([OP_SHUT]))
    add("close-mid-frame", 2, put(frame(SEND, pat(100))[:50]), bytes([OP_CLOSE]),
        put(frame(SEND, pat(100))[50:]))
    add("close-full-ring", 0, put(frame(SEND, pat(10)), *[frame(ACK)] * 200),
        bytes([OP_CLOSE]))
    # The RTU left to the input.
    add("no-rtu-ring", R_NO_RTU | 2, put(rtu), put(frame(SEND), d))
    add("no-rtu-with-frames", R_NO_RTU | 2, put(rtu, frame(SEND),
                                                frame(SEND, pat(8)), d))
    add("no-rtu-tcp", R_NO_RTU | 2, bytes([OP_BELL]), wait())
    add("no-rtu-none", R_NO_RTU)
    add("no-rtu-half", R_NO_RTU, put(rtu[:20]), wait())
    add("no-rtu-bad", R_NO_RTU, put(cm(RTU, pdata=b"zz")))
    add("no-rtu-garbage", R_NO_RTU, put(b"\x00" * 40))
    add("no-rtu-tail-jump", R_NO_RTU, setf(F_TAIL1, RING + 1, bell=True),
        wait())
    add("no-rtu-closed", R_NO_RTU, setf(F_CLOSED1, SHM_END, bell=True))
    add("no-rtu-close", R_NO_RTU, bytes([OP_CLOSE]))
    add("empty", 7 | R_REQS)
    return s


# ---- conf -------------------------------------------------------------------
def conf_seeds():
    good = 'u2.0 nonthreadsafe default libx.so dapl.2.0 "p" ""'
    lines = [
        ("empty", ""),
        ("comments", "# a comment\n\n   \n\t# indented\n"),
        ("one-line", 'soft u2.0 nonthreadsafe default libx.so dapl.2.0 "lo" ""\n'),
        ("example", 'softdapl-lo  u2.0 nonthreadsafe default libdaplsoft.so.2 softdapl.2.0 "lo" ""\n'
                    'softdapl-any u2.0 nonthreadsafe nondefault libdaplsoft.so.2 softdapl.2.0 "0.0.0.0" ""\n'
                    'softdapl-v6 u2.0 nonthreadsafe nondefault libdaplsoft.so.2 softdapl.2.0 "[fe80::1%eth0]" ""\n'),
        ("ofed", 'ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""\n'
                 'ofa-v2-mlx4_0-1 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "mlx4_0 1" ""\n'),
        ("quoted-blanks", "a " + good + '\nb u2.0 nonthreadsafe default l dapl.2.0 "lo 0" "x y"\n'),
        ("escapes", 'e u2.0 nonthreadsafe default l dapl.2.0 "a \\"b\\" c\\\\d" ""\n'),
        ("seven-fields", 'a u2.0 nonthreadsafe default libx.so dapl.2.0 "p"\n'),
        ("nine-fields", "a " + good + " extra\n"),
        ("api-bad", "a 2.0 nonthreadsafe default l dapl.2.0 p q\na u2 nonthreadsafe default l dapl.2.0 p q\n"
                    "a u2.x nonthreadsafe default l dapl.2.0 p q\na u4294967296.0 nonthreadsafe default l dapl.2.0 p q\n"),
        ("kernel", "k k2.0 nonthreadsafe default l dapl.2.0 p q\n"),
        ("keywords-bad", "a u2.0 threadsafely default l dapl.2.0 p q\na u2.0 NonThreadSafe default l dapl.2.0 p q\n"
                         "a u2.0 nonthreadsafe defaults l dapl.2.0 p q\n"),
        ("provider-ver-bad", "a u2.0 nonthreadsafe default l dapl p q\na u2.0 nonthreadsafe default l .2.0 p q\n"
                             "a u2.0 nonthreadsafe default l dapl.2 p q\na u2.0 nonthreadsafe default l dapl.2.0.1 p q\n"),
        ("unterminated", 'a u2.0 nonthreadsafe default l dapl.2.0 "lo\nb ' + good + "\n"),
        ("crlf", "a " + good + "\r\nb " + good + "\r\n"),
        ("nul", "a u2.0 non\0threadsafe default l dapl.2.0 p q\nb " + good + "\n"),
        ("long-name", "n" * 256 + " " + good + "\n" + "n" * 255 + " " + good + "\n"),
        ("comment-after", "a " + good + " # the soft one\nna#me " + good + "\n"),
        ("tabs", 't\tu2.0\tnonthreadsafe\tdefault\tl\tdapl.2.0\t"p"\t""\n'),
        ("no-newline", "a " + good),
        ("quote-glued", 'a u2.0 nonthreadsafe default l dapl.2.0 "x"y ""\n'),
        ("empty-name", '"" ' + good + "\n"),
        ("control-bytes", "a u2.0 nonthreadsafe \x01oops l dapl.2.0 p q\n"),
        ("backslash-at-end", 'a u2.0 nonthreadsafe default l dapl.2.0 "p\\'),
    ]
    out = [(n, t.encode("latin-1")) for n, t in lines]
    out.append(("line-longer-than-64k", b"x" * 70000 + b"\nafter " + good.encode() + b"\n"))
    return out


if __name__ == "__main__":
    write_dir("rx", rx_seeds())
    write_dir("cm", cm_seeds())
    write_dir("ud", ud_seeds())
    write_dir("conf", conf_seeds())
    write_dir("ring", ring_seeds())
