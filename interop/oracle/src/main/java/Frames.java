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
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.SendBuilder;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;

/**
 * Framing as Kafka does it: the header version ApiKeys chooses, the size
 * prefix, header and body that the network layer sends
 * ({@code SendBuilder.buildRequestSend}/{@code buildResponseSend}, the path
 * of every request and response), and the KRaft metadata record value frame
 * ({@code MetadataRecordSerde}: frame version, api key, version).
 *
 * {@link #check} judges a frame kwire wrote; {@link #request},
 * {@link #response} and {@link #metadataRecord} write Kafka's own.
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
        ApiMessageAndVersion amv = new ApiMessageAndVersion((ApiMessage) m, v);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = MetadataRecordSerde.INSTANCE.recordSize(amv, cache);
        ByteBuffer buf = ByteBuffer.allocate(size);
        MetadataRecordSerde.INSTANCE.write(amv, cache, new ByteBufferAccessor(buf));
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
        if (e.type.equals("metadata")) {
            // The record value frame: uvarint frame version, api key, version, then the record.
            ByteBuffer buf = ByteBuffer.wrap(f);
            ApiMessageAndVersion amv = null;
            try {
                amv = MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(buf), f.length);
            } catch (Exception | LinkageError ex) {
                out.fail("frame_header", "MetadataRecordSerde.read: " + ex);
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
            kafka = metadataRecord(m, v);
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
