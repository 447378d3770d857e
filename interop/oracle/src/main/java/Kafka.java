import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Release-independent access to the Kafka classes the harness needs. The
 * records classes moved from {@code org.apache.kafka.common.record} (3.x) to
 * {@code org.apache.kafka.common.record.internal} (4.x), so they are reached
 * by reflection; one source builds against both releases.
 */
final class Kafka {
    private Kafka() {}

    static final Class<?> BASE_RECORDS = firstClass(
            "org.apache.kafka.common.record.internal.BaseRecords",
            "org.apache.kafka.common.record.BaseRecords");
    static final Class<?> MEMORY_RECORDS = firstClass(
            "org.apache.kafka.common.record.internal.MemoryRecords",
            "org.apache.kafka.common.record.MemoryRecords");
    private static final Class<?> SIMPLE_RECORD = firstClass(
            "org.apache.kafka.common.record.internal.SimpleRecord",
            "org.apache.kafka.common.record.SimpleRecord");
    private static final Class<?> COMPRESSION = firstClass(
            "org.apache.kafka.common.compress.Compression");

    static Class<?> firstClass(String... names) {
        for (String n : names) {
            try {
                return Class.forName(n);
            } catch (ClassNotFoundException e) {
                // try the next
            }
        }
        throw new IllegalStateException("none of these classes is on the class path: " + String.join(", ", names));
    }

    /** The bytes m writes at version v (size() then write(), as Kafka sends it). */
    static byte[] write(Message m, short v) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = m.size(cache, v);
        ByteBuffer buf = ByteBuffer.allocate(size);
        m.write(new ByteBufferAccessor(buf), cache, v);
        if (buf.position() != size) {
            throw new IllegalStateException("size() said " + size + " bytes, write() wrote " + buf.position());
        }
        return buf.array();
    }

    /** MemoryRecords.EMPTY. */
    static Object emptyRecords() {
        try {
            return MEMORY_RECORDS.getField("EMPTY").get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A real uncompressed RecordBatch v2 of the given (key, value) pairs,
     * built by MemoryRecords.withRecords(Compression.NONE, SimpleRecord...).
     */
    static Object memoryRecords(long timestamp, byte[][] keys, byte[][] values) {
        try {
            Object none = COMPRESSION.getField("NONE").get(null);
            Object recs = Array.newInstance(SIMPLE_RECORD, keys.length);
            for (int i = 0; i < keys.length; i++) {
                Array.set(recs, i, SIMPLE_RECORD.getConstructor(long.class, byte[].class, byte[].class)
                        .newInstance(timestamp + i, keys[i], values[i]));
            }
            Method with = MEMORY_RECORDS.getMethod("withRecords", COMPRESSION, recs.getClass());
            return with.invoke(null, none, recs);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The data fields of a generated class, in declaration order. */
    static List<Field> dataFields(Class<?> cls) {
        return FIELDS.computeIfAbsent(cls, c -> {
            List<Field> out = new ArrayList<>();
            for (Field f : c.getDeclaredFields()) {
                int mod = f.getModifiers();
                // Generated data fields are package-private; _unknownTaggedFields
                // and the collection links next/prev are private.
                if (Modifier.isStatic(mod) || Modifier.isPrivate(mod)) {
                    continue;
                }
                f.setAccessible(true);
                out.add(f);
            }
            return Collections.unmodifiableList(out);
        });
    }

    private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Map<String, Field>> BY_KEY = new ConcurrentHashMap<>();

    /** The data field behind JSON key k of class cls (keys are lowerCaseFirst of spec names, as the Java fields). */
    static Field fieldForKey(Class<?> cls, String k) {
        Map<String, Field> m = BY_KEY.computeIfAbsent(cls, c -> {
            Map<String, Field> out = new HashMap<>();
            for (Field f : dataFields(c)) {
                out.put(f.getName(), f);
                out.putIfAbsent(f.getName().toLowerCase(), f);
            }
            return out;
        });
        Field f = m.get(k);
        return f != null ? f : m.get(k.toLowerCase());
    }

    static boolean isRecords(Type t) {
        return t instanceof Class && BASE_RECORDS.isAssignableFrom((Class<?>) t);
    }

    static boolean isMessage(Type t) {
        return t instanceof Class && Message.class.isAssignableFrom((Class<?>) t);
    }

    /**
     * The element type of a List<E> or of a generated collection class
     * (XCollection extends ImplicitLinkedHashMultiCollection<X>), else null.
     */
    static Type elementType(Type t) {
        if (t instanceof ParameterizedType) {
            ParameterizedType p = (ParameterizedType) t;
            if (p.getRawType() instanceof Class && Collection.class.isAssignableFrom((Class<?>) p.getRawType())) {
                return p.getActualTypeArguments()[0];
            }
            return null;
        }
        if (t instanceof Class && Collection.class.isAssignableFrom((Class<?>) t)) {
            for (Class<?> c = (Class<?>) t; c != null && c != Object.class; c = c.getSuperclass()) {
                Type s = c.getGenericSuperclass();
                if (s instanceof ParameterizedType) {
                    return ((ParameterizedType) s).getActualTypeArguments()[0];
                }
            }
        }
        return null;
    }
}
