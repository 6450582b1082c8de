package io.archiver.format.parquet;

import io.archiver.record.ArchiveRecord;

import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;

import java.util.Arrays;
import java.util.function.Consumer;

import static io.archiver.record.EnvelopeFields.*;

/**
 * Assembles {@link ArchiveRecord}s straight from the envelope's columns: no row object in between, and each distinct
 * topic, timestamp type and header key decoded to a string once (per dictionary page, or while a column repeats its
 * last value) instead of once per record. The typed columns of a file that may have left payloads out are read beside
 * them into a row object of their own ({@link RebuiltPayloads}) that rebuilds those payloads.
 */
final class EnvelopeRecordConverter extends RecordMaterializer<ArchiveRecord> {

    private static final String[] NO_HEADER_KEYS = new String[0];
    private static final byte[][] NO_HEADER_VALUES = new byte[0][];

    private final Root root;

    /** {@code requested}: the envelope's fields of a file's schema, alone (without value and headers: records without them). */
    EnvelopeRecordConverter(MessageType requested) {
        this(requested, null);
    }

    /** {@code requested}: the envelope's fields and the typed columns {@code rebuilt} reads (null: none). */
    EnvelopeRecordConverter(MessageType requested, RebuiltPayloads rebuilt) {
        this.root = new Root(requested, rebuilt);
    }

    @Override
    public ArchiveRecord getCurrentRecord() {
        return root.record;
    }

    @Override
    public GroupConverter getRootConverter() {
        return root;
    }

    /** A record's fields, gathered as their columns deliver them, and the record made of them at its end. */
    private static final class Root extends GroupConverter {
        private final Converter[] fields;
        private final Headers headers;
        private final RebuiltPayloads rebuilt;
        private ArchiveRecord record;
        private int partition;
        private long offset;
        private long timestamp;
        private byte[] key;
        private byte[] value;
        private String topic;
        private String timestampType;

        Root(MessageType envelope, RebuiltPayloads rebuilt) {
            this.rebuilt = rebuilt;
            headers = envelope.containsField(HEADERS) ? new Headers(envelope.getType(HEADERS).asGroupType()) : null;
            fields = new Converter[envelope.getFieldCount()];
            fields[envelope.getFieldIndex(TOPIC)] = new Strings(s -> topic = s);
            fields[envelope.getFieldIndex(PARTITION)] = new PrimitiveConverter() {
                @Override
                public void addInt(int v) {
                    partition = v;
                }
            };
            fields[envelope.getFieldIndex(OFFSET)] = new PrimitiveConverter() {
                @Override
                public void addLong(long v) {
                    offset = v;
                }
            };
            fields[envelope.getFieldIndex(TIMESTAMP)] = new PrimitiveConverter() {
                @Override
                public void addLong(long v) {
                    timestamp = v;
                }
            };
            fields[envelope.getFieldIndex(TIMESTAMP_TYPE)] = new Strings(s -> timestampType = s);
            fields[envelope.getFieldIndex(KEY)] = new Bytes(b -> key = b);
            if (envelope.containsField(VALUE)) {
                fields[envelope.getFieldIndex(VALUE)] = new Bytes(b -> value = b);
            }
            if (headers != null) {
                fields[envelope.getFieldIndex(HEADERS)] = headers;
            }
            for (int i = 0; i < fields.length; i++) {
                if (fields[i] == null) {
                    if (rebuilt == null) {
                        throw new IllegalArgumentException("Not a field of the envelope: " + envelope.getType(i).getName());
                    }
                    fields[i] = rebuilt.converter(envelope.getType(i).getName());
                }
            }
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return fields[fieldIndex];
        }

        @Override
        public void start() {
            key = null;
            value = null;
            if (rebuilt != null) {
                rebuilt.start();
            }
        }

        @Override
        public void end() {
            if (rebuilt != null) {
                rebuilt.end();
                key = rebuilt.key(key);
                value = rebuilt.value(value);
            }
            record = headers == null
                    ? new ArchiveRecord(topic, partition, offset, timestamp, timestampType, key, value, NO_HEADER_KEYS, NO_HEADER_VALUES)
                    : new ArchiveRecord(topic, partition, offset, timestamp, timestampType, key, value, headers.keys(), headers.values());
        }
    }

    /** The headers list: {@code headers.list[].element{key, value}}. */
    private static final class Headers extends GroupConverter {
        private String[] keys = new String[4];
        private byte[][] values = new byte[4][];
        private int count;
        private final GroupConverter list;

        Headers(GroupType headers) {
            GroupConverter element = new GroupConverter() {
                private final Converter key = new Strings(s -> keys[count] = s);
                private final Converter value = new Bytes(b -> values[count] = b);
                private final int keyIndex;

                {
                    GroupType type = headers.getType(0).asGroupType().getType(0).asGroupType();
                    keyIndex = type.getFieldIndex(HEADER_KEY);
                }

                @Override
                public Converter getConverter(int fieldIndex) {
                    return fieldIndex == keyIndex ? key : value;
                }

                @Override
                public void start() {
                    if (count == keys.length) {
                        keys = Arrays.copyOf(keys, count * 2);
                        values = Arrays.copyOf(values, count * 2);
                    }
                    keys[count] = null;
                    values[count] = null;
                }

                @Override
                public void end() {
                    count++;
                }
            };
            list = new GroupConverter() {
                @Override
                public Converter getConverter(int fieldIndex) {
                    return element;
                }

                @Override
                public void start() {}

                @Override
                public void end() {}
            };
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return list;
        }

        @Override
        public void start() {
            count = 0;
        }

        @Override
        public void end() {}

        String[] keys() {
            return Arrays.copyOf(keys, count);
        }

        byte[][] values() {
            return Arrays.copyOf(values, count);
        }
    }

    /** A binary column's values as byte arrays of their own. */
    private static final class Bytes extends PrimitiveConverter {
        private final Consumer<byte[]> field;

        Bytes(Consumer<byte[]> field) {
            this.field = field;
        }

        @Override
        public void addBinary(Binary v) {
            field.accept(v.getBytes());
        }
    }

    /**
     * A string column's values, each dictionary entry decoded once, and a plain value decoded only when it differs
     * from the one before (a file's topic and timestamp type repeat on every record).
     */
    private static final class Strings extends PrimitiveConverter {
        private final Consumer<String> field;
        private String[] dictionary;
        private Binary last;
        private String lastString;

        Strings(Consumer<String> field) {
            this.field = field;
        }

        @Override
        public boolean hasDictionarySupport() {
            return true;
        }

        @Override
        public void setDictionary(Dictionary d) {
            dictionary = new String[d.getMaxId() + 1];
            for (int id = 0; id < dictionary.length; id++) {
                dictionary[id] = d.decodeToBinary(id).toStringUsingUTF8();
            }
        }

        @Override
        public void addValueFromDictionary(int dictionaryId) {
            field.accept(dictionary[dictionaryId]);
        }

        @Override
        public void addBinary(Binary v) {
            if (!v.equals(last)) {
                last = v.copy();
                lastString = v.toStringUsingUTF8();
            }
            field.accept(lastString);
        }
    }
}
