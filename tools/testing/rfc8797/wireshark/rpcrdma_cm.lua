-- SPDX-License-Identifier: GPL-2.0
--
-- rpcrdma_cm.lua - Wireshark/tshark dissector for the RPC-over-RDMA
-- version 1 CM Private Data of RFC 8797, and a check of the RDMA Sends
-- of the connection against the inline thresholds it negotiated.
--
-- Written for Wireshark 4.0 (Debian bookworm's tshark 4.0.17).  Load it
-- with "tshark -X lua_script:rpcrdma_cm.lua" or copy it into the
-- personal plugin folder (make wireshark).  See README.rst next to it.
--
-- What it does:
--
--  * InfiniBand/RoCE: a heuristic on "infiniband.mad.cm.private", the
--    list Wireshark's InfiniBand dissector offers the Private Data of
--    every CM message to.  Wireshark 4.0 hands over the consumer's
--    Private Data: on a REQ whose Service ID is an RDMA-CM IP one it
--    first takes off the 36-octet IP CM header itself (checked on a
--    soft-RoCE capture: 56 octets arrive on a REQ, 196 on a REP), so
--    the offsets shown are the offsets the RDMA consumer (the kernel)
--    sees.
--  * iWARP: the MPA dissector offers its Private Data to nobody, but
--    puts it in the field "iwarp_mpa.privatedata"; a postdissector
--    reads that field's bytes and decodes them the same way.  On an MPA
--    revision 2 frame with the Enhanced flag (RFC 6581) the field starts
--    with the 4-octet IRD/ORD words, which the iWARP CM (siw) takes off
--    before it hands the rest to the RDMA consumer: they are skipped
--    here too, so the offsets shown are again the kernel's (checked on
--    a soft-iWARP capture: our server reports offset 3 for a message
--    at octet 7 of the MPA field).
--  * On REQ/REP (MPA Request/Reply) the message is searched for at
--    every octet offset, exactly as RFC 8797 section 5.2 and the
--    kernel's rpcrdma_cm_private_parse() (net/sunrpc/xprtrdma/
--    cm_private.c) do: the first occurrence of the Format Identifier
--    with version 1 and all eight octets present is used; other
--    versions are skipped; an identifier with fewer than eight octets
--    left is "truncated" unless a complete bad-version one came first.
--  * With both halves of a connection seen, the reply also shows the
--    negotiated client-to-server and server-to-client thresholds and
--    whether Send With Invalidate may be used (RFC 8797 4.1, 4.2), and
--    every later RDMA Send of the connection is checked (RoCE: RC Sends
--    of its queue pairs; iWARP: the RDMAP Send messages of its TCP
--    stream): a Send larger than the threshold of its direction, or a
--    Send With Invalidate that R does not allow, is an expert-info error.

local MAGIC = 0xf6ab0e18
local NFS_RDMA_PORT = 20049

-- CM attribute IDs (IBA vol 1, 12.6)
local CM_REQ, CM_REJ, CM_REP = 0x0010, 0x0012, 0x0013

local OUTCOMES = { "found", "absent", "truncated", "bad-version" }

local cm = Proto("rpcrdma_cm", "RPC-over-RDMA v1 CM Private Data (RFC 8797)")
cm.prefs.port = Pref.uint("NFS/RDMA port", NFS_RDMA_PORT,
	"RDMA-CM port of connections decoded even when no Format Identifier is present")

local f = {
	outcome   = ProtoField.string("rpcrdma_cm.outcome", "Outcome"),
	role      = ProtoField.string("rpcrdma_cm.role", "Sent by"),
	len       = ProtoField.uint16("rpcrdma_cm.pdlen", "Private Data length searched"),
	offset    = ProtoField.uint16("rpcrdma_cm.offset", "Offset of the message"),
	count     = ProtoField.uint16("rpcrdma_cm.occurrences", "Format Identifiers found"),
	magic     = ProtoField.uint32("rpcrdma_cm.magic", "Format Identifier", base.HEX),
	version   = ProtoField.uint8("rpcrdma_cm.version", "Version"),
	flags     = ProtoField.uint8("rpcrdma_cm.flags", "Flags", base.HEX),
	reserved  = ProtoField.uint8("rpcrdma_cm.reserved", "Reserved", base.HEX, nil, 0xfe),
	r         = ProtoField.bool("rpcrdma_cm.r", "R (remote invalidation)", 8, nil, 0x01),
	send_enc  = ProtoField.uint8("rpcrdma_cm.send_size.encoded", "Send Size (encoded)"),
	send      = ProtoField.uint32("rpcrdma_cm.send_size", "Send Size (octets)"),
	recv_enc  = ProtoField.uint8("rpcrdma_cm.recv_size.encoded", "Receive Size (encoded)"),
	recv      = ProtoField.uint32("rpcrdma_cm.recv_size", "Receive Size (octets)"),
	other     = ProtoField.uint16("rpcrdma_cm.other_offset", "Other occurrence at offset"),
	-- one per expert-info warning of this dissector, for filters and
	-- tshark -T fields: reserved-bits, truncated, unknown-version,
	-- second-occurrence, send-too-large, inv-not-negotiated,
	-- inv-from-client
	warning   = ProtoField.string("rpcrdma_cm.warning", "Warning"),
	-- the connection, known once the reply is seen
	c2s       = ProtoField.uint32("rpcrdma_cm.c2s", "Negotiated client-to-server inline threshold"),
	s2c       = ProtoField.uint32("rpcrdma_cm.s2c", "Negotiated server-to-client inline threshold"),
	rneg      = ProtoField.bool("rpcrdma_cm.remote_inv", "Send With Invalidate allowed (both set R)"),
	req_frame = ProtoField.framenum("rpcrdma_cm.request_in", "Request in frame", base.NONE, frametype.REQUEST),
	rep_frame = ProtoField.framenum("rpcrdma_cm.reply_in", "Reply in frame", base.NONE, frametype.RESPONSE),
	-- RDMA Sends
	send_dir  = ProtoField.string("rpcrdma_cm.send.direction", "Direction"),
	send_len  = ProtoField.uint32("rpcrdma_cm.send.length", "RDMA Send message length"),
	send_thr  = ProtoField.uint32("rpcrdma_cm.send.threshold", "Inline threshold of this direction"),
	send_inv  = ProtoField.bool("rpcrdma_cm.send.invalidate", "Send With Invalidate"),
	send_cm   = ProtoField.framenum("rpcrdma_cm.send.cm_frame", "Thresholds negotiated in frame"),
	send_rexmit = ProtoField.bool("rpcrdma_cm.send.retransmission", "Retransmission (PSN seen before)"),
}
cm.fields = f

local e = {
	reserved  = ProtoExpert.new("rpcrdma_cm.reserved_set", "Reserved flag bits set (senders MUST send zero, receivers ignore them)",
		expert.group.PROTOCOL, expert.severity.WARN),
	truncated = ProtoExpert.new("rpcrdma_cm.truncated", "Format Identifier with fewer than 8 octets left: message truncated, peer treated as sending none",
		expert.group.MALFORMED, expert.severity.WARN),
	version   = ProtoExpert.new("rpcrdma_cm.unknown_version", "Format Identifier with an unknown Version: skipped",
		expert.group.PROTOCOL, expert.severity.WARN),
	second    = ProtoExpert.new("rpcrdma_cm.second", "More than one Format Identifier in the Private Data",
		expert.group.PROTOCOL, expert.severity.WARN),
	absent    = ProtoExpert.new("rpcrdma_cm.absent", "No RPC-over-RDMA CM Private Data: RFC 8166 defaults (1024 octets, no remote invalidation)",
		expert.group.SEQUENCE, expert.severity.NOTE),
	oversize  = ProtoExpert.new("rpcrdma_cm.send.too_large", "RDMA Send larger than the negotiated inline threshold",
		expert.group.PROTOCOL, expert.severity.ERROR),
	inv_not_r = ProtoExpert.new("rpcrdma_cm.send.inv_not_negotiated", "Send With Invalidate although R was not negotiated by both peers",
		expert.group.PROTOCOL, expert.severity.ERROR),
	inv_c2s   = ProtoExpert.new("rpcrdma_cm.send.inv_from_client", "Send With Invalidate from the client: only a responder may use it",
		expert.group.PROTOCOL, expert.severity.ERROR),
}
cm.experts = e

-- warn(item, expert, code[, text]): the expert info on item, and the
-- short code as a generated rpcrdma_cm.warning next to it
local function warn(item, ex, code, text)
	if text then
		item:add_proto_expert_info(ex, text)
	else
		item:add_proto_expert_info(ex)
	end
	item:add(f.warning, code):set_generated()
end

-- fields of the frame that the decisions below need
local fe = {
	attr     = Field.new("infiniband.mad.attributeid"),
	dport    = Field.new("infiniband.cm.req.serviceid.dport"),
	req_cid  = Field.new("infiniband.cm.req"),
	req_qpn  = Field.new("infiniband.cm.req.localqpn"),
	rep_cid  = Field.new("infiniband.cm.rep.remotecommid"),
	rep_qpn  = Field.new("infiniband.cm.rep.localqpn"),
	ip_src   = Field.new("ip.src"),
	ip_dst   = Field.new("ip.dst"),
	ip6_src  = Field.new("ipv6.src"),
	ip6_dst  = Field.new("ipv6.dst"),
	opcode   = Field.new("infiniband.bth.opcode"),
	destqp   = Field.new("infiniband.bth.destqp"),
	padcnt   = Field.new("infiniband.bth.padcnt"),
	psn      = Field.new("infiniband.bth.psn"),
	udp_len  = Field.new("udp.length"),
	mpa_pd   = Field.new("iwarp_mpa.privatedata"),
	mpa_req  = Field.new("iwarp_mpa.req"),
	mpa_rep  = Field.new("iwarp_mpa.rep"),
	mpa_rev  = Field.new("iwarp_mpa.rev"),
	mpa_res  = Field.new("iwarp_mpa.res"),
	mpa_port = Field.new("tcp.dstport"),
	tcp_src  = Field.new("tcp.srcport"),
	stream   = Field.new("tcp.stream"),
	-- one of each per DDP segment (MPA FPDU); qn, msn and mo only on
	-- untagged ones
	ulpdu    = Field.new("iwarp_mpa.ulpdulength"),
	ddp_tag  = Field.new("iwarp_ddp.tagged_flag"),
	ddp_last = Field.new("iwarp_ddp.last_flag"),
	ddp_qn   = Field.new("iwarp_ddp.qn"),
	ddp_msn  = Field.new("iwarp_ddp.msn"),
	ddp_mo   = Field.new("iwarp_ddp.mo"),
	rdmap_op = Field.new("iwarp_rdma.opcode"),
}

local function val(field)
	local fi = field()
	return fi and fi.value
end

local function addr(src)
	local a = src and (fe.ip_src() or fe.ip6_src()) or (fe.ip_dst() or fe.ip6_dst())
	return a and tostring(a.value) or "?"
end

-- State built on the first, in-order pass and looked up by frame number
-- afterwards (the GUI dissects frames again in any order).
local conns = {}	-- CM: REQ Local Communication ID -> connection
local mpa_conns = {}	-- iWARP: tcp.stream -> connection
local by_qp = {}	-- "addr/qpn" of a receiving QP -> { conn, dir }
local frame_conn = {}	-- frame number -> connection (REQ or REP frame)
local frame_send = {}	-- frame number -> what the Send check found
local partial = {}	-- "addr/qpn" -> length of a multi-packet Send so far
local psns = {}		-- "addr/qpn" -> { [PSN of a last/only packet] = true }

local function reset_state()
	conns, mpa_conns, by_qp, frame_conn, frame_send, partial, psns = {}, {}, {}, {}, {}, {}, {}
end
cm.init = reset_state

local function decode_size(enc)
	return (enc + 1) * 1024
end

-- parse(tvb): the search of RFC 8797 5.2 as the kernel does it.  Returns
-- a table: status, offset (used or first rejected), version, and for
-- "found" flags/send/recv; occ lists every offset of a complete
-- Format Identifier.
local function parse(tvb)
	local len = tvb:len()
	local res = { status = "absent", offset = 0, version = 0, occ = {} }
	local bad = false
	local i = 0
	while len - i >= 4 do
		if tvb(i, 4):uint() == MAGIC then
			res.occ[#res.occ + 1] = i
			if res.status ~= "found" and not res.stop then
				if len - i < 8 then
					if not bad then
						res.status, res.offset = "truncated", i
						res.version = len - i > 4 and tvb(i + 4, 1):uint() or 0
					end
					res.stop = true
				elseif tvb(i + 4, 1):uint() ~= 1 then
					if not bad then
						bad = true
						res.status, res.offset = "bad-version", i
						res.version = tvb(i + 4, 1):uint()
					end
				else
					res.status, res.offset, res.version = "found", i, 1
					res.flags = tvb(i + 5, 1):uint()
					res.send = decode_size(tvb(i + 6, 1):uint())
					res.recv = decode_size(tvb(i + 7, 1):uint())
				end
			end
		end
		i = i + 1
	end
	if res.status == "found" then
		res.r = res.flags % 2 == 1
	else
		res.r, res.send, res.recv = false, 1024, 1024
	end
	return res
end

-- The peer's view of what was sent, as the kernel's negotiation uses it
local function props(res)
	return { r = res.r, send = res.send, recv = res.recv }
end

local function negotiate(conn)
	local c, s = conn.client, conn.server
	conn.c2s = math.min(c.send, s.recv)
	conn.s2c = math.min(s.send, c.recv)
	conn.rneg = c.r and s.r
end

-- Add the decoded message to TREE; the byte ranges come from TVB.
local function show(tvb, tree, pinfo, res, role)
	local st = tree:add(cm, tvb(), "RPC-over-RDMA v1 CM Private Data (RFC 8797): " .. res.status)
	st:add(f.role, role):set_generated()
	st:add(f.outcome, res.status):set_generated()
	st:add(f.len, tvb:len()):set_generated()
	st:add(f.count, #res.occ):set_generated()
	local o = res.offset
	if res.status == "found" then
		st:add(f.offset, o):set_generated()
		st:add(f.magic, tvb(o, 4))
		st:add(f.version, tvb(o + 4, 1))
		local fl = st:add(f.flags, tvb(o + 5, 1))
		local rsv = fl:add(f.reserved, tvb(o + 5, 1))
		fl:add(f.r, tvb(o + 5, 1))
		if res.flags >= 2 then
			warn(st, e.reserved, "reserved-bits", string.format(
				"Reserved flag bits set (flags 0x%02x): senders MUST send zero, receivers ignore them", res.flags))
		end
		st:add(f.send_enc, tvb(o + 6, 1))
		st:add(f.send, tvb(o + 6, 1), res.send)
		st:add(f.recv_enc, tvb(o + 7, 1))
		st:add(f.recv, tvb(o + 7, 1), res.recv)
		st:append_text(string.format(" at offset %d, %s, Send %d, Receive %d",
			o, res.r and "R" or "no R", res.send, res.recv))
	elseif res.status == "truncated" then
		st:add(f.offset, o):set_generated()
		st:add(f.magic, tvb(o, 4))
		if tvb:len() - o > 4 then
			st:add(f.version, tvb(o + 4, 1))
		end
		warn(st, e.truncated, "truncated", string.format(
			"Format Identifier at offset %d with only %d octets left: truncated, peer taken as sending none",
			o, tvb:len() - o))
	elseif res.status == "bad-version" then
		st:add(f.offset, o):set_generated()
		st:add(f.magic, tvb(o, 4))
		st:add(f.version, tvb(o + 4, 1))
	else
		st:add_proto_expert_info(e.absent)
	end
	-- every complete occurrence with another version was skipped
	local unknown = false
	for _, x in ipairs(res.occ) do
		if tvb:len() - x >= 8 and tvb(x + 4, 1):uint() ~= 1 then
			if not unknown then
				unknown = true
				warn(st, e.version, "unknown-version", string.format(
					"Format Identifier at offset %d has Version %d, not 1: skipped",
					x, tvb(x + 4, 1):uint()))
			end
		end
	end
	if #res.occ > 1 then
		local others = {}
		for _, x in ipairs(res.occ) do
			if x ~= o then
				st:add(f.other, tvb(x, 4), x):set_generated()
				others[#others + 1] = tostring(x)
			end
		end
		warn(st, e.second, "second-occurrence", string.format(
			"%d Format Identifiers (also at offset %s); a receiver uses the one at offset %d%s",
			#res.occ, table.concat(others, ", "), o,
			res.status == "found" and "" or " only to report it"))
	end
	if res.status ~= "found" then
		st:append_text(" (peer taken as RFC 8166 defaults: 1024/1024, no R)")
	end
	return st
end

local function show_connection(st, conn, pinfo)
	if conn.req_frame and conn.req_frame ~= pinfo.number then
		st:add(f.req_frame, conn.req_frame):set_generated()
	end
	if conn.rep_frame and conn.rep_frame ~= pinfo.number then
		st:add(f.rep_frame, conn.rep_frame):set_generated()
	end
	if conn.c2s then
		st:add(f.c2s, conn.c2s):set_generated()
		st:add(f.s2c, conn.s2c):set_generated()
		st:add(f.rneg, conn.rneg):set_generated()
	end
end

-- Map a receiving queue pair to the connection and direction of the
-- Sends it receives.
local function bind_qps(conn)
	-- a new connection on a QP number seen before starts afresh
	if conn.client_qp then
		partial[conn.client_addr .. "/" .. conn.client_qp] = nil
		psns[conn.client_addr .. "/" .. conn.client_qp] = nil
	end
	if conn.server_qp then
		partial[conn.server_addr .. "/" .. conn.server_qp] = nil
		psns[conn.server_addr .. "/" .. conn.server_qp] = nil
	end
	if conn.client_qp then
		by_qp[conn.client_addr .. "/" .. conn.client_qp] = { conn = conn, dir = "s2c" }
	end
	if conn.server_qp then
		by_qp[conn.server_addr .. "/" .. conn.server_qp] = { conn = conn, dir = "c2s" }
	end
end

-- Record a REQ or REP on the first pass; return the connection
local function track(pinfo, kind, key, table_, res, qpn)
	if pinfo.visited then
		return frame_conn[pinfo.number]
	end
	local conn = table_[key]
	if kind == "request" then
		-- a retransmitted REQ carries the same ID and data
		if not conn or conn.rep_frame then
			conn = {}
			table_[key] = conn
		end
		conn.req_frame = pinfo.number
		conn.client = props(res)
		conn.client_addr, conn.server_addr = addr(true), addr(false)
		conn.client_qp = qpn
	elseif conn then
		conn.rep_frame = pinfo.number
		conn.server = props(res)
		conn.server_qp = qpn
		negotiate(conn)
		bind_qps(conn)
	end
	frame_conn[pinfo.number] = conn
	return conn
end

-- The heuristic: REQ and REP only (RFC 8797 data appears in no other
-- CM message).  Claims the data when the Format Identifier occurs or
-- the connection is to the NFS/RDMA port, so that "absent" shows for
-- an NFS client or server that sends none.
local function heur_cm(tvb, pinfo, tree)
	local attr = val(fe.attr)
	local res, kind, conn
	if attr == CM_REQ then
		res = parse(tvb)
		if res.status == "absent" and val(fe.dport) ~= cm.prefs.port then
			return false
		end
		conn = track(pinfo, "request", val(fe.req_cid), conns, res, val(fe.req_qpn))
		kind = "client (REQ)"
	elseif attr == CM_REP then
		local known = conns[val(fe.rep_cid)]
		res = parse(tvb)
		if res.status == "absent" and not known and not frame_conn[pinfo.number] then
			return false
		end
		conn = track(pinfo, "reply", val(fe.rep_cid), conns, res, val(fe.rep_qpn))
		kind = "server (REP)"
	else
		return false
	end
	local st = show(tvb, tree, pinfo, res, kind)
	if conn then
		show_connection(st, conn, pinfo)
	end
	pinfo.cols.info:append(string.format(" [RFC 8797 %s %s]", kind:match("^%a+"),
		res.status == "found" and string.format("R=%d %d/%d", res.r and 1 or 0, res.send, res.recv) or res.status))
	return true
end
cm:register_heuristic("infiniband.mad.cm.private", heur_cm)

-- RoCE RC Send opcodes (IBA 9.2): first, middle, last, last with
-- immediate, only, only with immediate, last/only with invalidate; the
-- extra header octets each carries (ImmDt, IETH)
local SENDS = {
	[0x00] = { part = "first", ext = 0 },
	[0x01] = { part = "middle", ext = 0 },
	[0x02] = { part = "last", ext = 0 },
	[0x03] = { part = "last", ext = 4 },
	[0x04] = { part = "only", ext = 0 },
	[0x05] = { part = "only", ext = 4 },
	[0x16] = { part = "last", ext = 4, inv = true },
	[0x17] = { part = "only", ext = 4, inv = true },
}

-- Check a RoCE RC Send on the first pass: returns what to show, or nil
local function check_send()
	local op = val(fe.opcode)
	local s = op and SENDS[op]
	local ulen = val(fe.udp_len)
	if not s or not ulen then
		return nil
	end
	local key = addr(false) .. "/" .. val(fe.destqp)
	local b = by_qp[key]
	if not b then
		return nil
	end
	-- UDP header 8, BTH 12, extension, ICRC 4, pad
	local n = ulen - 8 - 12 - s.ext - 4 - (val(fe.padcnt) or 0)
	-- rxe retransmits packets whose ACK is late (go-back-N): the same
	-- QP and PSN again.  A repeated first or middle packet adds
	-- nothing; a repeated last or only packet is shown with the length
	-- of the message it ended the first time.
	local psn = val(fe.psn)
	local seen = psns[key]
	if not seen then
		seen = {}
		psns[key] = seen
	end
	local rexmit = seen[psn]
	if not rexmit then
		seen[psn] = (s.part == "first" or s.part == "middle") and -1 or true
	end
	if s.part == "first" then
		if not rexmit then
			partial[key] = n
		end
		return nil
	elseif s.part == "middle" then
		if not rexmit then
			partial[key] = (partial[key] or 0) + n
		end
		return nil
	end
	if rexmit then
		n = type(rexmit) == "number" and rexmit or n
	else
		n = n + (s.part == "last" and partial[key] or 0)
		partial[key] = nil
		seen[psn] = n
	end
	local c = b.conn
	return {
		dir = b.dir, len = n, inv = s.inv or false, rexmit = rexmit ~= nil,
		thr = b.dir == "c2s" and c.c2s or c.s2c,
		rneg = c.rneg, cm_frame = c.rep_frame,
	}
end

-- iWARP RDMAP Send opcodes (RFC 5040 4.3): Send, Send with
-- Invalidate, Send with Solicited Event, Send with SE and Invalidate
local IWARP_SENDS = { [0x3] = false, [0x4] = true, [0x5] = false, [0x6] = true }
local DDP_UNTAGGED_HDR = 18	-- DDP control, RDMAP control, Inval STag, QN, MSN, MO

-- Check the RDMAP Send messages that end in this frame on the first
-- pass: a list of what to show.  The length of a message is the
-- Message Offset of its last DDP segment plus that segment's payload
-- (the ULPDU less the untagged DDP/RDMAP header), so a message is
-- measured right even when only its last segment was captured; a
-- segment seen before (same stream, direction, MSN and MO: a TCP
-- retransmission) is marked and counted once.
local function check_iwarp_sends()
	local conn = mpa_conns[val(fe.stream)]
	if not conn or not conn.rep_frame then
		return nil
	end
	local ulpdus, tags, lasts, ops = { fe.ulpdu() }, { fe.ddp_tag() }, { fe.ddp_last() }, { fe.rdmap_op() }
	local qns, msns, mos = { fe.ddp_qn() }, { fe.ddp_msn() }, { fe.ddp_mo() }
	local dir = (addr(true) == conn.client_addr and val(fe.tcp_src) == conn.client_port) and "c2s" or "s2c"
	local key = "mpa/" .. val(fe.stream) .. "/" .. dir
	local seen = psns[key]
	if not seen then
		seen = {}
		psns[key] = seen
	end
	local out, u = {}, 0
	for i = 1, #tags do
		if not tags[i].value then
			u = u + 1
			local op = ops[i] and ops[i].value
			if IWARP_SENDS[op] ~= nil and qns[u] and qns[u].value == 0 and ulpdus[i] then
				local msn, mo = msns[u].value, mos[u].value
				local id = msn .. "/" .. mo
				local rexmit = seen[id] ~= nil
				seen[id] = true
				if lasts[i] and lasts[i].value then
					out[#out + 1] = {
						dir = dir, len = mo + ulpdus[i].value - DDP_UNTAGGED_HDR,
						inv = IWARP_SENDS[op], rexmit = rexmit,
						thr = dir == "c2s" and conn.c2s or conn.s2c,
						rneg = conn.rneg, cm_frame = conn.rep_frame,
					}
				end
			end
		end
	end
	return #out > 0 and out or nil
end

-- iWARP: MPA Request/Reply Private Data, read from the MPA dissector's
-- field (the range keeps the bytes' place in the frame).  MPA revision
-- 2 with the Enhanced flag (0x10 of the reserved bits): the first four
-- octets are the IRD/ORD words of RFC 6581, not the consumer's.
local function mpa_private(pinfo, tree)
	local pd = fe.mpa_pd()
	if not pd then
		return
	end
	local rev, res_bits = val(fe.mpa_rev), val(fe.mpa_res) or 0
	local enhanced = rev == 2 and math.floor(res_bits / 16) % 2 == 1 and pd.range:len() >= 4
	local tvb
	if not enhanced then
		tvb = pd.range:tvb()
	elseif pd.range:len() > 4 then
		tvb = pd.range:range(4):tvb()
	else
		tvb = ByteArray.new(""):tvb("MPA consumer Private Data")
	end
	local res = parse(tvb)
	local is_req = fe.mpa_req() ~= nil
	local stream = val(fe.stream)
	local conn
	if is_req then
		conn = track(pinfo, "request", stream, mpa_conns, res, nil)
		if conn and not pinfo.visited then
			conn.client_port = val(fe.tcp_src)
		end
	else
		conn = track(pinfo, "reply", stream, mpa_conns, res, nil)
	end
	local kind = is_req and "client (MPA Request)" or "server (MPA Reply)"
	local st = show(tvb, tree, pinfo, res, kind)
	if enhanced then
		st:add(pd.range:range(0, 4), "MPA v2 IRD/ORD words (RFC 6581), not part of the consumer's Private Data: offsets count from after them")
	end
	if conn then
		show_connection(st, conn, pinfo)
	end
	pinfo.cols.info:append(string.format(" [RFC 8797 %s %s]", is_req and "Request" or "Reply",
		res.status == "found" and string.format("R=%d %d/%d", res.r and 1 or 0, res.send, res.recv) or res.status))
end

-- Show one checked Send (RoCE or iWARP)
local function show_send(tvb, tree, r)
	local st = tree:add(cm, tvb(), "RPC-over-RDMA inline threshold (RFC 8797): ")
	st:add(f.send_dir, r.dir):set_generated()
	st:add(f.send_len, r.len):set_generated()
	st:add(f.send_inv, r.inv):set_generated()
	-- always present, so that the fields of several Sends in one frame
	-- (iWARP FPDUs) line up in tshark -T fields
	st:add(f.send_rexmit, r.rexmit):set_generated()
	if r.rexmit then
		st:append_text("retransmitted ")
	end
	if r.cm_frame then
		st:add(f.send_cm, r.cm_frame):set_generated()
	end
	if r.thr then
		st:add(f.send_thr, r.thr):set_generated()
		st:append_text(string.format("%s Send of %d octets, threshold %d", r.dir, r.len, r.thr))
		if r.len > r.thr then
			warn(st, e.oversize, "send-too-large", string.format(
				"%s RDMA Send of %d octets exceeds the negotiated inline threshold of %d",
				r.dir, r.len, r.thr))
		end
	end
	if r.inv then
		if r.dir == "c2s" then
			warn(st, e.inv_c2s, "inv-from-client")
		elseif not r.rneg then
			warn(st, e.inv_not_r, "inv-not-negotiated")
		end
	end
end

-- The postdissector: MPA Private Data and the Send checks
local post = Proto("rpcrdma_cm_post", "RPC-over-RDMA v1 CM Private Data (RFC 8797), Sends and iWARP")
function post.dissector(tvb, pinfo, tree)
	if fe.mpa_pd() then
		mpa_private(pinfo, tree)
		return
	end
	local list
	if pinfo.visited then
		list = frame_send[pinfo.number]
	else
		if fe.rdmap_op() then
			list = check_iwarp_sends()
		else
			local r = check_send()
			list = r and { r }
		end
		frame_send[pinfo.number] = list
	end
	for _, r in ipairs(list or {}) do
		show_send(tvb, tree, r)
	end
end
register_postdissector(post)
