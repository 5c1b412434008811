-- SPDX-License-Identifier: BSD-3-Clause
--
-- softdapl.lua: a Wireshark dissector for softdapl's wire protocol
-- (provider/PROTOCOL.md; provider/proto.h for TCP, provider/udproto.h for
-- the UDP datagrams of UD endpoints). Fields are named after the keys of
-- the provider's trace (provider/TRACE.md): softdapl.op, softdapl.seq,
-- softdapl.len, softdapl.ack, softdapl.rkey, softdapl.addr, ...
--
--   tshark -X lua_script:tools/softdapl.lua -r capture.pcapng -Y softdapl
--   wireshark -X lua_script:tools/softdapl.lua capture.pcapng
--
-- or copy it to ~/.local/lib/wireshark/plugins/. A TCP stream whose first
-- bytes are a handshake message ("SDPL") is recognised by a heuristic and
-- followed from then on; streams caught in the middle are decoded with the
-- "softdapl.tcp_ports" preference or "Decode As...". When another
-- dissector claims a port first, add -o tcp.try_heuristic_first:TRUE.
--
-- Frames are reassembled across TCP segments (the TCP preference "Allow
-- subdissector to reassemble TCP streams", on by default); several frames
-- in one segment are all decoded. softdapl.seq is computed as TRACE.md
-- defines it: the frame's number in its direction on its connection, from
-- 0, handshake messages included. It needs the stream from its start.
--
-- Bad input is reported as expert info (group malformed), never as a Lua
-- error; after a frame whose length cannot be trusted the rest of the
-- stream is shown as undecoded bytes.

local sd = Proto("softdapl", "softdapl (DAT over TCP and UDP)")

local MAGIC = "SDPL"
local UD_MAGIC = "SDUD"
local CM_SIZE = 40
local HDR_SIZE = 32
local MAX_PDATA = 1024
local MAX_LEN = 0x80000000	-- SD_MAX_MESSAGE_SIZE, SD_MAX_RDMA_SIZE
local UD_HDR_SIZE = 40

local ops = {
	[1] = "SEND", [2] = "SEND_SE", [3] = "WRITE", [4] = "READ_REQ",
	[5] = "READ_RESP", [6] = "ACK", [7] = "TERMINATE", [8] = "DISCONNECT",
	[9] = "SEND_INV", [10] = "SEND_SE_INV", [11] = "WRITE_IMM",
	[12] = "WRITE_IMM_SE", [13] = "FETCH_ADD", [14] = "CMP_SWAP",
	[15] = "ATOMIC_RESP",
}
local cm_types = { [1] = "HELLO", [2] = "ACCEPT", [3] = "REJECT", [4] = "RTU" }
local reasons = { [0] = "consumer", [1] = "no_sp", [2] = "protocol" }
local term_codes = { [1] = "protocol", [2] = "remote_access", [3] = "length" }
local ud_types = { [1] = "DATA", [2] = "REQ", [3] = "REP", [4] = "REJ", [5] = "RTU" }
local ud_reasons = { [0] = "consumer", [1] = "no_sp" }

-- proto.h sd_op_has_payload: the ops whose len counts bytes that follow.
local function has_payload(op)
	return op ~= 4 and op ~= 6 and op ~= 7 and op ~= 8
end

local f = {
	-- Every frame and message.
	name = ProtoField.string("softdapl.name", "Type",
		"the frame's op or the handshake message's type, as the trace names it"),
	seq = ProtoField.uint32("softdapl.seq", "seq", base.DEC, nil, nil,
		"the frame's number in its direction on this connection, from 0"),
	bytes = ProtoField.uint32("softdapl.bytes", "bytes", base.DEC, nil, nil,
		"bytes on the wire: header plus payload or private data"),
	conn = ProtoField.string("softdapl.conn", "conn",
		"the connection, sender first, as the sender's trace writes it"),
	trace = ProtoField.string("softdapl.trace", "As traced",
		"the frame as the sender's tx trace line writes it: EVENT key=value..."),
	-- Data frames (proto.h struct sd_hdr).
	op = ProtoField.uint8("softdapl.op", "op", base.DEC, ops),
	flags = ProtoField.uint8("softdapl.flags", "flags", base.HEX),
	reserved = ProtoField.bytes("softdapl.reserved", "reserved"),
	ack = ProtoField.uint32("softdapl.ack", "ack", base.DEC),
	len = ProtoField.uint32("softdapl.len", "len", base.DEC),
	rkey = ProtoField.uint32("softdapl.rkey", "rkey", base.HEX),
	addr = ProtoField.uint64("softdapl.addr", "addr", base.HEX),
	tag = ProtoField.uint32("softdapl.tag", "tag", base.DEC),
	code = ProtoField.uint32("softdapl.code", "code", base.DEC),
	term_code = ProtoField.uint32("softdapl.term_code", "TERMINATE code",
		base.DEC, term_codes),
	imm = ProtoField.uint32("softdapl.imm", "immediate data", base.HEX),
	payload_len = ProtoField.uint32("softdapl.payload_len", "payload length"),
	payload = ProtoField.bytes("softdapl.payload", "payload"),
	atomic_add = ProtoField.uint64("softdapl.atomic.add", "add", base.DEC),
	atomic_compare = ProtoField.uint64("softdapl.atomic.compare", "compare", base.HEX),
	atomic_swap = ProtoField.uint64("softdapl.atomic.swap", "swap", base.HEX),
	atomic_old = ProtoField.uint64("softdapl.atomic.old", "old value", base.HEX),
	-- Handshake messages (proto.h struct sd_cm_msg).
	cm_magic = ProtoField.string("softdapl.cm.magic", "magic"),
	cm_version = ProtoField.uint16("softdapl.cm.version", "version"),
	cm_type = ProtoField.uint8("softdapl.cm.type", "type", base.DEC, cm_types),
	cm_reason = ProtoField.uint8("softdapl.cm.reason", "reason", base.DEC, reasons),
	cm_qual = ProtoField.uint64("softdapl.cm.qual", "conn_qual", base.DEC),
	max_msg = ProtoField.uint32("softdapl.cm.max_msg", "max_msg"),
	max_rdma = ProtoField.uint32("softdapl.cm.max_rdma", "max_rdma"),
	rd_in = ProtoField.uint32("softdapl.cm.rd_in", "rd_in"),
	rd_out = ProtoField.uint32("softdapl.cm.rd_out", "rd_out"),
	pdata_len = ProtoField.uint16("softdapl.cm.pdata_len", "pdata_len"),
	pdata = ProtoField.bytes("softdapl.cm.pdata", "private data"),
	-- UD datagrams (udproto.h struct sd_ud_hdr).
	ud_magic = ProtoField.string("softdapl.ud.magic", "magic"),
	ud_version = ProtoField.uint8("softdapl.ud.version", "version"),
	ud_type = ProtoField.uint8("softdapl.ud.type", "type", base.DEC, ud_types),
	ud_flags = ProtoField.uint8("softdapl.ud.flags", "flags", base.HEX),
	ud_se = ProtoField.bool("softdapl.ud.se", "solicited event", 8, nil, 0x01),
	ud_dst_qpn = ProtoField.uint32("softdapl.ud.dst_qpn", "dst_qpn"),
	ud_dst_qkey = ProtoField.uint32("softdapl.ud.dst_qkey", "dst_qkey", base.HEX),
	ud_src_qpn = ProtoField.uint32("softdapl.ud.src_qpn", "src_qpn"),
	ud_src_qkey = ProtoField.uint32("softdapl.ud.src_qkey", "src_qkey", base.HEX),
	ud_cm_id = ProtoField.uint64("softdapl.ud.cm_id", "cm_id", base.HEX),
	ud_arg = ProtoField.uint32("softdapl.ud.arg", "arg"),
	ud_qual = ProtoField.uint32("softdapl.ud.qual", "conn_qual"),
	ud_reason = ProtoField.uint32("softdapl.ud.reason", "reason", base.DEC, ud_reasons),
	ud_pdata_len = ProtoField.uint16("softdapl.ud.pdata_len", "pdata_len"),
	ud_pdata = ProtoField.bytes("softdapl.ud.pdata", "private data"),
	ud_payload = ProtoField.bytes("softdapl.ud.payload", "message"),
}
local fl = {}
for _, v in pairs(f) do
	fl[#fl + 1] = v
end
sd.fields = fl

local e = {
	bad_op = ProtoExpert.new("softdapl.bad_op", "unknown op",
		expert.group.MALFORMED, expert.severity.ERROR),
	bad_len = ProtoExpert.new("softdapl.bad_len", "length above the provider's limit",
		expert.group.MALFORMED, expert.severity.ERROR),
	bad_cm = ProtoExpert.new("softdapl.bad_cm", "malformed handshake message",
		expert.group.MALFORMED, expert.severity.ERROR),
	bad_field = ProtoExpert.new("softdapl.bad_field", "field out of place",
		expert.group.PROTOCOL, expert.severity.WARN),
	lost = ProtoExpert.new("softdapl.lost", "stream not decoded after a malformed frame",
		expert.group.UNDECODED, expert.severity.WARN),
	terminate = ProtoExpert.new("softdapl.terminate", "TERMINATE: the connection is broken",
		expert.group.SEQUENCE, expert.severity.NOTE),
	reject = ProtoExpert.new("softdapl.reject", "connection rejected",
		expert.group.SEQUENCE, expert.severity.NOTE),
	bad_ud = ProtoExpert.new("softdapl.bad_ud", "malformed datagram",
		expert.group.MALFORMED, expert.severity.ERROR),
}
sd.experts = { e.bad_op, e.bad_len, e.bad_cm, e.bad_field, e.lost,
	e.terminate, e.reject, e.bad_ud }

sd.prefs.tcp_ports = Pref.range("TCP ports", "",
	"TCP ports always decoded as softdapl (streams caught midway; the " ..
	"handshake is recognised on any port)", 65535)
sd.prefs.heuristic = Pref.bool("Recognise the handshake on any port", true,
	"follow TCP streams that start with \"SDPL\" and UDP datagrams that " ..
	"start with \"SDUD\"")

local f_stream = Field.new("tcp.stream")

-- State of the first pass, rebuilt on every new dissection of the file:
--   next_seq[direction] = the seq the next complete frame gets
--   seqs[key] = the seq of the softdapl frame at key (pdu_key)
--   lost[direction] = first frame number not decoded after a bad frame
local next_seq, seqs, lost = {}, {}, {}

function sd.init()
	next_seq, seqs, lost = {}, {}, {}
end

local function addr_str(a)
	local s = tostring(a)
	if s:find(":", 1, true) then
		return "[" .. s .. "]"
	end
	return s
end

-- Both sides of a TCP stream, the sender first: the trace's conn=.
local function conn_of(pinfo)
	return addr_str(pinfo.src) .. ":" .. pinfo.src_port .. ">" ..
		addr_str(pinfo.dst) .. ":" .. pinfo.dst_port
end

local function direction(pinfo)
	local s = f_stream()
	return (s and tostring(s.value) or "?") .. "/" .. conn_of(pinfo)
end

-- A 64-bit value as the trace writes addresses: 0x and no leading zeros.
local function hex64(u)
	local s = u:tohex():gsub("^0+", "")
	return "0x" .. (s == "" and "0" or s)
end

-- What tells a softdapl frame from every other: its packet, the buffer TCP
-- gave us (the segment's payload, at its offset in the packet, or a
-- reassembled buffer, at 0) and its offset in that buffer.
local function pdu_key(pinfo, tvb, off)
	return pinfo.number .. ":" .. tvb:offset() .. ":" .. tvb:len() .. ":" .. off
end

-- The seq of the frame at @key, counted on the first pass only, so that a
-- second pass or a GUI click gives the same numbers.
local function seq_of(pinfo, dir, key)
	local s = seqs[key]
	if s or pinfo.visited then
		return s
	end
	s = next_seq[dir] or 0
	next_seq[dir] = s + 1
	seqs[key] = s
	return s
end

-- TCP calls the dissector once per reassembled frame and once for the
-- rest of the segment: the first softdapl frame of a packet replaces the
-- Info column, the others are appended to it.
local function info(pinfo, text)
	if tostring(pinfo.cols.protocol) ~= "softdapl" then
		pinfo.cols.protocol:set("softdapl")
		pinfo.cols.info:set(text)
	else
		pinfo.cols.info:append(", " .. text)
	end
end

local function add_common(t, tvb, pinfo, name, seq, conn)
	t:add(f.name, name):set_generated()
	if seq then
		t:add(f.seq, seq):set_generated()
	end
	t:add(f.bytes, tvb:len()):set_generated()
	t:add(f.conn, conn):set_generated()
end

-- The trace's keys common to every tx line (TRACE.md).
local function trace_head(name, pinfo, seq, tvb)
	return name .. " conn=" .. conn_of(pinfo) .. " seq=" ..
		(seq and tostring(seq) or "?") .. " bytes=" .. tvb:len()
end

-- One handshake message, @tvb exactly its bytes (already length-checked).
local function dissect_cm(tvb, pinfo, root, key, dir)
	local ty = tvb(6, 1):uint()
	local reason = tvb(7, 1):uint()
	local pdlen = tvb(32, 2):le_uint()
	local name = cm_types[ty] or ("CM_" .. ty)
	local seq = seq_of(pinfo, dir, key)
	local t = root:add(sd, tvb(), "softdapl " .. name)

	add_common(t, tvb, pinfo, name, seq, conn_of(pinfo))
	t:add(f.cm_magic, tvb(0, 4))
	local vi = t:add_le(f.cm_version, tvb(4, 2))
	if tvb(4, 2):le_uint() ~= 1 then
		vi:add_proto_expert_info(e.bad_cm, "unknown version")
	end
	local ti = t:add(f.cm_type, tvb(6, 1))
	if not cm_types[ty] then
		ti:add_proto_expert_info(e.bad_cm, "unknown handshake type")
	end
	local ri = t:add(f.cm_reason, tvb(7, 1))
	t:add_le(f.cm_qual, tvb(8, 8))
	t:add_le(f.max_msg, tvb(16, 4))
	t:add_le(f.max_rdma, tvb(20, 4))
	t:add_le(f.rd_in, tvb(24, 4))
	t:add_le(f.rd_out, tvb(28, 4))
	local pi = t:add_le(f.pdata_len, tvb(32, 2))
	t:add(f.reserved, tvb(34, 6))
	if pdlen > 0 then
		t:add(f.pdata, tvb(CM_SIZE, pdlen))
	end
	if ty == 4 and pdlen > 0 then
		pi:add_proto_expert_info(e.bad_field, "RTU with private data")
	end

	local tr = trace_head(name, pinfo, seq, tvb) .. " pdata=" .. pdlen
	if ty == 1 then
		tr = tr .. " qual=" .. tostring(tvb(8, 8):le_uint64())
	elseif ty == 3 then
		tr = tr .. " reason=" .. (reasons[reason] or tostring(reason))
	end
	t:add(f.trace, tr):set_generated()

	local text = name
	if ty == 1 then
		text = text .. " qual=" .. tostring(tvb(8, 8):le_uint64())
	elseif ty == 3 then
		text = text .. " reason=" .. (reasons[reason] or tostring(reason))
		ri:add_proto_expert_info(e.reject)
	end
	if ty == 1 or ty == 2 then
		text = text .. " rd_in=" .. tvb(24, 4):le_uint() ..
			" rd_out=" .. tvb(28, 4):le_uint()
	end
	text = text .. " pdata=" .. pdlen
	if seq then
		text = text .. " seq=" .. seq
	end
	info(pinfo, text)
end

-- One data frame, @tvb exactly its header and payload.
local function dissect_frame(tvb, pinfo, root, key, dir)
	local op = tvb(0, 1):uint()
	local len = tvb(8, 4):le_uint()
	local name = ops[op] or ("OP_" .. op)
	local seq = seq_of(pinfo, dir, key)
	local t = root:add(sd, tvb(), "softdapl " .. name)

	add_common(t, tvb, pinfo, name, seq, conn_of(pinfo))
	t:add(f.op, tvb(0, 1))
	local fi = t:add(f.flags, tvb(1, 1))
	if tvb(1, 1):uint() ~= 0 then
		fi:add_proto_expert_info(e.bad_field, "flags are reserved (0)")
	end
	t:add(f.reserved, tvb(2, 2))
	t:add_le(f.ack, tvb(4, 4))
	local li = t:add_le(f.len, tvb(8, 4))
	t:add_le(f.rkey, tvb(12, 4))
	t:add_le(f.addr, tvb(16, 8))
	t:add_le(f.tag, tvb(24, 4))
	t:add_le(f.code, tvb(28, 4))
	if op == 7 then
		local ci = t:add_le(f.term_code, tvb(28, 4))
		ci:add_proto_expert_info(e.terminate)
		if not term_codes[tvb(28, 4):le_uint()] then
			ci:add_proto_expert_info(e.bad_field, "unknown TERMINATE code")
		end
	elseif op == 11 or op == 12 then
		t:add_le(f.imm, tvb(28, 4))
	end
	if (op == 6 or op == 7 or op == 8) and len ~= 0 then
		li:add_proto_expert_info(e.bad_field, "len must be 0")
	elseif (op == 13 or op == 14) and len ~= 16 then
		li:add_proto_expert_info(e.bad_field, "an atomic's len must be 16")
	elseif op == 15 and len ~= 8 then
		li:add_proto_expert_info(e.bad_field, "ATOMIC_RESP's len must be 8")
	end
	if has_payload(op) then
		t:add(f.payload_len, len):set_generated()
		if len > 0 then
			local p = tvb(HDR_SIZE, len)
			t:add(f.payload, p)
			if (op == 13 or op == 14) and len == 16 then
				if op == 13 then
					t:add_le(f.atomic_add, p(0, 8))
				else
					t:add_le(f.atomic_compare, p(0, 8))
					t:add_le(f.atomic_swap, p(8, 8))
				end
			elseif op == 15 and len == 8 then
				t:add_le(f.atomic_old, p(0, 8))
			end
		end
	end

	local rkey = tvb(12, 4):le_uint()
	local addr = tvb(16, 8):le_uint64()
	local tag = tvb(24, 4):le_uint()
	local code = tvb(28, 4):le_uint()
	t:add(f.trace, trace_head(name, pinfo, seq, tvb) .. " len=" .. len ..
		" ack=" .. tvb(4, 4):le_uint() .. string.format(" rkey=0x%x", rkey) ..
		" addr=" .. hex64(addr) .. " tag=" .. tag .. " code=" .. code):set_generated()

	local text = name .. " len=" .. len
	if op == 3 or op == 4 or op == 11 or op == 12 or op == 13 or op == 14 then
		text = text .. string.format(" rkey=0x%x", rkey) .. " addr=" .. hex64(addr)
	elseif op == 9 or op == 10 then
		text = text .. string.format(" rkey=0x%x", rkey)
	end
	if op == 4 or op == 5 or op == 13 or op == 14 or op == 15 then
		text = text .. " tag=" .. tag
	elseif op == 7 then
		text = text .. " code=" .. (term_codes[code] or tostring(code)) ..
			(tag == 0xffffffff and " tag=none" or (" tag=" .. tag))
	elseif op == 11 or op == 12 then
		text = text .. string.format(" imm=0x%x", code)
	end
	text = text .. " ack=" .. tvb(4, 4):le_uint()
	if seq then
		text = text .. " seq=" .. seq
	end
	info(pinfo, text)
end

-- The TCP dissector: every complete message or frame in @tvb, asking TCP
-- for more bytes when the last one is cut. Returns the bytes consumed.
local function dissect_tcp(tvb, pinfo, root)
	local total = tvb:len()
	local dir = direction(pinfo)
	local off = 0

	local lf = lost[dir]
	if lf and pinfo.number >= lf then
		local t = root:add(sd, tvb(), "softdapl (not decoded)")
		t:add_proto_expert_info(e.lost)
		info(pinfo, "not decoded (after a malformed frame)")
		return total
	end

	while off < total do
		local avail = total - off
		local need, kind
		if avail < 4 then
			need = nil
		elseif tvb(off, 4):string() == MAGIC then
			kind = "cm"
			if avail >= CM_SIZE then
				need = CM_SIZE + tvb(off + 32, 2):le_uint()
			end
		else
			kind = "frame"
			if avail >= HDR_SIZE then
				local op = tvb(off, 1):uint()
				local len = tvb(off + 8, 4):le_uint()
				need = HDR_SIZE + (has_payload(op) and len or 0)
				local bad
				if not ops[op] then
					bad = e.bad_op
				elseif len > MAX_LEN then
					bad = e.bad_len
				end
				if bad then
					-- Nothing after this can be trusted to be
					-- aligned on a frame.
					local t = root:add(sd, tvb(off), "softdapl malformed frame")
					t:add(f.op, tvb(off, 1))
					t:add_le(f.len, tvb(off + 8, 4))
					t:add_proto_expert_info(bad, bad == e.bad_op and
						("unknown op " .. op) or
						("len " .. len .. " above 2 GiB"))
					info(pinfo, "malformed frame")
					if not pinfo.visited then
						lost[dir] = pinfo.number + 1
					end
					return total
				end
			end
		end
		if kind == "cm" and need and
		    tvb(off + 32, 2):le_uint() > MAX_PDATA then
			local t = root:add(sd, tvb(off), "softdapl malformed handshake message")
			t:add_le(f.pdata_len, tvb(off + 32, 2))
			t:add_proto_expert_info(e.bad_cm, "pdata_len above 1024")
			info(pinfo, "malformed handshake message")
			if not pinfo.visited then
				lost[dir] = pinfo.number + 1
			end
			return total
		end
		if not need or avail < need then
			if not pinfo.can_desegment or pinfo.can_desegment == 0 then
				-- Reassembly is off: show the start, and
				-- nothing after it, which is not aligned.
				root:add(sd, tvb(off), "softdapl (cut; enable TCP reassembly)")
				info(pinfo, "cut frame (TCP reassembly is off)")
				if not pinfo.visited then
					lost[dir] = pinfo.number + 1
				end
				return total
			end
			pinfo.desegment_offset = off
			pinfo.desegment_len = need and (need - avail) or
				DESEGMENT_ONE_MORE_SEGMENT
			return total
		end
		local sub = tvb(off, need):tvb()
		local key = pdu_key(pinfo, tvb, off)
		if kind == "cm" then
			dissect_cm(sub, pinfo, root, key, dir)
		else
			dissect_frame(sub, pinfo, root, key, dir)
		end
		off = off + need
	end
	return total
end

sd.dissector = dissect_tcp

local function heur_tcp(tvb, pinfo, root)
	if not sd.prefs.heuristic or tvb:len() < 8 then
		return false
	end
	if tvb(0, 4):string() ~= MAGIC or tvb(4, 2):le_uint() ~= 1 then
		return false
	end
	local ty = tvb(6, 1):uint()
	if ty < 1 or ty > 4 then
		return false
	end
	pinfo.conversation = sd
	dissect_tcp(tvb, pinfo, root)
	return true
end

-- One UD datagram (udproto.h); the UDP heuristic calls it.
local function dissect_ud(tvb, pinfo, root)
	local total = tvb:len()
	local ty = tvb(5, 1):uint()
	local flags = tvb(6, 1):uint()
	local pdlen = tvb(36, 2):le_uint()
	local name = ud_types[ty] or ("UD_" .. ty)
	local t = root:add(sd, tvb(), "softdapl UD " .. name)

	pinfo.cols.protocol:set("softdapl")
	t:add(f.name, "UD_" .. name):set_generated()
	t:add(f.bytes, total):set_generated()
	t:add(f.ud_magic, tvb(0, 4))
	t:add(f.ud_version, tvb(4, 1))
	local ti = t:add(f.ud_type, tvb(5, 1))
	local fi = t:add(f.ud_flags, tvb(6, 1))
	fi:add(f.ud_se, tvb(6, 1))
	t:add(f.reserved, tvb(7, 1))
	t:add_le(f.ud_dst_qpn, tvb(8, 4))
	t:add_le(f.ud_dst_qkey, tvb(12, 4))
	local si = t:add_le(f.ud_src_qpn, tvb(16, 4))
	t:add_le(f.ud_src_qkey, tvb(20, 4))
	t:add_le(f.ud_cm_id, tvb(24, 8))
	t:add_le(f.ud_arg, tvb(32, 4))
	if ty == 2 then
		t:add_le(f.ud_qual, tvb(32, 4))
	elseif ty == 4 then
		t:add_le(f.ud_reason, tvb(32, 4))
	end
	local pi = t:add_le(f.ud_pdata_len, tvb(36, 2))
	t:add(f.reserved, tvb(38, 2))

	-- ud.c ud_hdr_check, reported rather than refused.
	if tvb(4, 1):uint() ~= 1 then
		ti:add_proto_expert_info(e.bad_ud, "unknown version")
	end
	if not ud_types[ty] then
		ti:add_proto_expert_info(e.bad_ud, "unknown type")
	end
	if tvb(16, 4):le_uint() == 0 then
		si:add_proto_expert_info(e.bad_ud, "src_qpn 0")
	end
	if ty == 1 then
		if (flags ~= 0 and flags ~= 1) or pdlen ~= 0 then
			fi:add_proto_expert_info(e.bad_ud, "DATA with flags or pdata_len")
		end
		if total > UD_HDR_SIZE then
			t:add(f.ud_payload, tvb(UD_HDR_SIZE))
		end
		t:add(f.payload_len, total - UD_HDR_SIZE):set_generated()
	elseif ud_types[ty] then
		if flags ~= 0 or pdlen > MAX_PDATA or total ~= UD_HDR_SIZE + pdlen or
		    (ty == 5 and pdlen ~= 0) then
			pi:add_proto_expert_info(e.bad_ud, "bad pdata_len, flags or size")
		elseif pdlen > 0 then
			t:add(f.ud_pdata, tvb(UD_HDR_SIZE, pdlen))
		end
	end

	local text = "UD " .. name .. " src_qpn=" .. tvb(16, 4):le_uint() ..
		" dst_qpn=" .. tvb(8, 4):le_uint()
	if ty == 1 then
		text = text .. " len=" .. (total - UD_HDR_SIZE)
	else
		text = text .. " cm_id=" .. hex64(tvb(24, 8):le_uint64())
		if ty == 2 then
			text = text .. " qual=" .. tvb(32, 4):le_uint()
		elseif ty == 4 then
			local r = tvb(32, 4):le_uint()
			text = text .. " reason=" .. (ud_reasons[r] or tostring(r))
		end
	end
	pinfo.cols.info:set(text)
	return total
end

local function heur_udp(tvb, pinfo, root)
	if not sd.prefs.heuristic or tvb:len() < UD_HDR_SIZE or
	    tvb(0, 4):string() ~= UD_MAGIC then
		return false
	end
	dissect_ud(tvb, pinfo, root)
	return true
end

sd:register_heuristic("tcp", heur_tcp)
sd:register_heuristic("udp", heur_udp)

local tcp_port = DissectorTable.get("tcp.port")
tcp_port:add_for_decode_as(sd)
local ports_added = ""

function sd.prefs_changed()
	local r = tostring(sd.prefs.tcp_ports or "")
	if r == ports_added then
		return
	end
	if ports_added ~= "" then
		tcp_port:remove(ports_added, sd)
	end
	if r ~= "" then
		tcp_port:add(r, sd)
	end
	ports_added = r
end
