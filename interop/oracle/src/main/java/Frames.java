import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.SendBuilder;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.serialization.AbstractApiMessageSerde;

/**
 * Framing as Kafka does it: the header version ApiKeys chooses, the size
 * prefix, header and body that the network layer sends
 * ({@code SendBuilder.buildRequestSend}/{@code buildResponseSend}, the path
 * of every request and response), and the KRaft metadata record value frame
 * ({@code MetadataRecordSerde}: frame version, api key, version); the same
 * frame around kafka-storage's __remote_log_metadata records (its
 * RemoteLogMetadataSerde is an AbstractApiMessageSerde whose api keys are
 * the storage package's MetadataRecordType); and the int16 prefix of the
 * coordinators' record keys and values, as CoordinatorRecordSerde writes
 * them (MessageUtil.toCoordinatorTypePrefixedBytes for a key with an api
 * key, the record type; toVersionPrefixedBytes for a 3.9 key, whose
 * version is its record type, and for every value) and reads them (a key
 * at its record type, a value at its version).
 *
 * {@link #check} judges a frame kwire wrote; {@link #request},
 * {@link #response}, {@link #metadataRecord}, {@link #remoteLogMetadataRecord}
 * and {@link #coordinatorRecord} write Kafka's own.
 */
final class Frames {
    private Frames() {}

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final HexFormat HEX = HexFormat.of();

    /** The bytes a Send puts on the wire. */
    static byte[] bytes(Send send) throws IOException {
        Sink sink = new Sink();
        while (!send.completed()) {
            if (send.writeTo(sink) == 0 && !send.completed()) {
                throw new IllegalStateException("the Send wrote nothing and is not complete");
            }
        }
        return sink.out.toByteArray();
    }

    /** A channel that keeps what is written to it. */
    private static final class Sink implements TransferableChannel {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        @Override public boolean hasPendingWrites() { return false; }

        @Override public long transferFrom(FileChannel fc, long position, long count) {
            throw new UnsupportedOperationException("no file records here");
        }

        @Override public int write(ByteBuffer src) {
            int n = src.remaining();
            byte[] b = new byte[n];
            src.get(b);
            out.write(b, 0, n);
            return n;
        }

        @Override public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override public long write(ByteBuffer[] srcs) { return write(srcs, 0, srcs.length); }

        @Override public boolean isOpen() { return true; }

        @Override public void close() {}
    }

    private static final String[] CLIENT_IDS = {
        "", "kwire", "producer-1", "consumer-group-7", "\u00e9\u65e5\u672c\uD834\uDD1E", "a b\"c\\d", "\n\t",
    };

    /** A client id for a random request header: null sometimes, else a word or random letters. */
    static String clientId(java.util.Random r) {
        switch (r.nextInt(4)) {
            case 0: return r.nextInt(3) == 0 ? null : "";
            case 1: return CLIENT_IDS[r.nextInt(CLIENT_IDS.length)];
            default:
                StringBuilder sb = new StringBuilder();
                for (int i = r.nextInt(24); i > 0; i--) {
                    sb.append((char) ('!' + r.nextInt(94)));
                }
                return sb.toString();
        }
    }

    /** The request frame Kafka's client sends: size, header (its version chosen by ApiKeys), body. */
    static byte[] request(Message body, short v, String clientId, int correlationId) throws IOException {
        ApiKeys k = ApiKeys.forId(((ApiMessage) body).apiKey());
        return bytes(SendBuilder.buildRequestSend(new RequestHeader(k, v, clientId, correlationId), body));
    }

    /** The response frame Kafka's broker sends. */
    static byte[] response(Message body, short v, int correlationId) throws IOException {
        ApiKeys k = ApiKeys.forId(((ApiMessage) body).apiKey());
        return bytes(SendBuilder.buildResponseSend(new ResponseHeader(correlationId, k.responseHeaderVersion(v)), body, v));
    }

    /** A metadata record value as the KRaft log stores it (MetadataRecordSerde.write). */
    static byte[] metadataRecord(Message m, short v) {
        return framed(MetadataRecordSerde.INSTANCE, m, v);
    }

    /** The package of kafka-storage's generated remote-log-metadata records. */
    static final String REMOTE_LOG_METADATA_PACKAGE = "org.apache.kafka.server.log.remote.metadata.storage.generated";

    /**
     * The serde of __remote_log_metadata's values, as kafka-storage's
     * RemoteLogMetadataSerde builds it: the metadata record frame, with
     * the api keys of the storage package's MetadataRecordType.
     */
    static final AbstractApiMessageSerde REMOTE_LOG_METADATA_SERDE = new AbstractApiMessageSerde() {
        @Override
        public ApiMessage apiMessageFor(short apiKey) {
            try {
                Class<?> t = Class.forName(REMOTE_LOG_METADATA_PACKAGE + ".MetadataRecordType");
                Object type = t.getMethod("fromId", short.class).invoke(null, apiKey);
                return (ApiMessage) t.getMethod("newMetadataRecord").invoke(type);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("MetadataRecordType.fromId(" + apiKey + "): " + e, e);
            }
        }
    };

    /** A __remote_log_metadata record value (RemoteLogMetadataSerde's frame). */
    static byte[] remoteLogMetadataRecord(Message m, short v) {
        return framed(REMOTE_LOG_METADATA_SERDE, m, v);
    }

    /**
     * A coordinator record key or value as CoordinatorRecordSerde writes
     * it: a key with an api key (4.x coordinator-key) by
     * MessageUtil.toCoordinatorTypePrefixedBytes (its record type, then the
     * key at version 0); any other key (3.9, whose versions are its record
     * types) and every value by MessageUtil.toVersionPrefixedBytes(v, m).
     */
    static byte[] coordinatorRecord(Catalog.Entry e, Message m, short v) throws ReflectiveOperationException {
        if (e.type.equals("coordinator-key") && ((ApiMessage) m).apiKey() >= 0) {
            // Reflection: the method is new in Kafka 4.x, and one source builds against 3.9 too.
            return (byte[]) MessageUtil.class.getMethod("toCoordinatorTypePrefixedBytes", ApiMessage.class).invoke(null, m);
        }
        return MessageUtil.toVersionPrefixedBytes(v, m);
    }

    /** The int16 a coordinator record key or value of e begins with at version v. */
    static short coordinatorPrefix(Catalog.Entry e, Message m, short v) {
        if (e.type.equals("coordinator-key") && ((ApiMessage) m).apiKey() >= 0) {
            return ((ApiMessage) m).apiKey();
        }
        return v;
    }

    private static byte[] framed(AbstractApiMessageSerde serde, Message m, short v) {
        ApiMessageAndVersion amv = new ApiMessageAndVersion((ApiMessage) m, v);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = serde.recordSize(amv, cache);
        ByteBuffer buf = ByteBuffer.allocate(size);
        serde.write(amv, cache, new ByteBufferAccessor(buf));
        if (buf.position() != size) {
            throw new IllegalStateException("recordSize said " + size + " bytes, write wrote " + buf.position());
        }
        return buf.array();
    }

    /** Collects the failed checks of one frame and what went wrong. */
    private static final class Verdict {
        final ObjectNode node = NODES.objectNode();
        final ArrayNode failed = node.putArray("failed");
        final StringBuilder detail = new StringBuilder();

        void fail(String check, String what) {
            boolean seen = false;
            for (JsonNode f : failed) {
                seen |= f.asText().equals(check);
            }
            if (!seen) {
                failed.add(check);
            }
            if (detail.length() > 0) {
                detail.append("; ");
            }
            detail.append(what);
        }

        ObjectNode done() {
            if (detail.length() > 0) {
                node.put("detail", detail.toString());
            }
            return node;
        }
    }

    /** Fails frame_body when what Kafka read from the frame does not write the case's bare body. */
    private static void sameBody(Verdict out, Message fromFrame, short v, byte[] body) {
        try {
            if (!Arrays.equals(Kafka.write(fromFrame, v), body)) {
                out.fail("frame_body", "what Kafka reads from the frame writes other bytes than the bare body");
            }
        } catch (RuntimeException ex) {
            out.fail("frame_body", "writing what Kafka read from the frame: " + ex);
        }
    }

    /**
     * Judges kwire's frame of case c (type request, response or metadata):
     * kwire's header version against Kafka's, the size prefix, the header
     * Kafka reads, where the body starts, the body Kafka reads there, and
     * the bytes Kafka writes for the same header and body. bodyAlone is
     * what Kafka read from the case's bare body (null if it could not).
     */
    static ObjectNode check(Catalog.Entry e, JsonNode c, short v, Message bodyAlone) throws Exception {
        byte[] f = HEX.parseHex(c.path("frame").asText());
        byte[] body = HEX.parseHex(c.path("hex").asText());
        Verdict out = new Verdict();
        short apiKey = ((ApiMessage) e.cls.getConstructor().newInstance()).apiKey();
        Message fromFrame = null;
        byte[] kafka;
        if (e.type.startsWith("coordinator-")) {
            // The int16 prefix, read as CoordinatorRecordSerde.deserialize
            // does: the key read at its record type, the value at its version.
            Message proto = e.cls.getConstructor().newInstance();
            short want = coordinatorPrefix(e, proto, v);
            ByteBuffer buf = ByteBuffer.wrap(f);
            if (f.length < 2) {
                out.fail("frame_header", "no int16 prefix: " + f.length + " bytes");
                return out.done();
            }
            short p = buf.getShort();
            if (p != want) {
                out.fail("frame_header", "prefix: kwire wrote " + p + ", Kafka writes " + want);
            }
            out.node.put("body_offset", 2);
            out.node.put("kafka_body_offset", 2);
            try {
                fromFrame = e.readCtor.newInstance(new ByteBufferAccessor(buf), p);
                if (buf.hasRemaining()) {
                    out.fail("frame_body", buf.remaining() + " bytes left after the " + (e.type.endsWith("key") ? "key" : "value"));
                }
                sameBody(out, fromFrame, v, body);
                if (bodyAlone != null && !fromFrame.equals(bodyAlone)) {
                    out.fail("frame_body", "the message after the prefix does not equal the message read from the bare body");
                }
            } catch (Exception | LinkageError ex) {
                out.fail("frame_body", "reading the message after the prefix: " + Oracle.describe("read", ex));
            }
            Message m = bodyAlone != null ? bodyAlone : fromFrame;
            if (m == null) {
                return out.done();
            }
            kafka = coordinatorRecord(e, m, v);
        } else if (e.type.equals("metadata") || e.type.equals("remote-log-metadata")) {
            // The record value frame: uvarint frame version, api key, version, then the record.
            AbstractApiMessageSerde serde = e.type.equals("metadata") ? MetadataRecordSerde.INSTANCE : REMOTE_LOG_METADATA_SERDE;
            ByteBuffer buf = ByteBuffer.wrap(f);
            ApiMessageAndVersion amv = null;
            try {
                amv = serde.read(new ByteBufferAccessor(buf), f.length);
            } catch (Exception | LinkageError ex) {
                out.fail("frame_header", serde.getClass().getSimpleName() + ".read: " + ex);
            }
            if (amv != null) {
                fromFrame = amv.message();
                if (amv.message().apiKey() != apiKey) {
                    out.fail("frame_header", "api key: Kafka read " + amv.message().apiKey() + " (" + amv.message().getClass().getSimpleName() + "), want " + apiKey);
                }
                if (amv.version() != v) {
                    out.fail("frame_header", "version: Kafka read " + amv.version() + ", want " + v);
                }
                if (buf.hasRemaining()) {
                    out.fail("frame_body", buf.remaining() + " bytes left after the record");
                }
                sameBody(out, fromFrame, v, body);
                if (bodyAlone != null && !fromFrame.equals(bodyAlone)) {
                    out.fail("frame_body", "the record in the frame does not equal the record read from the bare body");
                }
            }
            Message m = bodyAlone != null ? bodyAlone : fromFrame;
            if (m == null) {
                return out.done();
            }
            kafka = framed(serde, m, v);
            int headerEnd = kafka.length - Kafka.write(m, v).length;
            out.node.put("body_offset", headerEnd);
            out.node.put("kafka_body_offset", headerEnd);
        } else {
            boolean req = e.type.equals("request");
            ApiKeys k = ApiKeys.forId(apiKey);
            short hv = req ? k.requestHeaderVersion(v) : k.responseHeaderVersion(v);
            out.node.put("header_version", hv);
            short kwireHv = (short) c.path("header_version").asInt(-1);
            if (hv != kwireHv) {
                out.fail("header_version", (req ? "request" : "response") + " header version: Kafka v" + hv + ", kwire v" + kwireHv);
            }
            int corr = c.path("correlation_id").asInt();
            String clientId = c.path("client_id").asText("");
            ByteBuffer buf = ByteBuffer.wrap(f);
            int size = f.length >= 4 ? buf.getInt() : -1;
            if (size != f.length - 4) {
                out.fail("frame_size", "size prefix " + size + ", but " + (f.length - 4) + " bytes follow it");
            }
            try {
                if (req) {
                    RequestHeader h = RequestHeader.parse(buf);
                    if (h.apiKey().id != apiKey || h.apiVersion() != v) {
                        out.fail("frame_header", "api key/version: Kafka read " + h.apiKey().id + "/" + h.apiVersion() + ", want " + apiKey + "/" + v);
                    }
                    if (h.headerVersion() != hv) {
                        out.fail("frame_header", "header version: Kafka parsed v" + h.headerVersion());
                    }
                    if (h.correlationId() != corr) {
                        out.fail("frame_header", "correlation id: Kafka " + h.correlationId() + ", kwire " + corr);
                    }
                    if (hv >= 1 && !Objects.equals(h.clientId(), clientId)) {
                        out.fail("frame_header", "client id: Kafka \"" + h.clientId() + "\", kwire \"" + clientId + "\"");
                    }
                } else {
                    ResponseHeader h = ResponseHeader.parse(buf, hv);
                    if (h.correlationId() != corr) {
                        out.fail("frame_header", "correlation id: Kafka " + h.correlationId() + ", kwire " + corr);
                    }
                }
                int off = buf.position();
                out.node.put("body_offset", off);
                if (off != c.path("body_offset").asInt()) {
                    out.fail("body_offset", "the body starts at offset " + off + " for Kafka, " + c.path("body_offset").asInt() + " for kwire");
                }
                try {
                    fromFrame = e.readCtor.newInstance(new ByteBufferAccessor(buf), v);
                    if (buf.hasRemaining()) {
                        out.fail("frame_body", buf.remaining() + " bytes left after the body");
                    }
                    sameBody(out, fromFrame, v, body);
                } catch (Exception | LinkageError ex) {
                    out.fail("frame_body", "reading the body in the frame: " + Oracle.describe("read", ex));
                }
            } catch (RuntimeException ex) {
                out.fail("frame_header", "parsing the header: " + ex);
            }
            Message m = bodyAlone != null ? bodyAlone : fromFrame;
            if (m == null) {
                return out.done();
            }
            kafka = req ? request(m, v, clientId, corr) : response(m, v, corr);
            int headerEnd = kafka.length - Kafka.write(m, v).length;
            if (!out.node.has("body_offset")) {
                out.node.put("body_offset", headerEnd);
            }
            out.node.put("kafka_body_offset", headerEnd);
        }
        if (!Arrays.equals(kafka, f)) {
            out.fail("frame_bytes", "Kafka writes other bytes for the same header and body");
            out.node.put("kafka_frame_hex", HEX.formatHex(kafka));
        }
        return out.done();
    }
}
