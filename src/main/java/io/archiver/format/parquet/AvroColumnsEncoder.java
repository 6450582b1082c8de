package io.archiver.format.parquet;

import org.apache.avro.Schema;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.io.api.Binary;

import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * Rebuilds an Avro payload from its typed columns: the group {@link AvroColumns} wrote for it, encoded in Avro's
 * binary encoding as its writers' encoder writes it (Avro's {@code BinaryEncoder}: fewest-byte varints, each
 * non-empty array and map one counted block). The bytes equal the payload's wherever {@link AvroBinaryColumns} found
 * them canonical, which is when the sink leaves them out of the file.
 */
final class AvroColumnsEncoder {

    private AvroColumnsEncoder() {}

    /** The wire format of {@code schemaId} and the datum of {@code schema} in field {@code field} of {@code parent}. */
    static byte[] encode(int schemaId, Schema schema, Group parent, String field) {
        Output out = new Output();
        out.write(0);
        out.write(schemaId >>> 24);
        out.write(schemaId >>> 16);
        out.write(schemaId >>> 8);
        out.write(schemaId);
        field(out, schema, parent, parent.getType().getFieldIndex(field));
        return out.toByteArray();
    }

    /** The value of field {@code index} of {@code group}, of {@code schema} (a union's null branch when absent). */
    private static void field(Output out, Schema schema, Group group, int index) {
        switch (schema.getType()) {
            case NULL:
                return;
            case UNION: {
                List<Schema> types = schema.getTypes();
                int members = 0;
                int nullBranch = -1;
                for (int i = 0; i < types.size(); i++) {
                    if (types.get(i).getType() == Schema.Type.NULL) {
                        nullBranch = i;
                    } else {
                        members++;
                    }
                }
                if (group.getFieldRepetitionCount(index) == 0) {
                    out.varint(nullBranch);
                    return;
                }
                if (members == 1) {
                    int branch = nullBranch == 0 ? 1 : 0;
                    out.varint(branch);
                    value(out, types.get(branch), group, index);
                    return;
                }
                Group union = group.getGroup(index, 0);
                for (int i = 0, member = 0; i < types.size(); i++) {
                    if (types.get(i).getType() != Schema.Type.NULL) {
                        if (union.getFieldRepetitionCount(member) > 0) {
                            out.varint(i);
                            field(out, types.get(i), union, member);
                            return;
                        }
                        member++;
                    }
                }
                throw new IllegalStateException("The union " + group.getType().getFieldName(index) + " has no member set");
            }
            default:
                value(out, schema, group, index);
        }
    }

    private static void value(Output out, Schema schema, Group group, int index) {
        switch (schema.getType()) {
            case RECORD: {
                Group record = group.getGroup(index, 0);
                int column = 0;
                for (Schema.Field f : schema.getFields()) {
                    if (f.schema().getType() != Schema.Type.NULL) {
                        field(out, f.schema(), record, column++);
                    }
                }
                return;
            }
            case ARRAY: {
                Group list = group.getGroup(index, 0);
                int n = list.getFieldRepetitionCount(0);
                if (n > 0) {
                    out.varint(n);
                    for (int i = 0; i < n; i++) {
                        field(out, schema.getElementType(), list.getGroup(0, i), 0);
                    }
                }
                out.varint(0);
                return;
            }
            case MAP: {
                Group map = group.getGroup(index, 0);
                int n = map.getFieldRepetitionCount(0);
                if (n > 0) {
                    out.varint(n);
                    for (int i = 0; i < n; i++) {
                        Group entry = map.getGroup(0, i);
                        out.bytes(entry.getBinary(0, 0));
                        field(out, schema.getValueType(), entry, 1);
                    }
                }
                out.varint(0);
                return;
            }
            case ENUM:
                out.varint(schema.getEnumOrdinal(group.getBinary(index, 0).toStringUsingUTF8()));
                return;
            case STRING:
            case BYTES:
                out.bytes(group.getBinary(index, 0));
                return;
            case FIXED:
                out.write(group.getBinary(index, 0).getBytes());
                return;
            case INT:
                out.varint(group.getInteger(index, 0));
                return;
            case LONG:
                out.varint(group.getLong(index, 0));
                return;
            case FLOAT:
                out.fixed(Float.floatToRawIntBits(group.getFloat(index, 0)), 4);
                return;
            case DOUBLE:
                out.fixed(Double.doubleToRawLongBits(group.getDouble(index, 0)), 8);
                return;
            case BOOLEAN:
                out.write(group.getBoolean(index, 0) ? 1 : 0);
                return;
            default:
                throw new IllegalArgumentException("Avro type " + schema.getType() + " has no Parquet column");
        }
    }

    private static final class Output extends ByteArrayOutputStream {
        Output() {
            super(256);
        }

        /** A zig-zag varint in its fewest bytes. */
        void varint(long value) {
            long n = (value << 1) ^ (value >> 63);
            while ((n & ~0x7FL) != 0) {
                write((int) ((n & 0x7f) | 0x80));
                n >>>= 7;
            }
            write((int) n);
        }

        void bytes(Binary binary) {
            varint(binary.length());
            write(binary.getBytes(), 0, binary.length());
        }

        void fixed(long bits, int bytes) {
            for (int i = 0; i < bytes; i++) {
                write((int) (bits >>> (8 * i)));
            }
        }

        @Override
        public void write(byte[] b) {
            write(b, 0, b.length);
        }
    }
}
