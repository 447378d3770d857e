-- The walker: hand-written Lua (kwire's wireshark/walker.lua) that
-- interprets the tables above. Nothing below depends on the specs.

local T_BOOL, T_INT8, T_INT16, T_UINT16, T_INT32, T_UINT32, T_INT64, T_FLOAT64, T_UUID =
  1, 2, 3, 4, 5, 6, 7, 8, 9
local T_STRING, T_BYTES, T_RECORDS, T_STRUCT, T_ARRAY = 10, 11, 12, 13, 14
local FIX = {1, 1, 2, 2, 4, 4, 8, 8, 16}
local MAX_FRAME = 104857600 -- as kwire pcap's --max-frame default

local sbyte, sfmt = string.byte, string.format

local p = Proto("kafka4", "Apache Kafka (kwire: " .. SPECS .. ")")

-- Error names as a value_string; codes without a name show their number.
local f_size = ProtoField.int32("kafka4.size", "Size", base.DEC, nil, nil, "Frame size prefix: number of bytes that follow")
local f_api = ProtoField.string("kafka4.api", "API", base.ASCII, "API name of this request or of the request a response answers")
local f_version = ProtoField.int16("kafka4.version", "API version", base.DEC, nil, nil, "API version of the request a response answers")
local f_request_in = ProtoField.framenum("kafka4.request_in", "Request in", base.NONE, frametype.REQUEST, nil, "Frame holding the request this response answers")
local f_response_in = ProtoField.framenum("kafka4.response_in", "Response in", base.NONE, frametype.RESPONSE, nil, "Frame holding the response to this request")
local f_latency = ProtoField.relative_time("kafka4.latency", "Latency", "Time from the request's last segment to the response's")
local f_error_code = ProtoField.int16("kafka4.error_code", "Error code", base.DEC, E, nil, "Every error code field of every API, named")
local f_length = ProtoField.int32("kafka4.length", "Length", base.DEC, nil, nil, "Length prefix of an array or records field as on the wire (compact: N+1, 0 null; classic: N, -1 null)")
local f_presence = ProtoField.int8("kafka4.presence", "Presence", base.DEC, nil, nil, "Nullable struct marker: -1 null, 1 present (uvarint 0/1 when tagged)")
local f_tagged = ProtoField.uint32("kafka4.tagged_fields", "Tagged fields", base.DEC, nil, nil, "Number of tagged fields in this struct")
local f_tag = ProtoField.uint32("kafka4.tag", "Tag", base.DEC, nil, nil, "Tag number of a tagged field")
local f_tag_size = ProtoField.uint32("kafka4.tag_size", "Tag size", base.DEC, nil, nil, "Bytes of the tagged value that follow")
local f_unknown_tag = ProtoField.bytes("kafka4.unknown_tag", "Unknown tagged field", base.NONE, "Tagged field unknown to the spec, kept as raw bytes")
local f_skipped = ProtoField.bytes("kafka4.skipped", "Skipped", base.NONE, "Bytes before the first plausible frame of a capture that starts mid-stream")
local f_undecoded = ProtoField.bytes("kafka4.undecoded", "Undecoded", base.NONE, "Bytes of a frame that could not be decoded")

local B = {} -- record batch and record fields
local function bf(name, label, ctor, blurb, ...)
  B[name] = ctor("kafka4." .. name, label, ...)
  return B[name]
end
bf("batch.base_offset", "baseOffset", ProtoField.int64, nil, base.DEC, nil, nil, "Offset of the first record")
bf("batch.batch_length", "batchLength", ProtoField.int32, nil, base.DEC, nil, nil, "Bytes after this field")
bf("batch.partition_leader_epoch", "partitionLeaderEpoch", ProtoField.int32, nil, base.DEC, nil, nil, "Leader epoch when appended (not covered by the CRC)")
bf("batch.magic", "magic", ProtoField.int8, nil, base.DEC, nil, nil, "Record format version")
bf("batch.crc", "crc", ProtoField.uint32, nil, base.HEX, nil, nil, "CRC-32C of attributes..end (v2), CRC-32 of magic..end (v0, v1)")
bf("batch.attributes", "attributes", ProtoField.int16, nil, base.DEC, nil, nil, "Compression (bits 0-2), timestamp type (3), transactional (4), control (5)")
bf("batch.last_offset_delta", "lastOffsetDelta", ProtoField.int32, nil, base.DEC, nil, nil, "Offset of the last record minus baseOffset")
bf("batch.base_timestamp", "baseTimestamp", ProtoField.int64, nil, base.DEC, nil, nil, "Timestamp of the first record (ms)")
bf("batch.max_timestamp", "maxTimestamp", ProtoField.int64, nil, base.DEC, nil, nil, "Largest timestamp in the batch (ms)")
bf("batch.producer_id", "producerId", ProtoField.int64, nil, base.DEC, nil, nil, "Idempotent/transactional producer id, -1 if none")
bf("batch.producer_epoch", "producerEpoch", ProtoField.int16, nil, base.DEC, nil, nil, "Producer epoch, -1 if none")
bf("batch.base_sequence", "baseSequence", ProtoField.int32, nil, base.DEC, nil, nil, "Sequence number of the first record, -1 if none")
bf("batch.records_count", "recordsCount", ProtoField.int32, nil, base.DEC, nil, nil, "Number of records")
bf("batch.compressed", "compressed", ProtoField.bytes, nil, base.NONE, "Compressed records, not decoded")
bf("record.length", "length", ProtoField.int32, nil, base.DEC, nil, nil, "Bytes after this field (varint)")
bf("record.attributes", "attributes", ProtoField.int8, nil, base.DEC, nil, nil, "Unused")
bf("record.timestamp_delta", "timestampDelta", ProtoField.int64, nil, base.DEC, nil, nil, "ms after baseTimestamp (varlong)")
bf("record.offset_delta", "offsetDelta", ProtoField.int32, nil, base.DEC, nil, nil, "Offset minus baseOffset (varint)")
bf("record.key", "key", ProtoField.bytes, nil, base.NONE, "Record key (varint length)")
bf("record.value", "value", ProtoField.bytes, nil, base.NONE, "Record value (varint length)")
bf("record.headers_count", "headersCount", ProtoField.int32, nil, base.DEC, nil, nil, "Number of record headers (varint)")
bf("record.header_key", "headerKey", ProtoField.bytes, nil, base.NONE, "Record header key (varint length)")
bf("record.header_value", "headerValue", ProtoField.bytes, nil, base.NONE, "Record header value (varint length)")
-- A control record's key and value, as package records decodes them: the
-- key's int16 version and type (named from CT), a transaction marker's
-- (ABORT, COMMIT) int16 version and int32 coordinatorEpoch; the value of
-- a KRaft control record is its message (CT), walked with its schema.
local CTN = {}
for t, x in pairs(CT) do CTN[t] = x[1] end
bf("record.key_length", "length", ProtoField.int32, nil, base.DEC, nil, nil, "Length of a control record's key (varint)")
bf("record.value_length", "length", ProtoField.int32, nil, base.DEC, nil, nil, "Length of a control record's value (varint)")
bf("control.version", "version", ProtoField.int16, nil, base.DEC, nil, nil, "Control record key version (0)")
bf("control.type", "type", ProtoField.int16, nil, base.DEC, CTN, nil, "Control record type")
bf("control.key_rest", "rest", ProtoField.bytes, nil, base.NONE, "Bytes after the control record key's type (Kafka ignores them)")
bf("control.undecoded", "undecoded", ProtoField.bytes, nil, base.NONE, "Control record key or value too short to decode")
bf("txn_marker.version", "version", ProtoField.int16, nil, base.DEC, nil, nil, "Transaction marker version (0)")
bf("txn_marker.coordinator_epoch", "coordinatorEpoch", ProtoField.int32, nil, base.DEC, nil, nil, "Epoch of the transaction coordinator that wrote the marker")
bf("txn_marker.rest", "rest", ProtoField.bytes, nil, base.NONE, "Bytes after the transaction marker (Kafka ignores them)")
bf("message.offset", "offset", ProtoField.int64, nil, base.DEC, nil, nil, "Offset of a legacy message (v0, v1)")
bf("message.message_size", "messageSize", ProtoField.int32, nil, base.DEC, nil, nil, "Bytes after this field")
bf("message.crc", "crc", ProtoField.uint32, nil, base.HEX, nil, nil, "CRC-32 of magic..end")
bf("message.magic", "magic", ProtoField.int8, nil, base.DEC, nil, nil, "Message format version (0 or 1)")
bf("message.attributes", "attributes", ProtoField.int8, nil, base.DEC, nil, nil, "Compression (bits 0-2), timestamp type (3)")
bf("message.timestamp", "timestamp", ProtoField.int64, nil, base.DEC, nil, nil, "Timestamp (ms, v1)")
bf("message.key", "key", ProtoField.bytes, nil, base.NONE, "Message key (int32 length)")
bf("message.value", "value", ProtoField.bytes, nil, base.NONE, "Message value (int32 length)")

local ef_malformed = ProtoExpert.new("kafka4.malformed", "Malformed Kafka frame", expert.group.MALFORMED, expert.severity.ERROR)
local ef_bad_crc = ProtoExpert.new("kafka4.bad_crc", "Record batch checksum is wrong", expert.group.CHECKSUM, expert.severity.ERROR)
local ef_error = ProtoExpert.new("kafka4.error", "Error code", expert.group.RESPONSE_CODE, expert.severity.NOTE)
local ef_undefined_error = ProtoExpert.new("kafka4.undefined_error", "Error code that Kafka does not define", expert.group.PROTOCOL, expert.severity.WARN)
local ef_no_request = ProtoExpert.new("kafka4.no_request", "Response to a request that is not in the capture", expert.group.SEQUENCE, expert.severity.WARN)
local ef_unknown_api = ProtoExpert.new("kafka4.unknown_api", "API or version that these specs do not define", expert.group.UNDECODED, expert.severity.WARN)
local ef_compressed = ProtoExpert.new("kafka4.compressed", "Compressed records not decoded", expert.group.UNDECODED, expert.severity.NOTE)
local ef_resync = ProtoExpert.new("kafka4.resync", "Capture starts mid-stream: bytes skipped to the first plausible frame", expert.group.SEQUENCE, expert.severity.NOTE)

-- Preferences (Edit → Preferences → Protocols → KAFKA4, or tshark -o
-- kafka4.records:FALSE): record detail is most of the work on a capture of
-- Produce and Fetch traffic.
p.prefs.records = Pref.bool("Dissect every record", true,
  "Show each record of a record batch (key, value, headers); off: the batch header and its CRC only, much faster on large captures")

local PF, ERR, LABEL = {}, {}, {}
local fields = {f_size, f_api, f_version, f_request_in, f_response_in, f_latency, f_error_code, f_length,
  f_presence, f_tagged, f_tag, f_tag_size, f_unknown_tag, f_skipped, f_undecoded}
for _, f in pairs(B) do fields[#fields + 1] = f end
local ctor = {
  [T_BOOL] = function(a, n, d) return ProtoField.bool(a, n, base.NONE, nil, nil, d) end,
  [T_INT8] = function(a, n, d) return ProtoField.int8(a, n, base.DEC, nil, nil, d) end,
  [T_INT16] = function(a, n, d, e) return ProtoField.int16(a, n, base.DEC, e and E or nil, nil, d) end,
  [T_UINT16] = function(a, n, d) return ProtoField.uint16(a, n, base.DEC, nil, nil, d) end,
  [T_INT32] = function(a, n, d) return ProtoField.int32(a, n, base.DEC, nil, nil, d) end,
  [T_UINT32] = function(a, n, d) return ProtoField.uint32(a, n, base.DEC, nil, nil, d) end,
  [T_INT64] = function(a, n, d) return ProtoField.int64(a, n, base.DEC, nil, nil, d) end,
  [T_FLOAT64] = function(a, n, d) return ProtoField.double(a, n, d) end,
  [T_UUID] = function(a, n, d) return ProtoField.guid(a, n, d) end,
  [T_STRING] = function(a, n, d) return ProtoField.string(a, n, base.UNICODE, d) end,
  [T_BYTES] = function(a, n, d) return ProtoField.bytes(a, n, base.NONE, d) end,
  [T_RECORDS] = function(a, n, d) return ProtoField.int32(a, n, base.DEC, nil, nil, d) end,
}
for i, f in ipairs(F) do
  local d = f[4] ~= "" and f[4] or nil
  PF[i] = ctor[f[3]]("kafka4." .. f[1], f[2], d, f[5] == 1)
  ERR[i] = f[5] == 1
  LABEL[i] = f[2]
  fields[#fields + 1] = PF[i]
end
p.fields = fields
p.experts = {ef_malformed, ef_bad_crc, ef_error, ef_undefined_error, ef_no_request, ef_unknown_api, ef_compressed, ef_resync}

-- Struct element names ("Topics/TopicData") split once, with a cache of
-- the element labels ("TopicData[3]"); scalar array elements get an entry
-- of their own.
local function prep(e)
  if e[1] ~= T_ARRAY then return end
  if e[4] > 0 then
    local a, b = e[5]:match("^(.-)/(.*)$")
    e[5], e[7], e[8] = a, b, {}
  else
    e[7] = {-e[4], e[2], 0, 0, e[5], 0}
  end
end
for _, s in ipairs(S) do
  for _, e in ipairs(s) do prep(e) end
  if s.t then
    for _, e in pairs(s.t) do prep(e) end
  end
end

-- Reading. A context c holds the frame: tvb, buf (its bytes as a string
-- from tvb offset base), lim (the tvb offset where reading must stop),
-- flex (the message version is flexible), errs (error codes seen, nil
-- while none is).
-- Reading past lim raises {offset, message}.
local function short(c, o, n, what)
  error({o, sfmt("%s: needs %d bytes at offset %d, %d left", what, n, o - c.base, c.lim - o)}, 0)
end
local function need(c, o, n, what)
  if o + n > c.lim then short(c, o, n, what) end
end
local function rd8(c, o)
  local b = sbyte(c.buf, o - c.base + 1)
  if b >= 128 then b = b - 256 end
  return b
end
local function rd16(c, o)
  local a, b = sbyte(c.buf, o - c.base + 1, o - c.base + 2)
  local v = a * 256 + b
  if v >= 32768 then v = v - 65536 end
  return v
end
local function rd32(c, o)
  local a, b, d, e = sbyte(c.buf, o - c.base + 1, o - c.base + 4)
  local v = ((a * 256 + b) * 256 + d) * 256 + e
  if v >= 2147483648 then v = v - 4294967296 end
  return v
end
local function rdu32(c, o)
  local a, b, d, e = sbyte(c.buf, o - c.base + 1, o - c.base + 4)
  return ((a * 256 + b) * 256 + d) * 256 + e
end
-- uvarint reads an unsigned varint of at most max bytes (5: 32 bits).
local function uvarint(c, o, what, max)
  local b = sbyte(c.buf, o - c.base + 1)
  if b and b < 128 and o < c.lim then return b, 1 end -- the usual case
  max = max or 5
  local v, m, i = 0, 1, 0
  while true do
    need(c, o + i, 1, what)
    b = sbyte(c.buf, o + i - c.base + 1)
    v = v + (b % 128) * m
    i = i + 1
    if b < 128 then return v, i end
    m = m * 128
    if i >= max then error({o, sfmt("%s: varint longer than %d bytes at offset %d", what, max, o - c.base)}, 0) end
  end
end
-- varint reads a zigzag varint (max 5) or varlong (max 10).
local function varint(c, o, what, max)
  local v, n = uvarint(c, o, what, max or 5)
  if v % 2 == 0 then return v / 2, n end
  return -(v + 1) / 2, n
end

local walk, records

-- field dissects one field of entry e at o and returns the offset after it.
-- tree is nil when Wireshark builds no tree (tshark without -V, -T, -Y):
-- then the field is read for its length and error codes only, with no
-- item, no TvbRange and no record detail; expert infos go to c.nt.
local function field(c, e, tree, o, tagged)
  local ty = e[1]
  local fx = FIX[ty]
  if fx then
    need(c, o, fx, e[5])
    local fi = e[2]
    local it
    if tree then
      local r = c.tvb(o, fx)
      it = tree:add(PF[fi], r)
      if ERR[fi] then tree:add(f_error_code, r):set_hidden() end
    end
    if ERR[fi] then
      local code = rd16(c, o)
      if code ~= 0 then
        local name = E[code]
        if not name then
          (it or c.nt):add_proto_expert_info(ef_undefined_error, sfmt("Error code %d is not one Kafka defines", code))
        else
          (it or c.nt):add_proto_expert_info(ef_error, name)
        end
        local es = c.errs
        if not es then
          es = {}
          c.errs = es
        end
        es[#es + 1] = name or sfmt("error(%d)", code)
      end
    end
    return o + fx
  end
  if ty == T_STRING or ty == T_BYTES or ty == T_RECORDS then
    local n, l
    if c.flex and e[6] == 0 then
      local u
      u, l = uvarint(c, o, e[5])
      n = u - 1
    elseif ty == T_STRING then
      need(c, o, 2, e[5])
      n, l = rd16(c, o), 2
    else
      need(c, o, 4, e[5])
      n, l = rd32(c, o), 4
    end
    if n < 0 then
      if e[3] == 0 then error({o, sfmt("%s: null, but the field is not nullable in this version (offset %d)", e[5], o - c.base)}, 0) end
      if tree then
        local tvb, it = c.tvb, nil
        if ty == T_STRING then it = tree:add(PF[e[2]], tvb(o, l), "")
        elseif ty == T_BYTES then it = tree:add(PF[e[2]], tvb(o, 0))
        else
          it = tree:add(PF[e[2]], tvb(o, l), -1)
          it:add(f_length, tvb(o, l), l == 4 and n or n + 1)
        end
        it:set_text(LABEL[e[2]] .. ": null")
      end
      return o + l
    end
    need(c, o + l, n, e[5])
    if tree then
      local tvb = c.tvb
      if ty == T_STRING then
        tree:add(PF[e[2]], tvb(o, l + n), n > 0 and tvb(o + l, n):string(ENC_UTF_8) or "")
      elseif ty == T_BYTES then
        -- Wireshark takes a bytes value from its range: the item spans the
        -- data, after the length prefix.
        tree:add(PF[e[2]], tvb(o + l, n))
      else
        local it = tree:add(PF[e[2]], tvb(o, l + n), n)
        it:add(f_length, tvb(o, l), l == 4 and n or n + 1)
        if n > 0 then records(c, it, o + l, n) end
      end
    end
    return o + l + n
  end
  if ty == T_STRUCT then
    local st
    if tree then st = tree:add(c.tvb(o, 0), e[5]) end
    local s = o
    if e[3] == 1 then
      local v, l, present
      if tagged then
        v, l = uvarint(c, o, e[5])
        present = v ~= 0
      else
        need(c, o, 1, e[5])
        v, l = rd8(c, o), 1
        present = v >= 0
      end
      if st then st:add(f_presence, c.tvb(o, l), v) end
      o = o + l
      if not present then
        if st then
          st:append_text(": null")
          st:set_len(o - s)
        end
        return o
      end
    end
    o = walk(c, e[4], st, o)
    if st then st:set_len(o - s) end
    return o
  end
  -- T_ARRAY
  local n, l, raw
  if c.flex then
    raw, l = uvarint(c, o, e[5])
    n = raw - 1
  else
    need(c, o, 4, e[5])
    raw, l = rd32(c, o), 4
    n = raw
  end
  local at
  if tree then
    local r = c.tvb(o, l)
    at = tree:add(r, e[5])
    at:add(f_length, r, raw)
  end
  if n < 0 then
    if e[3] == 0 then error({o, sfmt("%s: null, but the field is not nullable in this version (offset %d)", e[5], o - c.base)}, 0) end
    if at then at:append_text(": null") end
    return o + l
  end
  if n > c.lim - o - l then
    error({o, sfmt("%s: %d elements, but only %d bytes follow (offset %d)", e[5], n, c.lim - o - l, o - c.base)}, 0)
  end
  if at then at:append_text(n == 1 and " (1 element)" or sfmt(" (%d elements)", n)) end
  local s = o
  o = o + l
  local sub = e[4]
  if sub < 0 then
    local fe = e[7]
    for _ = 1, n do o = field(c, fe, at, o, false) end
  elseif at then
    local labels = e[8]
    for i = 0, n - 1 do
      local lb = labels[i]
      if not lb then
        lb = e[7] .. "[" .. i .. "]"
        labels[i] = lb
      end
      local et = at:add(c.tvb(o, 0), lb)
      local s1 = o
      o = walk(c, sub, et, o)
      et:set_len(o - s1)
    end
  else
    for _ = 1, n do o = walk(c, sub, nil, o) end
  end
  if at then at:set_len(o - s) end
  return o
end

-- tags dissects a tagged-field section at o (tree nil: reads it only).
local function tags(c, t, tree, o)
  local n, l = uvarint(c, o, "tagged fields")
  if tree then tree:add(f_tagged, c.tvb(o, l), n) end
  o = o + l
  for _ = 1, n do
    local s = o
    local tag, l1 = uvarint(c, o, "tag")
    o = o + l1
    local sz, l2 = uvarint(c, o, "tag size")
    local tt
    if tree then
      local tvb = c.tvb
      tt = tree:add(tvb(s, 0), "tag " .. tag)
      tt:add(f_tag, tvb(s, l1), tag)
      tt:add(f_tag_size, tvb(o, l2), sz)
    end
    o = o + l2
    need(c, o, sz, "tag " .. tag)
    local e = t and t[tag]
    if e then
      if tt then tt:append_text(": " .. e[5]) end
      local lim = c.lim
      c.lim = o + sz
      local e2 = field(c, e, tt, o, true)
      c.lim = lim
      if e2 ~= o + sz then
        error({o, sfmt("tag %d (%s): its size says %d bytes, the field takes %d (offset %d)", tag, e[5], sz, e2 - o, o - c.base)}, 0)
      end
    elseif tt then
      tt:append_text(" (unknown to the spec)")
      if sz > 0 then tt:add(f_unknown_tag, c.tvb(o, sz)) end
    end
    o = o + sz
    if tt then tt:set_len(o - s) end
  end
  return o
end

walk = function(c, si, tree, o)
  local s = S[si]
  for i = 1, #s do o = field(c, s[i], tree, o, false) end
  if c.flex then o = tags(c, s.t, tree, o) end
  return o
end

-- CRC-32C (Castagnoli, reflected 0x82F63B78) and CRC-32 (IEEE, 0xEDB88320).
-- Four bytes a step: the step of crc ~ w (w the next four bytes, little
-- endian) is linear, so it is A[low 16 bits] ~ B[high 16 bits], two
-- tables of 65536 built once. A byte at a time (table T) for the tail.
local band, bxor, rshift = bit32.band, bit32.bxor, bit32.rshift
local function crctables(poly)
  local t = {}
  for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
      if c % 2 == 1 then c = bxor(rshift(c, 1), poly) else c = rshift(c, 1) end
    end
    t[i] = c
  end
  -- step4 is four byte steps of the state x with zero input bytes.
  local function step4(x)
    for _ = 1, 4 do
      local lo = x % 256
      x = bxor(t[lo], (x - lo) / 256)
    end
    return x
  end
  local a, b = {}, {}
  for x = 0, 65535 do
    a[x] = step4(x)
    b[x] = step4(x * 65536)
  end
  return {t, a, b}
end
-- Both are built when first needed: a capture without a tree (tshark
-- without -V) never checks a CRC, and its start-up is spared the tables.
local CRC32C, CRC32
-- crc is the CRC of the bytes i..j (1-based, inclusive) of s.
local function crc(tabs, s, i, j)
  local t, a, b = tabs[1], tabs[2], tabs[3]
  local c = 0xFFFFFFFF
  local k = i
  while k + 7 <= j do
    local b0, b1, b2, b3, b4, b5, b6, b7 = sbyte(s, k, k + 7)
    local x = bxor(c, b0 + b1 * 256 + b2 * 65536 + b3 * 16777216)
    local lo = x % 65536
    x = bxor(a[lo], b[(x - lo) / 65536], b4 + b5 * 256 + b6 * 65536 + b7 * 16777216)
    lo = x % 65536
    c = bxor(a[lo], b[(x - lo) / 65536])
    k = k + 8
  end
  while k <= j do
    local lo = bxor(c, sbyte(s, k)) % 256
    c = bxor(t[lo], (c - c % 256) / 256)
    k = k + 1
  end
  return bxor(c, 0xFFFFFFFF)
end

local CODECS = {[1] = "gzip", [2] = "snappy", [3] = "lz4", [4] = "zstd"}

-- varbytes dissects a varint-length key, value or header of a record.
local function varbytes(c, tree, pf, o, what)
  local n, l = varint(c, o, what)
  if n < 0 then
    local it = tree:add(pf, c.tvb(o, 0))
    it:set_text(what .. ": null")
    return o + l
  end
  need(c, o + l, n, what)
  tree:add(pf, c.tvb(o + l, n))
  return o + l + n
end

local pf_rlength, pf_rattributes, pf_rtimestamp, pf_roffset, pf_rkey, pf_rvalue, pf_rheaders, pf_rhkey, pf_rhvalue =
  B["record.length"], B["record.attributes"], B["record.timestamp_delta"], B["record.offset_delta"], B["record.key"],
  B["record.value"], B["record.headers_count"], B["record.header_key"], B["record.header_value"]

local RLABEL = {} -- "Record[i]", made once

-- ctlKey dissects the key of a control record at o and returns the offset
-- after it and the control record type (-1: none, as when the key is
-- null, empty or too short).
local function ctlKey(c, tree, o)
  local n, l = varint(c, o, "key")
  local tvb = c.tvb
  if n < 0 then
    tree:add(pf_rkey, tvb(o, 0)):set_text("key: null")
    tree:add_proto_expert_info(ef_malformed, "A control record's key must hold its version and type")
    return o + l, -1
  end
  if n == 0 then
    tree:add(pf_rkey, tvb(o + l, 0))
    return o + l, -1
  end
  need(c, o + l, n, "key")
  local kt = tree:add(tvb(o, l + n), "key")
  kt:add(B["record.key_length"], tvb(o, l), n)
  local k = o + l
  if n < 4 then
    kt:add(B["control.undecoded"], tvb(k, n))
    kt:add_proto_expert_info(ef_malformed, sfmt("A control record key holds at least 4 bytes (version, type), this one %d", n))
    return k + n, -1
  end
  kt:add(B["control.version"], tvb(k, 2))
  local typ = rd16(c, k + 2)
  kt:add(B["control.type"], tvb(k + 2, 2))
  kt:append_text(": " .. (CTN[typ] or "UNKNOWN"))
  if n > 4 then kt:add(B["control.key_rest"], tvb(k + 4, n - 4)) end
  return k + n, typ
end

-- ctlValue dissects the value of a control record of type typ at o and
-- returns the offset after it: a transaction marker's fields, a KRaft
-- control record's message, or bytes for other types.
local function ctlValue(c, tree, o, typ)
  local ct = CT[typ]
  if not ct or (typ > 1 and ct[2] == 0) then return varbytes(c, tree, pf_rvalue, o, "value") end
  local n, l = varint(c, o, "value")
  if n <= 0 then return varbytes(c, tree, pf_rvalue, o, "value") end
  need(c, o + l, n, "value")
  local tvb = c.tvb
  local vt = tree:add(tvb(o, l + n), "value")
  vt:add(B["record.value_length"], tvb(o, l), n)
  local v, e = o + l, o + l + n
  if typ <= 1 then
    if n < 6 then
      vt:add(B["control.undecoded"], tvb(v, n))
      vt:add_proto_expert_info(ef_malformed, sfmt("A transaction marker value holds at least 6 bytes (version, coordinatorEpoch), this one %d", n))
      return e
    end
    vt:add(B["txn_marker.version"], tvb(v, 2))
    vt:add(B["txn_marker.coordinator_epoch"], tvb(v + 2, 4))
    if n > 6 then vt:add(B["txn_marker.rest"], tvb(v + 6, n - 6)) end
    return e
  end
  local mt = vt:add(tvb(v, n), ct[4])
  local lim, flex = c.lim, c.flex
  c.lim, c.flex = e, ct[3] == 1
  local ok, r = pcall(walk, c, ct[2], mt, v)
  c.lim, c.flex = lim, flex
  local at
  if ok then
    if r < e then
      at = r
      mt:add_proto_expert_info(ef_malformed, sfmt("%s: %d bytes after the message", ct[4], e - r))
    end
  else
    at = type(r) == "table" and r[1] or v
    mt:add_proto_expert_info(ef_malformed, sfmt("%s: %s", ct[4], type(r) == "table" and r[2] or tostring(r)))
  end
  if at and at < e then mt:add(f_undecoded, tvb(at, e - at)) end
  return e
end

-- recordsV2 dissects the records of an uncompressed batch from o to e.
-- With ctl, the batch is a control batch: keys and values are decoded
-- (ctlKey, ctlValue).
local function recordsV2(c, tree, o, e, count, ctl)
  local lim = c.lim
  local tvb = c.tvb
  c.lim = e
  for i = 0, count - 1 do
    if o >= e then break end
    local len, l = varint(c, o, "record length")
    need(c, o + l, len, "record")
    local re = o + l + len
    local rl = RLABEL[i]
    if not rl then
      rl = "Record[" .. i .. "]"
      RLABEL[i] = rl
    end
    local rt = tree:add(tvb(o, l + len), rl)
    rt:add(pf_rlength, tvb(o, l), len)
    o = o + l
    c.lim = re
    need(c, o, 1, "record attributes")
    rt:add(pf_rattributes, tvb(o, 1))
    o = o + 1
    local ts, l2 = varint(c, o, "timestampDelta", 10)
    rt:add(pf_rtimestamp, tvb(o, l2), Int64(ts))
    o = o + l2
    local od, l3 = varint(c, o, "offsetDelta")
    rt:add(pf_roffset, tvb(o, l3), od)
    o = o + l3
    if ctl then
      local typ
      o, typ = ctlKey(c, rt, o)
      o = ctlValue(c, rt, o, typ)
    else
      o = varbytes(c, rt, pf_rkey, o, "key")
      o = varbytes(c, rt, pf_rvalue, o, "value")
    end
    local hc, l4 = varint(c, o, "headersCount")
    rt:add(pf_rheaders, tvb(o, l4), hc)
    o = o + l4
    for h = 0, hc - 1 do
      o = varbytes(c, rt, pf_rhkey, o, "headerKey[" .. h .. "]")
      o = varbytes(c, rt, pf_rhvalue, o, "headerValue[" .. h .. "]")
    end
    c.lim = e
    o = re
  end
  c.lim = lim
end

-- batchV2 dissects a RecordBatch v2 of n bytes at o.
local function batchV2(c, tree, o, n)
  local tvb = c.tvb
  local bt = tree:add(tvb(o, n), "RecordBatch v2")
  local e = o + n
  bt:add(B["batch.base_offset"], tvb(o, 8))
  bt:add(B["batch.batch_length"], tvb(o + 8, 4))
  bt:add(B["batch.partition_leader_epoch"], tvb(o + 12, 4))
  bt:add(B["batch.magic"], tvb(o + 16, 1))
  if n < 61 then
    bt:add_proto_expert_info(ef_malformed, sfmt("RecordBatch v2 of %d bytes: a header takes 61", n))
    return
  end
  local want = rdu32(c, o + 17)
  CRC32C = CRC32C or crctables(0x82F63B78)
  local got = crc(CRC32C, c.buf, o + 21 - c.base + 1, e - c.base)
  local ci = bt:add(B["batch.crc"], tvb(o + 17, 4))
  if want == got then
    ci:append_text(" [correct]")
  else
    ci:append_text(sfmt(" [incorrect, should be 0x%08x]", got))
    ci:add_proto_expert_info(ef_bad_crc, sfmt("CRC-32C is 0x%08x, the batch says 0x%08x", got, want))
  end
  local attrs = rd16(c, o + 21)
  bt:add(B["batch.attributes"], tvb(o + 21, 2))
  bt:add(B["batch.last_offset_delta"], tvb(o + 23, 4))
  bt:add(B["batch.base_timestamp"], tvb(o + 27, 8))
  bt:add(B["batch.max_timestamp"], tvb(o + 35, 8))
  bt:add(B["batch.producer_id"], tvb(o + 43, 8))
  bt:add(B["batch.producer_epoch"], tvb(o + 51, 2))
  bt:add(B["batch.base_sequence"], tvb(o + 53, 4))
  bt:add(B["batch.records_count"], tvb(o + 57, 4))
  local count = rd32(c, o + 57)
  local codec = attrs % 8
  local ctl = band(attrs, 0x20) ~= 0
  if not p.prefs.records then
    bt:append_text(sfmt(", %d records (not dissected: preference kafka4.records is off)", count))
    return
  end
  if codec == 0 then
    recordsV2(c, bt, o + 61, e, count, ctl)
    return
  end
  local name = CODECS[codec] or sfmt("codec %d", codec)
  if codec == 1 and n > 61 and tvb(o + 61, n - 61).uncompress then
    local ok, dt = pcall(function() return tvb(o + 61, n - 61):uncompress("Decompressed records (gzip)") end)
    if ok and dt then
      local dc = {tvb = dt, buf = dt:raw(), base = 0, lim = dt:len(), flex = c.flex, errs = c.errs}
      local dtree = bt:add(tvb(o + 61, n - 61), sfmt("Records, gzip: %d bytes, decompressed to %d", n - 61, dt:len()))
      recordsV2(dc, dtree, 0, dt:len(), count, ctl)
      return
    end
  end
  local it = bt:add(B["batch.compressed"], tvb(o + 61, n - 61))
  it:set_text(sfmt("Records compressed with %s: %d bytes, not decoded", name, n - 61))
  it:add_proto_expert_info(ef_compressed, sfmt("Records compressed with %s (%d bytes): this dissector does not decompress %s", name, n - 61, name))
end

-- message dissects a legacy message (magic 0 or 1) of n bytes at o.
local function message(c, tree, o, n, magic)
  local tvb = c.tvb
  local mt = tree:add(tvb(o, n), "Message v" .. magic)
  local e = o + n
  mt:add(B["message.offset"], tvb(o, 8))
  mt:add(B["message.message_size"], tvb(o + 8, 4))
  local hl = magic == 1 and 22 or 14
  if n < 12 + hl + 8 then
    mt:add_proto_expert_info(ef_malformed, sfmt("Message v%d of %d bytes is too short", magic, n))
    return
  end
  local want = rdu32(c, o + 12)
  CRC32 = CRC32 or crctables(0xEDB88320) -- legacy messages are rare: built when first needed
  local got = crc(CRC32, c.buf, o + 16 - c.base + 1, e - c.base)
  local ci = mt:add(B["message.crc"], tvb(o + 12, 4))
  if want == got then
    ci:append_text(" [correct]")
  else
    ci:append_text(sfmt(" [incorrect, should be 0x%08x]", got))
    ci:add_proto_expert_info(ef_bad_crc, sfmt("CRC-32 is 0x%08x, the message says 0x%08x", got, want))
  end
  mt:add(B["message.magic"], tvb(o + 16, 1))
  mt:add(B["message.attributes"], tvb(o + 17, 1))
  local q = o + 18
  if magic == 1 then
    mt:add(B["message.timestamp"], tvb(q, 8))
    q = q + 8
  end
  local lim = c.lim
  c.lim = e
  for _, k in ipairs({"key", "value"}) do
    need(c, q, 4, k)
    local kn = rd32(c, q)
    if kn < 0 then
      local it = mt:add(B["message." .. k], tvb(q, 0))
      it:set_text(k .. ": null")
      q = q + 4
    else
      need(c, q + 4, kn, k)
      mt:add(B["message." .. k], tvb(q + 4, kn))
      q = q + 4 + kn
    end
  end
  c.lim = lim
  local codec = rd8(c, o + 17) % 8
  if codec ~= 0 then
    local name = CODECS[codec] or sfmt("codec %d", codec)
    mt:append_text(sfmt(" (value compressed with %s, not decoded)", name))
    mt:add_proto_expert_info(ef_compressed, sfmt("Message value compressed with %s: not decoded", name))
  end
end

-- records dissects the record batches of a records field: n bytes at o.
records = function(c, tree, o, n)
  local e = o + n
  local lim = c.lim
  c.lim = e
  while o < e do
    if e - o < 17 then
      tree:add(c.tvb(o, e - o), sfmt("Partial batch: %d bytes", e - o))
      break
    end
    local bl = rd32(c, o + 8)
    local magic = rd8(c, o + 16)
    if bl < 0 or o + 12 + bl > e then
      tree:add(c.tvb(o, e - o), sfmt("Partial batch: %d bytes of %d", e - o, 12 + bl))
      break
    end
    if magic == 2 then
      batchV2(c, tree, o, 12 + bl)
    elseif magic == 0 or magic == 1 then
      message(c, tree, o, 12 + bl, magic)
    else
      local it = tree:add(c.tvb(o, 12 + bl), sfmt("Batch of unknown magic %d: %d bytes", magic, 12 + bl))
      it:add_proto_expert_info(ef_malformed, sfmt("Record batch magic %d is not 0, 1 or 2", magic))
    end
    o = o + 12 + bl
  end
  c.lim = lim
end

-- Conversations: per TCP stream, the requests waiting for their response
-- (by correlation id), the server's port, and whether each direction is in
-- step with its frames. What the first pass learnt of each frame is kept
-- so that later passes (Wireshark's GUI, tshark -2) show the same, in as
-- few Lua objects as can hold it (the collector walks them all, every
-- cycle): answered[frame key of a request] is the packet number of its
-- response; memo[frame key of a response] is {api key, version, request's
-- packet number, latency in ns}, or false without its request; skipped[packet
-- number] the bytes skipped to the first plausible frame. A frame key is
-- the packet number and the frame's offset in the packet's data.
local streams, memo, answered, skipped = {}, {}, {}, {}
local function framekey(pinfo, off) return pinfo.number * 134217728 + off end

-- now is the capture time of the packet being dissected, in nanoseconds
-- since the capture's first packet: pinfo.rel_ts, a double, rounded to
-- the nanosecond (exact for captures up to 2^20 s, about 12 days, long).
-- No field extractor (Field.new) is used: one would make Wireshark build
-- a tree for every packet, which tshark without -V does not need.
local floor = math.floor
local function now(pinfo)
  local t = pinfo.rel_ts
  local secs = floor(t)
  return secs * 1e9 + floor((t - secs) * 1e9 + 0.5)
end

-- nstime is d nanoseconds as an NSTime, its seconds and nanoseconds of the
-- same sign (as Wireshark subtracts times).
local function nstime(d)
  local secs = d >= 0 and floor(d / 1e9) or -floor(-d / 1e9)
  return NSTime.new(secs, d - secs * 1e9)
end

-- stream is the state of the TCP connection of the packet, keyed by its
-- two ends (field extractors such as tcp.stream are empty in a pass
-- without a tree).
local function stream(pinfo)
  local a = tostring(pinfo.src) .. " " .. pinfo.src_port
  local b = tostring(pinfo.dst) .. " " .. pinfo.dst_port
  local id = a < b and a .. " " .. b or b .. " " .. a
  local st = streams[id]
  if not st then
    st = {reqs = {}, synced = {}}
    streams[id] = st
  end
  return st
end

-- plausible reports whether a frame may start at o (len bytes follow):
-- a request of an API and version the tables know, or a response to a
-- request waiting on this stream. nil: too few bytes to tell.
local function plausible(tvb, o, len, isreq, st)
  if len < 4 then return nil end
  local size = tvb(o, 4):int()
  if size < 4 or size > MAX_FRAME then return false end
  if isreq then
    if len < 12 then return nil end
    if size < 8 then return false end
    local a = A[tvb(o + 4, 2):int()]
    if not a or not a[2][tvb(o + 6, 2):int()] then return false end
    return true
  end
  if len < 8 then return nil end
  return st.reqs[tvb(o + 4, 4):int()] ~= nil
end

local function hexnote(n) return n == 1 and "1 byte" or sfmt("%d bytes", n) end

-- frame dissects one frame of size+4 bytes at off. With full false (no
-- tree: root is Wireshark's empty tree item) it reads the frame for the
-- Info column and the expert infos only, adding no item.
local function frame(tvb, pinfo, root, full, off, size, isreq, st, infos)
  local fe = off + 4 + size
  local t, x -- t: the frame's item (nil without a tree); x: where expert infos go
  if full then
    t = root:add(p, tvb(off, 4 + size))
    t:add(f_size, tvb(off, 4))
    x = t
  else
    x = root
  end
  local c = {tvb = tvb, buf = tvb:raw(off, 4 + size), base = off, lim = fe, flex = false, errs = nil, nt = root}
  local o = off + 4
  -- The message: its schema and flexibility, its name in the tree, its
  -- header's {schema, flexible} and name, a response's latency (s).
  local key, ver, av, info, corr, bs, bflex, bname, hs, hname, lat
  local mk = framekey(pinfo, off)
  if isreq then
    if size < 8 then
      x:add_proto_expert_info(ef_malformed, sfmt("Request of %d bytes: a header takes 8", size))
      infos[#infos + 1] = "Malformed request"
      return
    end
    key, ver, corr = rd16(c, o), rd16(c, o + 2), rd32(c, o + 4)
    local a = A[key]
    av = a and a[2][ver]
    local name = a and a[1] or sfmt("Unknown(%d)", key)
    if not pinfo.visited then
      st.reqs[corr] = {key, ver, pinfo.number, now(pinfo), mk}
    end
    info = sfmt("%s v%d request", name, ver)
    if t then
      t:add(f_api, name):set_generated()
      local resp = answered[mk]
      if resp then t:add(f_response_in, resp):set_generated() end
      t:append_text(", " .. info)
    end
    if not av then
      if t then
        local ht = t:add(tvb(o, 8), "RequestHeader")
        c.flex = false
        pcall(walk, c, HQ[1][1], ht, o)
      end
      x:add_proto_expert_info(ef_unknown_api, sfmt("%s version %d is not in these specs (%s)", name, ver, SPECS))
      if t and fe > o + 8 then t:add(f_undecoded, tvb(o + 8, fe - o - 8)) end
      infos[#infos + 1] = info .. " (not in these specs)"
      return
    end
    bs, bflex, hs, hname = av[1], av[5], HQ[av[3]], "RequestHeader"
    if t then bname = name .. "Request" end
  else
    if size < 4 then
      x:add_proto_expert_info(ef_malformed, sfmt("Response of %d bytes: a header takes 4", size))
      infos[#infos + 1] = "Malformed response"
      return
    end
    corr = rd32(c, o)
    local m = memo[mk]
    if not pinfo.visited then
      local r = st.reqs[corr]
      if r then
        st.reqs[corr] = nil
        m = {r[1], r[2], r[3], now(pinfo) - r[4]}
        answered[r[5]] = pinfo.number
      else
        m = false
      end
      memo[mk] = m
    end
    local mkey, mver = m and m[1], m and m[2]
    local a = mkey and A[mkey]
    av = a and a[2][mver]
    if not av then
      if t then
        local ht = t:add(tvb(o, 4), "ResponseHeader")
        c.flex = false
        pcall(walk, c, HS[0][1], ht, o)
        if fe > o + 4 then t:add(f_undecoded, tvb(o + 4, fe - o - 4)) end
      end
      if mkey then
        local name = a and a[1] or sfmt("Unknown(%d)", mkey)
        if t then
          t:add(f_request_in, m[3]):set_generated()
          t:append_text(sfmt(", %s v%d response", name, mver))
        end
        x:add_proto_expert_info(ef_unknown_api, sfmt("%s version %d is not in these specs (%s)", name, mver, SPECS))
        infos[#infos + 1] = sfmt("%s v%d response (not in these specs)", name, mver)
        return
      end
      x:add_proto_expert_info(ef_no_request, sfmt("Response with correlation id %d: its request is not in the capture, so its API and version are unknown", corr))
      if t then t:append_text(", response to a request not captured") end
      infos[#infos + 1] = sfmt("Response, correlation id %d (request not captured)", corr)
      return
    end
    key, ver = mkey, mver
    info = sfmt("%s v%d response", a[1], ver)
    if t then
      t:add(f_api, a[1]):set_generated()
      t:add(f_version, ver):set_generated()
      t:add(f_request_in, m[3]):set_generated()
      t:add(f_latency, nstime(m[4])):set_generated()
      t:append_text(", " .. info)
    end
    bs, bflex, hs, hname, lat = av[2], av[6], HS[av[4]], "ResponseHeader", m[4] / 1e9
    if t then bname = a[1] .. "Response" end
  end
  local ht = t and t:add(tvb(o, 0), hname)
  c.flex = hs[2] == 1
  local ok, err = pcall(function()
    local h0 = o
    o = walk(c, hs[1], ht, o)
    if ht then ht:set_len(o - h0) end
    c.flex = bflex == 1
    local bt = t and t:add(tvb(o, 0), bname)
    local b0 = o
    o = walk(c, bs, bt, o)
    if bt then bt:set_len(o - b0) end
  end)
  if not ok then
    local at, msg = 0, tostring(err)
    if type(err) == "table" then at, msg = err[1], err[2] end
    x:add_proto_expert_info(ef_malformed, msg)
    if t and at < fe and at >= off then t:add(f_undecoded, tvb(at, fe - at)) end
    infos[#infos + 1] = info .. " [malformed]"
    return
  end
  if o < fe then
    if t then t:add(f_undecoded, tvb(o, fe - o)) end
    x:add_proto_expert_info(ef_malformed, sfmt("%s after the body", hexnote(fe - o)))
  end
  if not isreq then
    local ms = sfmt("%.3f ms", lat * 1000)
    local es = c.errs
    if not es then
      info = sfmt("%s (%s, NONE)", info, ms)
    elseif #es == 1 then
      info = sfmt("%s (%s, %s)", info, ms, es[1])
    else
      info = sfmt("%s (%s, %d errors: %s…)", info, ms, #es, es[1])
    end
  end
  infos[#infos + 1] = info
end

-- isRequest says which way the segment goes: towards the server's port.
local function isRequest(tvb, pinfo, st)
  if not st.server then
    if pinfo.match_uint == pinfo.dst_port and pinfo.match_uint ~= pinfo.src_port then
      st.server = pinfo.dst_port
    elseif pinfo.match_uint == pinfo.src_port and pinfo.match_uint ~= pinfo.dst_port then
      st.server = pinfo.src_port
    elseif plausible(tvb, 0, tvb:len(), true, st) then
      st.server = pinfo.dst_port
    else
      st.server = pinfo.src_port
    end
  end
  return pinfo.dst_port == st.server
end

function p.dissector(tvb, pinfo, tree)
  local len = tvb:len()
  if len == 0 then return 0 end
  -- Wireshark passes an empty tree item (no text) when it builds no tree:
  -- tshark without -V, -T, -Y or a tap that needs the tree. Then only the
  -- columns and expert infos are made (full false).
  local full = tree.text ~= nil
  local st = stream(pinfo)
  local isreq = isRequest(tvb, pinfo, st)
  local dir = isreq and 1 or 2
  local off = 0
  local infos = {}
  -- A direction whose start was not seen in step: find the first
  -- plausible frame (the capture may start mid-stream).
  local skip = skipped[pinfo.number]
  if not pinfo.visited and not st.synced[dir] then
    skip = nil
    for o = 0, len - 1 do
      local ok = plausible(tvb, o, len - o, isreq, st)
      if ok == nil and o == 0 then
        pinfo.desegment_offset = 0
        pinfo.desegment_len = DESEGMENT_ONE_MORE_SEGMENT
        return len
      end
      if ok then skip = o break end
    end
    skip = skip or len
    if skip < len then st.synced[dir] = true end
    skipped[pinfo.number] = skip
  end
  if skip and skip > 0 then
    local it = tree
    if full then
      it = tree:add(p, tvb(0, skip))
      it:add(f_skipped, tvb(0, skip))
      it:append_text(sfmt(", %s skipped: the capture starts mid-stream", hexnote(skip)))
    end
    it:add_proto_expert_info(ef_resync, sfmt("%s skipped before the first plausible frame", hexnote(skip)))
    infos[#infos + 1] = sfmt("%s skipped (mid-stream)", hexnote(skip))
    off = skip
  end
  while off < len do
    local rem = len - off
    if rem < 4 then
      pinfo.desegment_offset = off
      pinfo.desegment_len = DESEGMENT_ONE_MORE_SEGMENT
      break
    end
    -- The size prefix read from a string of four bytes: no TvbRange (a
    -- userdata the collector must finalise) for it.
    local b0, b1, b2, b3 = sbyte(tvb:raw(off, 4), 1, 4)
    local size = ((b0 * 256 + b1) * 256 + b2) * 256 + b3
    if size >= 2147483648 then size = size - 4294967296 end
    if size < 0 or size > MAX_FRAME then
      local it = tree
      if full then
        it = tree:add(p, tvb(off, rem))
        it:add(f_size, tvb(off, 4))
      end
      it:add_proto_expert_info(ef_malformed, sfmt("Frame size %d is out of range (0..%d): the rest of this segment is skipped", size, MAX_FRAME))
      st.synced[dir] = false
      infos[#infos + 1] = "Bad frame size"
      break
    end
    if rem < 4 + size then
      pinfo.desegment_offset = off
      pinfo.desegment_len = 4 + size - rem
      break
    end
    frame(tvb, pinfo, tree, full, off, size, isreq, st, infos)
    off = off + 4 + size
  end
  -- The columns are set once, when a frame (or a problem) was seen: a
  -- segment held back for reassembly is shown by TCP.
  if #infos > 0 then
    local cols = pinfo.cols
    cols.protocol = "Kafka"
    cols.info = table.concat(infos, "; ")
  end
  return len
end

-- heuristic lets Wireshark's TLS dissector hand decrypted Kafka to this
-- dissector on any port: the first bytes must be a plausible request or a
-- response to a request seen.
local function heuristic(tvb, pinfo, tree)
  local st = stream(pinfo)
  if not st.server then
    local r = plausible(tvb, 0, tvb:len(), true, st)
    if not r then return false end
    st.server = pinfo.dst_port
  end
  p.dissector(tvb, pinfo, tree)
  return true
end

local tcp_port = DissectorTable.get("tcp.port")
tcp_port:add(9092, p)
tcp_port:add_for_decode_as(p)
p:register_heuristic("tls", heuristic)
local tls_port = DissectorTable.get("tls.port")
if tls_port then
  tls_port:add(9093, p)
  tls_port:add_for_decode_as(p)
end
