package io.archiver.format.parquet;

import io.archiver.registry.UndecodablePayload;

import org.apache.avro.Schema;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

import java.util.ArrayList;
import java.util.List;

/**
 * Writes Avro binary payloads straight into the typed columns {@link AvroColumns} makes of their schema, without
 * building Avro objects: the payload is read field by field and each value goes to its column as it is read
 * (strings and bytes as views of the payload, which Parquet copies only where it keeps them). For payloads written
 * with the file's own schema, the common case; a payload of another version is resolved through Avro's reader
 * ({@link AvroColumns#writeField}). The columns written are those {@link AvroColumns#writeField} writes for the
 * decoded datum ({@code AvroBinaryColumnsTest}). Compiled once per schema; immutable, so shared by a subtask's files.
 */
final class AvroBinaryColumns {

    private final Value root;

    private AvroBinaryColumns(Value root) {
        this.root = root;
    }

    /** The writer of payloads of {@code schema} into the columns of {@link AvroColumns#column}. */
    static AvroBinaryColumns of(Schema schema) {
        return new AvroBinaryColumns(compile(schema));
    }

    /**
     * Writes the datum encoded in {@code payload} from {@code start} to its end as field {@code name} at {@code index}
     * of the current group (nothing when it is null).
     *
     * @return true when the bytes are Avro's canonical encoding of the values written, the one
     *         {@link AvroColumnsEncoder} rebuilds from the columns: varints in their fewest bytes, booleans 0 or 1, each
     *         non-empty array and map in one block with its count, NaNs in Java's canonical form (Parquet's)
     * @throws UndecodablePayload if the bytes do not hold exactly one datum of the schema
     */
    boolean writeField(RecordConsumer out, String name, int index, byte[] payload, int start) throws UndecodablePayload {
        Input in = new Input(payload, start);
        try {
            root.writeField(in, out, name, index);
        } catch (ArrayIndexOutOfBoundsException e) {
            throw new UndecodablePayload("ends inside its datum");
        }
        if (in.pos != payload.length) {
            throw new UndecodablePayload("holds more bytes than one datum");
        }
        return in.canonical;
    }

    private static Value compile(Schema schema) {
        switch (schema.getType()) {
            case UNION: {
                List<Schema> types = schema.getTypes();
                Value[] branches = new Value[types.size()];
                int[] members = new int[types.size()];
                int member = 0;
                for (int i = 0; i < types.size(); i++) {
                    boolean isNull = types.get(i).getType() == Schema.Type.NULL;
                    branches[i] = isNull ? null : compile(types.get(i));
                    members[i] = isNull ? -1 : member++;
                }
                return new Union(branches, members, member == 1);
            }
            case RECORD: {
                List<Value> fields = new ArrayList<>();
                List<String> names = new ArrayList<>();
                for (Schema.Field f : schema.getFields()) {
                    if (f.schema().getType() != Schema.Type.NULL) {
                        fields.add(compile(f.schema()));
                        names.add(f.name());
                    }
                }
                return new Record(fields.toArray(new Value[0]), names.toArray(new String[0]));
            }
            case ARRAY:
                return new Array(compile(schema.getElementType()));
            case MAP:
                return new MapValue(compile(schema.getValueType()));
            case ENUM: {
                List<String> symbols = schema.getEnumSymbols();
                Binary[] binaries = new Binary[symbols.size()];
                for (int i = 0; i < binaries.length; i++) {
                    binaries[i] = EnvelopeWriteSupport.utf8(symbols.get(i));
                }
                return (in, out) -> {
                    int index = in.readInt();
                    if (index < 0 || index >= binaries.length) {
                        throw new UndecodablePayload("holds enum index " + index + " of an enum of " + binaries.length + " symbols");
                    }
                    out.addBinary(binaries[index]);
                };
            }
            case STRING:
            case BYTES:
                return (in, out) -> out.addBinary(in.readBytes());
            case FIXED: {
                int size = schema.getFixedSize();
                return (in, out) -> out.addBinary(in.view(size));
            }
            case INT:
                return (in, out) -> out.addInteger(in.readInt());
            case LONG:
                return (in, out) -> out.addLong(in.readLong());
            case FLOAT:
                return (in, out) -> {
                    int bits = in.readFixedInt();
                    float value = Float.intBitsToFloat(bits);
                    in.canonical &= Float.floatToIntBits(value) == bits;
                    out.addFloat(value);
                };
            case DOUBLE:
                return (in, out) -> {
                    long bits = in.readFixedLong();
                    double value = Double.longBitsToDouble(bits);
                    in.canonical &= Double.doubleToLongBits(value) == bits;
                    out.addDouble(value);
                };
            case BOOLEAN:
                return (in, out) -> {
                    int b = in.payload[in.pos++];
                    in.canonical &= (b & ~1) == 0;
                    out.addBoolean(b == 1); // as Avro's decoder reads it
                };
            default:
                throw new IllegalArgumentException("Avro type " + schema.getType() + " has no Parquet column");
        }
    }

    /** A compiled schema: reads one datum and writes its column values. */
    @FunctionalInterface
    private interface Value {
        void write(Input in, RecordConsumer out) throws UndecodablePayload;

        /** The datum as field {@code name} at {@code index}; a union's null branch writes no field. */
        default void writeField(Input in, RecordConsumer out, String name, int index) throws UndecodablePayload {
            out.startField(name, index);
            write(in, out);
            out.endField(name, index);
        }
    }

    /** A union: {@code [null, T]} an optional T, others a group of optional members (the null branch none). */
    private record Union(Value[] branches, int[] members, boolean optional) implements Value {
        private static final String[] MEMBER_NAMES = {"member0", "member1", "member2", "member3", "member4", "member5"};

        @Override
        public void write(Input in, RecordConsumer out) {
            throw new IllegalStateException("a union is written as a field");
        }

        @Override
        public void writeField(Input in, RecordConsumer out, String name, int index) throws UndecodablePayload {
            int branch = in.readInt();
            if (branch < 0 || branch >= branches.length) {
                throw new UndecodablePayload("holds union branch " + branch + " of a union of " + branches.length);
            }
            Value value = branches[branch];
            if (value == null) {
                return;
            }
            out.startField(name, index);
            if (optional) {
                value.write(in, out);
            } else {
                int member = members[branch];
                out.startGroup();
                value.writeField(in, out, member < MEMBER_NAMES.length ? MEMBER_NAMES[member] : "member" + member, member);
                out.endGroup();
            }
            out.endField(name, index);
        }
    }

    private record Record(Value[] fields, String[] names) implements Value {
        @Override
        public void write(Input in, RecordConsumer out) throws UndecodablePayload {
            out.startGroup();
            for (int i = 0; i < fields.length; i++) {
                fields[i].writeField(in, out, names[i], i);
            }
            out.endGroup();
        }
    }

    /** The standard three-level LIST; Avro writes an array as blocks of items, the last one empty. */
    private record Array(Value element) implements Value {
        @Override
        public void write(Input in, RecordConsumer out) throws UndecodablePayload {
            out.startGroup();
            long n = in.blockCount();
            if (n != 0) {
                out.startField("list", 0);
                for (int block = 0; n != 0; n = in.blockCount(), block++) {
                    in.canonical &= block == 0;
                    for (long i = 0; i < n; i++) {
                        out.startGroup();
                        element.writeField(in, out, "element", 0);
                        out.endGroup();
                    }
                }
                out.endField("list", 0);
            }
            out.endGroup();
        }
    }

    /** The standard MAP of string keys. */
    private record MapValue(Value value) implements Value {
        @Override
        public void write(Input in, RecordConsumer out) throws UndecodablePayload {
            out.startGroup();
            long n = in.blockCount();
            if (n != 0) {
                out.startField("key_value", 0);
                for (int block = 0; n != 0; n = in.blockCount(), block++) {
                    in.canonical &= block == 0;
                    for (long i = 0; i < n; i++) {
                        out.startGroup();
                        out.startField("key", 0);
                        out.addBinary(in.readBytes());
                        out.endField("key", 0);
                        value.writeField(in, out, "value", 1);
                        out.endGroup();
                    }
                }
                out.endField("key_value", 0);
            }
            out.endGroup();
        }
    }

    /** Avro's binary encoding read from a payload: zig-zag varints, little-endian floats, length-prefixed bytes. */
    private static final class Input {
        final byte[] payload;
        int pos;
        /** False once something was read that its re-encoding would write otherwise. */
        boolean canonical = true;

        Input(byte[] payload, int pos) {
            this.payload = payload;
            this.pos = pos;
        }

        /** As Avro's decoder reads an int: bits beyond the 32nd of a fifth byte are dropped (not canonical). */
        int readInt() throws UndecodablePayload {
            int raw = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                int b = payload[pos++] & 0xff;
                raw |= (b & 0x7f) << shift;
                if (b < 0x80) {
                    canonical &= shift == 0 ? true : shift < 28 ? b != 0 : b != 0 && b < 0x10;
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw new UndecodablePayload("holds an int longer than 5 bytes");
        }

        long readLong() throws UndecodablePayload {
            long raw = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                long b = payload[pos++] & 0xff;
                raw |= (b & 0x7f) << shift;
                if (b < 0x80) {
                    canonical &= shift == 0 ? true : shift < 63 ? b != 0 : b == 1;
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw new UndecodablePayload("holds a long longer than 10 bytes");
        }

        int readFixedInt() {
            int v = (payload[pos] & 0xff) | (payload[pos + 1] & 0xff) << 8 | (payload[pos + 2] & 0xff) << 16 | (payload[pos + 3] & 0xff) << 24;
            pos += 4;
            return v;
        }

        long readFixedLong() {
            long low = readFixedInt() & 0xffffffffL;
            return low | (long) readFixedInt() << 32;
        }

        /** A string or bytes: its length, then as many bytes, as a view Parquet copies where it keeps it. */
        Binary readBytes() throws UndecodablePayload {
            long length = readLong();
            if (length < 0 || length > payload.length - pos) {
                throw new UndecodablePayload("holds a string or bytes of length " + length + " beyond its end");
            }
            return view((int) length);
        }

        Binary view(int length) {
            if (length > payload.length - pos) {
                throw new ArrayIndexOutOfBoundsException(pos + length);
            }
            Binary binary = Binary.fromReusedByteArray(payload, pos, length);
            pos += length;
            return binary;
        }

        /** The item count of the next block of an array or map (0 after the last); a negative count is followed by the block's size in bytes. */
        long blockCount() throws UndecodablePayload {
            long n = readLong();
            if (n < 0) {
                canonical = false;
                readLong();
                n = -n;
            }
            return n;
        }
    }
}
