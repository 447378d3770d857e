import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * Random instances of a generated message class, filled by reflection on
 * its fields and setters, valid at one version.
 *
 * Validity is Kafka's to decide: a field is set, then the whole message is
 * written at the version; when Kafka refuses (a non-ignorable field set in
 * a version that lacks it, a null in a non-nullable version, tagged fields
 * in a non-flexible version, a uint16 out of range…) the field goes back to
 * its previous value. So the instance is built greedily, one field at a
 * time, and is always writable.
 */
final class Filler {
    private static final int MAX_DEPTH = 4;
    private static final int MAX_ELEMENTS = 3;
    private static final String[] WORDS = {
        "", "a", "kwire", "topic-0", "__cluster_metadata", "a b", "x.y_z",
        "\u00e9", "\u65e5\u672c", "\uD834\uDD1E", // 2-, 3- and 4-byte UTF-8
        "q\"b\\s/", "\n\t\r\u0000", "\u001f\u007f\u2028", // characters JSON escapes (or might)
    };

    private final Random rnd;
    private final Message root;
    private final short version;
    private final Method jsonWrite;

    private Filler(Random rnd, Message root, short version, Method jsonWrite) {
        this.rnd = rnd;
        this.root = root;
        this.version = version;
        this.jsonWrite = jsonWrite;
    }

    /**
     * A random instance of cls valid at version v: Kafka writes it, and its
     * JsonConverter (jsonWrite) renders it.
     */
    static Message random(Class<? extends Message> cls, short v, Method jsonWrite, Random rnd) throws ReflectiveOperationException {
        Message m = cls.getConstructor().newInstance();
        new Filler(rnd, m, v, jsonWrite).fill(m, 0);
        return m;
    }

    /** Whether Kafka can write the root at the version as it now is, as bytes and as JSON. */
    private boolean valid() {
        try {
            Kafka.write(root, version);
            jsonWrite.invoke(null, root, version);
            return true;
        } catch (RuntimeException | ReflectiveOperationException e) {
            return false;
        }
    }

    private Method setter(Class<?> cls, Field f) {
        String n = "set" + Character.toUpperCase(f.getName().charAt(0)) + f.getName().substring(1);
        try {
            return cls.getMethod(n, f.getType());
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Sets f of obj to val through its setter; false when the setter or the write refuses. */
    private boolean trySet(Object obj, Method set, Field f, Object val) throws IllegalAccessException {
        Object old = f.get(obj);
        try {
            set.invoke(obj, val);
        } catch (java.lang.reflect.InvocationTargetException e) {
            return false; // e.g. a uint16 setter given a negative number
        }
        if (valid()) {
            return true;
        }
        f.set(obj, old);
        return false;
    }

    private void fill(Message obj, int depth) throws ReflectiveOperationException {
        Class<?> cls = obj.getClass();
        for (Field f : Kafka.dataFields(cls)) {
            Method set = setter(cls, f);
            if (set == null) {
                continue;
            }
            Type t = f.getGenericType();
            Class<?> raw = f.getType();
            Type elem = Kafka.elementType(t);
            if (elem != null) {
                fillList(obj, f, set, raw, elem, depth);
            } else if (Kafka.isMessage(t)) {
                if (rnd.nextInt(8) == 0 && trySet(obj, set, f, null)) {
                    continue;
                }
                Message child = (Message) raw.getConstructor().newInstance();
                if (trySet(obj, set, f, child) && depth < MAX_DEPTH) {
                    fill(child, depth + 1);
                }
            } else {
                Object val = scalar(t);
                if (!trySet(obj, set, f, val) && (raw == int.class || raw == long.class)) {
                    // Unsigned fields (uint16 as int, uint32 as long) refuse negatives.
                    trySet(obj, set, f, raw == int.class ? (Object) rnd.nextInt(65536) : (Object) (rnd.nextLong() & 0xffffffffL));
                }
            }
        }
        if (rnd.nextInt(6) == 0) {
            // Unknown tagged fields (ascending tags, beyond any known tag):
            // only flexible versions can carry them.
            List<RawTaggedField> u = obj.unknownTaggedFields();
            int tag = 1000 + rnd.nextInt(100);
            u.add(new RawTaggedField(tag, bytes(4)));
            if (rnd.nextBoolean()) {
                u.add(new RawTaggedField(tag + 1 + rnd.nextInt(1000), bytes(3)));
            }
            if (!valid()) {
                u.clear();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void fillList(Message obj, Field f, Method set, Class<?> raw, Type elem, int depth) throws ReflectiveOperationException {
        if (rnd.nextInt(10) == 0 && trySet(obj, set, f, null)) {
            return;
        }
        Collection<Object> list = raw.isInterface() ? new ArrayList<>() : (Collection<Object>) raw.getConstructor().newInstance();
        if (!trySet(obj, set, f, list)) {
            return;
        }
        int n = depth >= MAX_DEPTH ? 0 : rnd.nextInt(MAX_ELEMENTS + 1);
        boolean structs = Kafka.isMessage(elem);
        List<Message> added = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Object e = structs ? ((Class<?>) elem).getConstructor().newInstance() : scalar(elem);
            list.add(e);
            if (!valid()) {
                list.remove(e);
                break;
            }
            if (structs) {
                added.add((Message) e);
            }
        }
        for (Message e : added) {
            fill(e, depth + 1);
        }
        if (!raw.isInterface() && !added.isEmpty()) {
            // Generated collections hash their elements by key fields, which
            // filling has changed: rebuild, in order. An element still linked
            // to a collection (next/prev set) cannot join another, so unlink
            // each first.
            int invalid = invalidIndex(raw);
            List<Object> elems = new ArrayList<>(list);
            Collection<Object> fresh = (Collection<Object>) raw.getConstructor().newInstance();
            for (Object e : elems) {
                e.getClass().getMethod("setNext", int.class).invoke(e, invalid);
                e.getClass().getMethod("setPrev", int.class).invoke(e, invalid);
                if (!fresh.add(e)) {
                    throw new IllegalStateException("could not rebuild " + raw.getSimpleName());
                }
            }
            set.invoke(obj, fresh);
        }
    }

    /** ImplicitLinkedHashCollection.INVALID_INDEX, the link of an element in no collection. */
    private static int invalidIndex(Class<?> coll) throws ReflectiveOperationException {
        for (Class<?> c = coll; c != null; c = c.getSuperclass()) {
            if (c.getSimpleName().equals("ImplicitLinkedHashCollection")) {
                return c.getField("INVALID_INDEX").getInt(null);
            }
        }
        throw new IllegalStateException(coll.getName() + " is not an ImplicitLinkedHashCollection");
    }

    private byte[] bytes(int max) {
        byte[] b = new byte[rnd.nextInt(max + 1)];
        rnd.nextBytes(b);
        return b;
    }

    private String string() {
        if (rnd.nextInt(3) == 0) {
            return WORDS[rnd.nextInt(WORDS.length)];
        }
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(9);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + rnd.nextInt(26)));
        }
        return sb.toString();
    }

    private long integer(long min, long max) {
        switch (rnd.nextInt(6)) {
            case 0: return 0;
            case 1: return -1;
            case 2: return min;
            case 3: return max;
            case 4: return rnd.nextInt(100);
            default: return min + (long) (rnd.nextDouble() * ((double) max - (double) min));
        }
    }

    /** A random value of a scalar type (null sometimes, where Java allows it). */
    private Object scalar(Type t) {
        if (t == int.class || t == Integer.class) {
            return (int) integer(Integer.MIN_VALUE, Integer.MAX_VALUE);
        }
        if (t == long.class || t == Long.class) {
            return rnd.nextInt(6) == 5 ? rnd.nextLong() : integer(Long.MIN_VALUE, Long.MAX_VALUE);
        }
        if (t == short.class || t == Short.class) {
            return (short) integer(Short.MIN_VALUE, Short.MAX_VALUE);
        }
        if (t == byte.class || t == Byte.class) {
            return (byte) integer(Byte.MIN_VALUE, Byte.MAX_VALUE);
        }
        if (t == boolean.class || t == Boolean.class) {
            return rnd.nextBoolean();
        }
        if (t == double.class || t == Double.class) {
            switch (rnd.nextInt(6)) {
                case 0: return 0.0;
                case 1: return -0.0;
                case 2: return (double) rnd.nextInt(1000);
                case 3: return rnd.nextGaussian() * 1e6;
                case 4:
                    // Jackson writes these as the strings "NaN", "Infinity", "-Infinity".
                    double[] special = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE};
                    return special[rnd.nextInt(special.length)];
                default: return Double.longBitsToDouble(rnd.nextLong() & 0x7fefffffffffffffL) * (rnd.nextBoolean() ? 1 : -1);
            }
        }
        if (t == String.class) {
            return rnd.nextInt(8) == 0 ? null : string();
        }
        if (t == Uuid.class) {
            return rnd.nextInt(4) == 0 ? Uuid.ZERO_UUID : new Uuid(rnd.nextLong(), rnd.nextLong());
        }
        if (t == byte[].class) {
            return rnd.nextInt(8) == 0 ? null : bytes(8);
        }
        if (t == ByteBuffer.class) {
            return rnd.nextInt(8) == 0 ? null : ByteBuffer.wrap(bytes(8));
        }
        if (Kafka.isRecords(t)) {
            switch (rnd.nextInt(4)) {
                case 0: return null;
                case 1: return Kafka.emptyRecords();
                default:
                    int n = 1 + rnd.nextInt(2);
                    byte[][] keys = new byte[n][], values = new byte[n][];
                    for (int i = 0; i < n; i++) {
                        keys[i] = rnd.nextBoolean() ? null : string().getBytes(StandardCharsets.UTF_8);
                        values[i] = bytes(6);
                    }
                    return Kafka.memoryRecords(rnd.nextInt(1 << 30), keys, values);
            }
        }
        throw new IllegalArgumentException("no random values of " + t);
    }
}
