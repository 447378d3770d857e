import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.Readable;

/**
 * The generated message classes of the Kafka release on the class path,
 * found once at start-up: every top-level {@code <X>JsonConverter} class in
 * the Kafka jars names a generated message class {@code <X>} of the same
 * package (requests, responses and headers are {@code <Name>Data}; metadata
 * records, raft state and the other data messages are {@code <Name>}).
 */
final class Catalog {
    /** One generated message class and its converter. */
    static final class Entry {
        final String className;     // simple class name: VoteRequestData, FeatureLevelRecord
        final String messageName;   // the spec's name: VoteRequest, FeatureLevelRecord
        final String type;          // request, response, header, metadata, data, coordinator-key,
                                    // coordinator-value (the group, transaction and share
                                    // coordinators' records) or remote-log-metadata (kafka-storage's)
        final Class<? extends Message> cls;
        final Constructor<? extends Message> readCtor;
        final Method jsonWrite;     // static JsonNode write(X, short)
        final Method jsonRead;      // static X read(JsonNode, short)
        final short lowest, highest;

        Entry(Class<? extends Message> cls, Class<?> conv) throws ReflectiveOperationException {
            this.cls = cls;
            this.className = cls.getSimpleName();
            this.readCtor = cls.getConstructor(Readable.class, short.class);
            this.jsonWrite = conv.getMethod("write", cls, short.class);
            this.jsonRead = conv.getMethod("read", JsonNode.class, short.class);
            Message m = cls.getConstructor().newInstance();
            this.lowest = m.lowestSupportedVersion();
            this.highest = m.highestSupportedVersion();
            String pkg = cls.getPackageName();
            String n = className;
            if (pkg.endsWith(".metadata")) {
                type = "metadata";
            } else if (pkg.startsWith("org.apache.kafka.coordinator.") && n.endsWith("Key")) {
                type = "coordinator-key";
            } else if (pkg.startsWith("org.apache.kafka.coordinator.") && n.endsWith("Value")) {
                type = "coordinator-value";
            } else if (pkg.equals(Frames.REMOTE_LOG_METADATA_PACKAGE) && isApi(cls) && ((org.apache.kafka.common.protocol.ApiMessage) m).apiKey() >= 0) {
                type = "remote-log-metadata";
            } else if (n.endsWith("RequestHeaderData") || n.endsWith("ResponseHeaderData")) {
                type = "header";
            } else if (n.endsWith("RequestData") && isApi(cls)) {
                type = "request";
            } else if (n.endsWith("ResponseData") && isApi(cls)) {
                type = "response";
            } else {
                type = "data";
            }
            boolean dataSuffix = type.equals("request") || type.equals("response") || type.equals("header");
            this.messageName = dataSuffix ? n.substring(0, n.length() - "Data".length()) : n;
        }

        private static boolean isApi(Class<?> cls) {
            for (Class<?> i : cls.getInterfaces()) {
                if (i.getSimpleName().equals("ApiMessage")) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Entries by simple class name. */
    final Map<String, Entry> byClass = new TreeMap<>();
    /** Problems met while scanning (a converter without its class, …). */
    final List<String> problems = new ArrayList<>();

    static Catalog scan() throws IOException {
        Catalog c = new Catalog();
        for (String path : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!path.endsWith(".jar") || !new File(path).getName().startsWith("kafka-")) {
                continue;
            }
            try (JarFile jar = new JarFile(path)) {
                for (Enumeration<JarEntry> en = jar.entries(); en.hasMoreElements(); ) {
                    String name = en.nextElement().getName();
                    if (!name.startsWith("org/apache/kafka/") || !name.endsWith("JsonConverter.class") || name.contains("$")) {
                        continue;
                    }
                    String convName = name.substring(0, name.length() - ".class".length()).replace('/', '.');
                    String msgName = convName.substring(0, convName.length() - "JsonConverter".length());
                    c.add(msgName, convName);
                }
            }
        }
        return c;
    }

    @SuppressWarnings("unchecked")
    private void add(String msgName, String convName) {
        try {
            Class<?> cls = Class.forName(msgName);
            if (!Message.class.isAssignableFrom(cls) || Modifier.isAbstract(cls.getModifiers())) {
                return;
            }
            Entry e = new Entry((Class<? extends Message>) cls, Class.forName(convName));
            Entry old = byClass.putIfAbsent(e.className, e);
            if (old != null) {
                problems.add("two classes named " + e.className + ": " + old.cls.getName() + " and " + cls.getName());
            }
        } catch (ClassNotFoundException ex) {
            // A converter of something else (not a generated message).
        } catch (ReflectiveOperationException | LinkageError ex) {
            problems.add(msgName + ": " + ex);
        }
    }

    /**
     * The class of kwire message {@code name} of spec type {@code type}:
     * {@code <name>Data} for requests, responses and headers, else
     * {@code <name>} (then {@code <name>Data}).
     */
    Entry lookup(String name, String type) {
        boolean dataSuffix = "request".equals(type) || "response".equals(type) || "header".equals(type);
        Entry e = byClass.get(dataSuffix ? name + "Data" : name);
        if (e == null) {
            e = byClass.get(dataSuffix ? name : name + "Data");
        }
        return e;
    }
}
