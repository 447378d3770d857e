import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.protocol.Message;

/**
 * What Kafka's record classes make of the records fields of a message: for
 * each records field holding bytes, the batches that
 * {@code MemoryRecords.batches()} yields, whether each passes
 * {@code ensureValid()} (the CRC-32C), and the records each holds.
 *
 * The summary is a JSON object keyed by the field's path in the generated
 * classes ({@code topicData[0].partitionData[1].records}: Java field names,
 * which are the spec names with a lower-case first letter, and element
 * indexes). kwire sends the same summary of its own decoding; the two are
 * compared key by key, numbers by value. The record classes moved from
 * {@code org.apache.kafka.common.record} (3.x) to {@code ...record.internal}
 * (4.x), so they are called by reflection.
 */
final class Batches {
    private Batches() {}

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final HexFormat HEX = HexFormat.of();

    private static final Class<?> RECORD_BATCH = Kafka.firstClass(
            "org.apache.kafka.common.record.internal.RecordBatch",
            "org.apache.kafka.common.record.RecordBatch");
    private static final Class<?> RECORD = Kafka.firstClass(
            "org.apache.kafka.common.record.internal.Record",
            "org.apache.kafka.common.record.Record");

    private static final Method RECORDS_SIZE = method(Kafka.BASE_RECORDS, "sizeInBytes");
    private static final Method BATCHES = method(Kafka.MEMORY_RECORDS, "batches");
    private static final Method B_SIZE = method(RECORD_BATCH, "sizeInBytes");
    private static final Method B_MAGIC = method(RECORD_BATCH, "magic");
    private static final Method B_BASE_OFFSET = method(RECORD_BATCH, "baseOffset");
    private static final Method B_LAST_OFFSET = method(RECORD_BATCH, "lastOffset");
    private static final Method B_LEADER_EPOCH = method(RECORD_BATCH, "partitionLeaderEpoch");
    private static final Method B_CHECKSUM = method(RECORD_BATCH, "checksum");
    private static final Method B_ENSURE_VALID = method(RECORD_BATCH, "ensureValid");
    private static final Method B_COMPRESSION = method(RECORD_BATCH, "compressionType");
    private static final Method B_TIMESTAMP_TYPE = method(RECORD_BATCH, "timestampType");
    private static final Method B_TRANSACTIONAL = method(RECORD_BATCH, "isTransactional");
    private static final Method B_CONTROL = method(RECORD_BATCH, "isControlBatch");
    private static final Method B_DELETE_HORIZON = method(RECORD_BATCH, "deleteHorizonMs");
    private static final Method B_MAX_TIMESTAMP = method(RECORD_BATCH, "maxTimestamp");
    private static final Method B_PRODUCER_ID = method(RECORD_BATCH, "producerId");
    private static final Method B_PRODUCER_EPOCH = method(RECORD_BATCH, "producerEpoch");
    private static final Method B_BASE_SEQUENCE = method(RECORD_BATCH, "baseSequence");
    private static final Method B_COUNT = method(RECORD_BATCH, "countOrNull");
    private static final Method R_SIZE = method(RECORD, "sizeInBytes");
    private static final Method R_OFFSET = method(RECORD, "offset");
    private static final Method R_TIMESTAMP = method(RECORD, "timestamp");
    private static final Method R_KEY = method(RECORD, "key");
    private static final Method R_VALUE = method(RECORD, "value");
    private static final Method R_HEADERS = method(RECORD, "headers");

    private static Method method(Class<?> c, String name) {
        try {
            return c.getMethod(name);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(c.getName() + " has no method " + name + "()", e);
        }
    }

    /** A summary and what it found on the way. */
    static final class Summary {
        final ObjectNode doc = NODES.objectNode();
        int batches;
        /** Batches whose ensureValid() threw: {path of the crc, Kafka's message}. */
        final List<String[]> rejected = new ArrayList<>();
    }

    /** The summary of every records field of m that holds bytes. */
    static Summary summarize(Message m) throws ReflectiveOperationException {
        Summary s = new Summary();
        if (hasRecords(m.getClass())) {
            walk(m, "", s);
        }
        return s;
    }

    private static final Map<Class<?>, Boolean> HAS_RECORDS = new HashMap<>();

    /** Whether cls, or a struct reachable from it, has a records field. */
    static boolean hasRecords(Class<?> cls) {
        Boolean known = HAS_RECORDS.get(cls);
        if (known != null) {
            return known;
        }
        HAS_RECORDS.put(cls, false); // a struct being looked at (recursive structs)
        boolean found = false;
        for (Field f : Kafka.dataFields(cls)) {
            Type t = f.getGenericType();
            Type elem = Kafka.elementType(t);
            if (Kafka.isRecords(t)
                    || (Kafka.isMessage(t) && hasRecords((Class<?>) t))
                    || (elem != null && Kafka.isMessage(elem) && hasRecords((Class<?>) elem))) {
                found = true;
            }
        }
        HAS_RECORDS.put(cls, found);
        return found;
    }

    private static void walk(Object obj, String path, Summary s) throws ReflectiveOperationException {
        for (Field f : Kafka.dataFields(obj.getClass())) {
            Object val = f.get(obj);
            if (val == null) {
                continue;
            }
            Type t = f.getGenericType();
            String p = path.isEmpty() ? f.getName() : path + "." + f.getName();
            if (Kafka.isRecords(t)) {
                int size = (Integer) RECORDS_SIZE.invoke(val);
                if (size > 0) {
                    s.doc.set(p, records(val, size, p, s));
                }
            } else if (Kafka.isMessage(t)) {
                if (hasRecords(val.getClass())) {
                    walk(val, p, s);
                }
            } else {
                Type elem = Kafka.elementType(t);
                if (elem != null && Kafka.isMessage(elem) && hasRecords((Class<?>) elem)) {
                    int i = 0;
                    for (Object e : (Collection<?>) val) {
                        walk(e, p + "[" + i++ + "]", s);
                    }
                }
            }
        }
    }

    private static String describe(Throwable t) {
        while (t instanceof InvocationTargetException && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    private static ObjectNode records(Object recs, int size, String path, Summary s) throws ReflectiveOperationException {
        ObjectNode r = NODES.objectNode();
        r.put("sizeInBytes", size);
        ArrayNode batches = r.putArray("batches");
        long covered = 0;
        try {
            int i = 0;
            for (Object b : (Iterable<?>) BATCHES.invoke(recs)) {
                covered += (Integer) B_SIZE.invoke(b);
                batch(b, batches.addObject(), path + ".batches[" + i++ + "]", s);
                s.batches++;
            }
        } catch (InvocationTargetException | RuntimeException e) {
            r.put("error", describe(e));
        }
        r.put("rest", size - covered);
        return r;
    }

    private static long id(Object enumWithId) throws ReflectiveOperationException {
        return ((Number) enumWithId.getClass().getField("id").get(enumWithId)).longValue();
    }

    private static void batch(Object b, ObjectNode n, String path, Summary s) throws ReflectiveOperationException {
        byte magic = (Byte) B_MAGIC.invoke(b);
        n.put("size", (Integer) B_SIZE.invoke(b));
        n.put("magic", magic);
        if (magic < 2) {
            return; // legacy message sets: kwire shows their header only
        }
        long base = (Long) B_BASE_OFFSET.invoke(b);
        n.put("baseOffset", base);
        n.put("partitionLeaderEpoch", (Integer) B_LEADER_EPOCH.invoke(b));
        n.put("crc", (Long) B_CHECKSUM.invoke(b));
        boolean valid = true;
        try {
            B_ENSURE_VALID.invoke(b);
        } catch (InvocationTargetException e) {
            valid = false;
            s.rejected.add(new String[] {path + ".crc", describe(e)});
        }
        n.put("crcValid", valid);
        long compression = id(B_COMPRESSION.invoke(b));
        n.put("compression", compression);
        n.put("timestampType", id(B_TIMESTAMP_TYPE.invoke(b)));
        n.put("transactional", (Boolean) B_TRANSACTIONAL.invoke(b));
        n.put("control", (Boolean) B_CONTROL.invoke(b));
        n.put("deleteHorizon", ((OptionalLong) B_DELETE_HORIZON.invoke(b)).isPresent());
        n.put("lastOffsetDelta", (int) ((Long) B_LAST_OFFSET.invoke(b) - base));
        n.put("baseTimestamp", (Long) b.getClass().getMethod("baseTimestamp").invoke(b));
        n.put("maxTimestamp", (Long) B_MAX_TIMESTAMP.invoke(b));
        n.put("producerId", (Long) B_PRODUCER_ID.invoke(b));
        n.put("producerEpoch", (Short) B_PRODUCER_EPOCH.invoke(b));
        n.put("baseSequence", (Integer) B_BASE_SEQUENCE.invoke(b));
        Integer count = (Integer) B_COUNT.invoke(b);
        if (count != null) {
            n.put("recordsCount", count);
        }
        if (compression != 0) {
            return; // compressed: kwire does not decode the records (nor can this harness: no codecs)
        }
        ArrayNode recs = n.putArray("records");
        try {
            for (Iterator<?> it = ((Iterable<?>) b).iterator(); it.hasNext(); ) {
                Object r = it.next();
                ObjectNode rn = recs.addObject();
                rn.put("size", (Integer) R_SIZE.invoke(r));
                rn.put("offsetDelta", (int) ((Long) R_OFFSET.invoke(r) - base));
                rn.put("timestamp", (Long) R_TIMESTAMP.invoke(r));
                rn.put("key", hex((ByteBuffer) R_KEY.invoke(r)));
                rn.put("value", hex((ByteBuffer) R_VALUE.invoke(r)));
                ArrayNode hs = rn.putArray("headers");
                for (Header h : (Header[]) R_HEADERS.invoke(r)) {
                    ObjectNode hn = hs.addObject();
                    hn.put("key", HEX.formatHex(h.key().getBytes(StandardCharsets.UTF_8)));
                    hn.put("value", h.value() == null ? null : HEX.formatHex(h.value()));
                }
            }
        } catch (InvocationTargetException | RuntimeException e) {
            n.remove("records");
            n.put("recordsError", describe(e));
        }
    }

    private static String hex(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return HEX.formatHex(a);
    }

    /**
     * The verdict on the records of a kwire case: Kafka's summary of the
     * object it read against kwire's (absent: no records with bytes). It
     * fails on the first difference, and on a batch kwire wrote that
     * Kafka's ensureValid() rejects even where kwire's decoder agrees.
     */
    static ObjectNode judge(Message kafkaObj, JsonNode kwire) throws ReflectiveOperationException {
        Summary s = summarize(kafkaObj);
        ObjectNode out = NODES.objectNode();
        out.put("batches", s.batches);
        String[] d = diff(s.doc, kwire == null || kwire.isNull() ? NODES.objectNode() : kwire, "");
        if (d == null && !s.rejected.isEmpty()) {
            String[] r = s.rejected.get(0);
            d = new String[] {r[0], r[0] + ": Kafka rejects the batch kwire wrote: " + r[1]};
        }
        if (d != null) {
            out.put("path", d[0]);
            out.put("diff", d[1]);
            out.set("kafka", s.doc);
        }
        return out;
    }

    /** The first difference of two summaries: {path, detail}, or null. */
    static String[] diff(JsonNode kafka, JsonNode kwire, String path) {
        if (kafka.isObject() && kwire.isObject()) {
            TreeSet<String> keys = new TreeSet<>();
            kafka.fieldNames().forEachRemaining(keys::add);
            kwire.fieldNames().forEachRemaining(keys::add);
            for (String k : keys) {
                String p = path.isEmpty() ? k : path + "." + k;
                JsonNode a = kafka.get(k), b = kwire.get(k);
                if (b == null) {
                    return new String[] {p, p + ": kwire has no such key (Kafka: " + a + ")"};
                }
                if (a == null) {
                    return new String[] {p, p + ": Kafka has no such key (kwire: " + b + ")"};
                }
                String[] d = diff(a, b, p);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (kafka.isArray() && kwire.isArray()) {
            if (kafka.size() != kwire.size()) {
                return new String[] {path, path + ": Kafka has " + kafka.size() + " elements, kwire " + kwire.size()};
            }
            for (int i = 0; i < kafka.size(); i++) {
                String[] d = diff(kafka.get(i), kwire.get(i), path + "[" + i + "]");
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        boolean same = kafka.isIntegralNumber() && kwire.isIntegralNumber()
                ? kafka.bigIntegerValue().equals(kwire.bigIntegerValue())
                : kafka.equals(kwire);
        return same ? null : new String[] {path, path + ": Kafka " + kafka + ", kwire " + kwire};
    }
}
