import java.lang.reflect.Field;
import java.lang.reflect.Type;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Semantic comparison of Kafka's JsonConverter output with kwire's JSON:
 * objects key by key, arrays element by element, numbers by numeric value
 * (0 equals 0.0, int and long are the same), everything else exactly.
 *
 * Two things Kafka's JSON cannot carry are compared by bytes only and
 * reported as limits: records fields (the converter writes "" where kwire
 * writes the batch in base64) and kwire's "_unknownTaggedFields" key
 * (Kafka keeps unknown tags on the wire but drops them from JSON).
 */
final class JsonCompare {
    static final String UNKNOWN_TAGS_KEY = "_unknownTaggedFields";

    /** The first difference ("" when equal) and the limits met. */
    String diff = "";
    final TreeSet<String> limited = new TreeSet<>();

    static JsonCompare compare(JsonNode kafka, JsonNode kwire, Class<?> root) {
        JsonCompare c = new JsonCompare();
        c.node(kafka, kwire, root, "");
        return c;
    }

    /** Whether kwire's JSON carries unknown tagged fields anywhere. */
    static boolean hasUnknownTags(JsonNode n) {
        if (n == null) {
            return false;
        }
        if (n.isObject()) {
            JsonNode u = n.get(UNKNOWN_TAGS_KEY);
            if (u != null && !u.isNull() && u.size() > 0) {
                return true;
            }
        }
        for (JsonNode c : n) {
            if (hasUnknownTags(c)) {
                return true;
            }
        }
        return false;
    }

    private boolean differ(String path, String what) {
        if (diff.isEmpty()) {
            diff = (path.isEmpty() ? "(root)" : path) + ": " + what;
        }
        return false;
    }

    private static String show(JsonNode n) {
        if (n == null) {
            return "absent";
        }
        String s = n.toString();
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }

    private boolean node(JsonNode k, JsonNode w, Type type, String path) {
        if (Kafka.isRecords(type)) {
            if (k.isNull() || w.isNull()) {
                return k.isNull() == w.isNull() || differ(path, "records: Kafka " + show(k) + ", kwire " + show(w));
            }
            // The converter never renders records ("" for any batch): the
            // bytes checks cover them.
            limited.add("records");
            return true;
        }
        if (k.isObject()) {
            if (!w.isObject()) {
                return differ(path, "Kafka has an object, kwire " + show(w));
            }
            Class<?> cls = type instanceof Class ? (Class<?>) type : null;
            boolean ok = true;
            for (Iterator<Map.Entry<String, JsonNode>> it = k.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                JsonNode wv = w.get(e.getKey());
                if (wv == null) {
                    ok = differ(p, "kwire has no such key (Kafka: " + show(e.getValue()) + ")");
                    continue;
                }
                Field f = cls == null ? null : Kafka.fieldForKey(cls, e.getKey());
                ok &= node(e.getValue(), wv, f == null ? null : f.getGenericType(), p);
            }
            for (Iterator<String> it = w.fieldNames(); it.hasNext(); ) {
                String key = it.next();
                if (k.has(key)) {
                    continue;
                }
                if (key.equals(UNKNOWN_TAGS_KEY)) {
                    JsonNode u = w.get(key);
                    if (u != null && !u.isNull() && u.size() > 0) {
                        limited.add("unknown_tags");
                    }
                    continue;
                }
                ok = differ(path.isEmpty() ? key : path + "." + key, "Kafka has no such key (kwire: " + show(w.get(key)) + ")");
            }
            return ok;
        }
        if (k.isArray()) {
            if (!w.isArray()) {
                return differ(path, "Kafka has an array, kwire " + show(w));
            }
            if (k.size() != w.size()) {
                return differ(path, "Kafka has " + k.size() + " elements, kwire " + w.size());
            }
            Type elem = type == null ? null : Kafka.elementType(type);
            boolean ok = true;
            for (int i = 0; i < k.size(); i++) {
                ok &= node(k.get(i), w.get(i), elem, path + "[" + i + "]");
            }
            return ok;
        }
        if (k.isNumber()) {
            if (!w.isNumber()) {
                return differ(path, "Kafka " + show(k) + ", kwire " + show(w));
            }
            return numbersEqual(k, w) || differ(path, "Kafka " + show(k) + ", kwire " + show(w));
        }
        return k.equals(w) || differ(path, "Kafka " + show(k) + ", kwire " + show(w));
    }

    static boolean numbersEqual(JsonNode a, JsonNode b) {
        if (a.isIntegralNumber() && b.isIntegralNumber()) {
            return a.bigIntegerValue().equals(b.bigIntegerValue());
        }
        if (a.isIntegralNumber() || b.isIntegralNumber()) {
            double x = a.isIntegralNumber() ? b.doubleValue() : a.doubleValue();
            if (Double.isNaN(x) || Double.isInfinite(x)) {
                return false;
            }
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        double x = a.doubleValue(), y = b.doubleValue();
        return x == y || (Double.isNaN(x) && Double.isNaN(y));
    }
}
