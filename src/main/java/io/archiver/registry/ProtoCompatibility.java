package io.archiver.registry;

import com.google.protobuf.Descriptors;

/** Whether a Protobuf message of one version reads as another's: Protobuf's own rules, fields matched by number. */
final class ProtoCompatibility {

    private ProtoCompatibility() {}

    /**
     * True when {@code writer}'s messages read as {@code reader}: the same message name, and every field number
     * both declare has the same type and repetition (nested messages alike); fields only one declares are unknown
     * to the other or absent, as Protobuf has them.
     */
    static boolean reads(Descriptors.Descriptor reader, Descriptors.Descriptor writer) {
        return reads(reader, writer, 0);
    }

    private static boolean reads(Descriptors.Descriptor reader, Descriptors.Descriptor writer, int depth) {
        if (depth > 32) {
            return false; // recursive messages: no columns hold them anyway
        }
        if (!reader.getFullName().equals(writer.getFullName())) {
            return false;
        }
        for (Descriptors.FieldDescriptor r : reader.getFields()) {
            Descriptors.FieldDescriptor w = writer.findFieldByNumber(r.getNumber());
            if (w == null) {
                continue;
            }
            if (r.getType() != w.getType() || r.isRepeated() != w.isRepeated()) {
                return false;
            }
            if (r.getType() == Descriptors.FieldDescriptor.Type.MESSAGE && !reads(r.getMessageType(), w.getMessageType(), depth + 1)) {
                return false;
            }
        }
        return true;
    }
}
