import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HexFormat;
import java.util.Random;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;

/**
 * kwire's oracle: Kafka's own generated message classes and JsonConverters
 * judge bytes and JSON written by kwire, and write instances of their own
 * for kwire to decode. One JVM run handles every case of one release.
 *
 * <pre>
 * Oracle [check] CASES.jsonl RESULTS.jsonl       judge kwire's cases
 * Oracle generate OUT.jsonl SEED PER_MESSAGE      write Kafka's own instances
 * Oracle run CASES RESULTS OUT SEED PER_MESSAGE   check, then generate
 * Oracle list                                     the message classes found
 * </pre>
 *
 * A case is {"id","message","type","version","hex","json"}: the body bytes
 * (no size prefix, header or record frame) and kwire's JSON of them. For
 * each case the result line says whether (a) Kafka reads the bytes and
 * consumes every one, (b) writes them back identically, (c) its converter
 * writes the same JSON as kwire (semantically; records and unknown tags are
 * limits, see JsonCompare), and (d) its converter reads kwire's JSON back
 * into the same bytes. A request, response or metadata record case also
 * carries kwire's "frame" ("header_version", "correlation_id", "client_id",
 * "body_offset"): (e) "frame" is the verdict of {@link Frames#check}. A
 * case whose class has records fields may carry kwire's "records" summary:
 * (f) "records" is the verdict of {@link Batches#judge}. One case's failure
 * never stops the run.
 *
 * Each generated instance carries Kafka's frame of it and, for classes
 * with records fields, Kafka's summary of its record batches.
 */
public final class Oracle {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();
    private static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        PrintStream err = System.err;
        if (args.length == 3 && args[0].equals("check")) {
            check(catalog(), args[1], args[2]);
        } else if (args.length == 2 && !args[0].equals("generate")) {
            check(catalog(), args[0], args[1]);
        } else if (args.length == 4 && args[0].equals("generate")) {
            Catalog cat = catalog();
            generate(cat, args[1], Long.parseLong(args[2]), Integer.parseInt(args[3]));
        } else if (args.length == 6 && args[0].equals("run")) {
            // Both, in one JVM: what the Go driver runs once per release.
            Catalog cat = catalog();
            check(cat, args[1], args[2]);
            generate(cat, args[3], Long.parseLong(args[4]), Integer.parseInt(args[5]));
        } else if (args.length == 1 && args[0].equals("list")) {
            for (Catalog.Entry e : catalog().byClass.values()) {
                System.out.println(e.type + " " + e.messageName + " " + e.lowest + "-" + e.highest + " " + e.cls.getName());
            }
        } else {
            err.println("usage: Oracle [check] CASES.jsonl RESULTS.jsonl | generate OUT.jsonl SEED PER_MESSAGE"
                    + " | run CASES.jsonl RESULTS.jsonl OUT.jsonl SEED PER_MESSAGE | list");
            System.exit(2);
        }
    }

    private static Catalog catalog() throws IOException {
        Catalog cat = Catalog.scan();
        for (String p : cat.problems) {
            System.err.println("oracle: " + p);
        }
        if (cat.byClass.isEmpty()) {
            throw new IllegalStateException("no generated Kafka message classes on the class path");
        }
        return cat;
    }

    /** The message of an exception, its cause's where reflection wrapped it. */
    static String describe(String stage, Throwable t) {
        while ((t instanceof InvocationTargetException || t instanceof ExceptionInInitializerError) && t.getCause() != null) {
            t = t.getCause();
        }
        return stage + ": " + t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    private static void check(Catalog cat, String in, String out) throws IOException {
        int n = 0, bad = 0;
        try (BufferedReader r = Files.newBufferedReader(Paths.get(in), StandardCharsets.UTF_8);
             BufferedWriter w = Files.newBufferedWriter(Paths.get(out), StandardCharsets.UTF_8)) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                ObjectNode res = JSON.createObjectNode();
                try {
                    checkOne(cat, JSON.readTree(line), res);
                } catch (Exception | LinkageError e) {
                    res.put("error", describe("case", e));
                }
                if (res.hasNonNull("error")) {
                    bad++;
                }
                w.write(JSON.writeValueAsString(res));
                w.write('\n');
                n++;
            }
        }
        System.err.printf("oracle: %d cases checked, %d with errors%n", n, bad);
    }

    private static void checkOne(Catalog cat, JsonNode c, ObjectNode res) throws Exception {
        res.put("id", c.path("id").asText());
        String name = c.path("message").asText();
        short v = (short) c.path("version").asInt();
        Catalog.Entry e = cat.lookup(name, c.path("type").asText());
        if (e == null) {
            res.put("error", "lookup: no generated Kafka class for " + name);
            return;
        }
        res.put("class", e.cls.getName());
        Message obj = checkBody(e, c, v, res);

        // (e) kwire's frame: header version, size, header, body offset, bytes
        if (c.hasNonNull("frame")) {
            try {
                res.set("frame", Frames.check(e, c, v, obj));
            } catch (Exception | LinkageError ex) {
                ObjectNode f = res.putObject("frame");
                f.putArray("failed").add("frame_error");
                f.put("detail", describe("frame", ex));
            }
        }

        // (f) the record batches in records fields, as Kafka's record classes see them
        if (obj != null && Batches.hasRecords(e.cls)) {
            try {
                res.set("records", Batches.judge(obj, c.get("records")));
            } catch (Exception | LinkageError ex) {
                ObjectNode r = res.putObject("records");
                r.put("path", "(records)");
                r.put("diff", describe("records", ex));
            }
        }
    }

    /** Checks (a) to (d) on the bare body; returns what Kafka read, or null. */
    private static Message checkBody(Catalog.Entry e, JsonNode c, short v, ObjectNode res) throws Exception {
        byte[] bytes = HEX.parseHex(c.path("hex").asText());
        JsonNode kwireJson = c.get("json");

        // (a) read
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        Message obj;
        try {
            obj = e.readCtor.newInstance(new ByteBufferAccessor(buf), v);
        } catch (Exception | LinkageError ex) {
            res.put("read_ok", false);
            res.put("error", describe("read", ex));
            return null;
        }
        res.put("read_ok", true);
        res.put("consumed", !buf.hasRemaining());
        StringBuilder errs = new StringBuilder();
        if (buf.hasRemaining()) {
            errs.append("read: ").append(buf.remaining()).append(" of ").append(bytes.length).append(" bytes left after the message; ");
        }

        // (b) write back
        try {
            byte[] back = Kafka.write(obj, v);
            res.put("kafka_hex", HEX.formatHex(back));
            res.put("bytes_equal", java.util.Arrays.equals(back, bytes));
        } catch (Exception | LinkageError ex) {
            res.put("bytes_equal", false);
            errs.append(describe("write", ex)).append("; ");
        }

        // (c) JSON
        try {
            JsonNode kj = (JsonNode) e.jsonWrite.invoke(null, obj, v);
            // As text and back: binary nodes become base64 strings, as kwire writes them.
            JsonNode kafkaJson = JSON.readTree(JSON.writeValueAsString(kj));
            res.set("kafka_json", kafkaJson);
            if (kwireJson != null) {
                JsonCompare cmp = JsonCompare.compare(kafkaJson, kwireJson, e.cls);
                res.put("json_equal", cmp.diff.isEmpty());
                if (!cmp.diff.isEmpty()) {
                    res.put("json_diff", cmp.diff);
                }
                res.put("json_limited", String.join(",", cmp.limited));
            }
        } catch (Exception | LinkageError ex) {
            res.put("json_equal", false);
            errs.append(describe("json write", ex)).append("; ");
        }

        // (d) kwire's JSON read by Kafka's converter, then written
        if (kwireJson != null) {
            if (JsonCompare.hasUnknownTags(kwireJson)) {
                res.putNull("from_json_bytes_equal");
                res.put("from_json_note", "not representable: kwire's JSON carries unknown tagged fields, which Kafka's JSON cannot");
            } else {
                try {
                    Message back = (Message) e.jsonRead.invoke(null, kwireJson, v);
                    byte[] b = Kafka.write(back, v);
                    res.put("kafka_from_json_hex", HEX.formatHex(b));
                    res.put("from_json_bytes_equal", java.util.Arrays.equals(b, bytes));
                } catch (Exception | LinkageError ex) {
                    res.put("from_json_bytes_equal", false);
                    errs.append(describe("json read", ex)).append("; ");
                }
            }
        }
        if (errs.length() > 0) {
            res.put("error", errs.substring(0, errs.length() - 2));
        }
        return obj;
    }

    /**
     * What else Kafka writes of instance m: the frame it sends (requests
     * and responses: size, a header with a random correlation id and client
     * id, the body; metadata records: the record value frame) and the
     * summary of the record batches in its records fields, taken from the
     * instance read back from its bytes (so fields absent at v are gone).
     */
    private static void extras(Catalog.Entry e, Message m, short v, byte[] body, Random hr, ObjectNode line) throws Exception {
        try {
            byte[] frame = null;
            switch (e.type) {
                case "request": {
                    int corr = hr.nextInt();
                    String clientId = Frames.clientId(hr);
                    frame = Frames.request(m, v, clientId, corr);
                    line.put("header_version", ApiKeys.forId(((ApiMessage) m).apiKey()).requestHeaderVersion(v));
                    line.put("correlation_id", corr);
                    line.put("client_id", clientId);
                    break;
                }
                case "response": {
                    int corr = hr.nextInt();
                    frame = Frames.response(m, v, corr);
                    line.put("header_version", ApiKeys.forId(((ApiMessage) m).apiKey()).responseHeaderVersion(v));
                    line.put("correlation_id", corr);
                    break;
                }
                case "metadata":
                    frame = Frames.metadataRecord(m, v);
                    break;
                case "remote-log-metadata":
                    frame = Frames.remoteLogMetadataRecord(m, v);
                    break;
                case "coordinator-key":
                case "coordinator-value":
                    frame = Frames.coordinatorRecord(e, m, v);
                    break;
                default:
                    break;
            }
            if (frame != null) {
                line.put("frame", HEX.formatHex(frame));
                line.put("body_offset", frame.length - body.length);
            }
        } catch (Exception | LinkageError ex) {
            line.put("frame_error", describe("frame", ex));
        }
        if (Batches.hasRecords(e.cls)) {
            Message back = e.readCtor.newInstance(new ByteBufferAccessor(ByteBuffer.wrap(body)), v);
            line.set("records", Batches.summarize(back).doc);
        }
    }

    private static void generate(Catalog cat, String out, long seed, int perMessage) throws IOException {
        int n = 0, failed = 0;
        try (BufferedWriter w = Files.newBufferedWriter(Paths.get(out), StandardCharsets.UTF_8)) {
            for (Catalog.Entry e : cat.byClass.values()) {
                for (short v = e.lowest; v <= e.highest; v++) {
                    // One generator per (class, version): adding a message or
                    // a version to a release does not change the others.
                    Random rnd = new Random(seed ^ (e.className.hashCode() * 31L + v) * 0x9E3779B97F4A7C15L);
                    for (int i = 0; i <= perMessage; i++) {
                        ObjectNode line = JSON.createObjectNode();
                        line.put("id", "kafka/" + e.messageName + "/v" + v + "/" + (i == 0 ? "default" : String.valueOf(i)));
                        line.put("message", e.messageName);
                        line.put("type", e.type);
                        line.put("version", v);
                        line.put("class", e.cls.getName());
                        try {
                            Message m = i == 0 ? e.cls.getConstructor().newInstance() : Filler.random(e.cls, v, e.jsonWrite, rnd);
                            byte[] body = Kafka.write(m, v);
                            line.put("hex", HEX.formatHex(body));
                            JsonNode kj = (JsonNode) e.jsonWrite.invoke(null, m, v);
                            line.set("kafka_json", JSON.readTree(JSON.writeValueAsString(kj)));
                            // The header of its own generator: the instances stay what they were.
                            extras(e, m, v, body, new Random(seed ^ line.path("id").asText().hashCode() * 0x9E3779B97F4A7C15L), line);
                        } catch (Exception | LinkageError ex) {
                            line.put("error", describe(i == 0 ? "default instance" : "random instance", ex));
                            failed++;
                        }
                        w.write(JSON.writeValueAsString(line));
                        w.write('\n');
                        n++;
                    }
                }
            }
        }
        System.err.printf("oracle: %d Kafka instances of %d classes written, %d failed%n", n, cat.byClass.size(), failed);
    }
}
