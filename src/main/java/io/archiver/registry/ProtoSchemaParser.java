package io.archiver.registry;

import com.google.protobuf.AnyProto;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DurationProto;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.StructProto;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.WrappersProto;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the {@code .proto} text a registry holds for a Protobuf schema into a descriptor: {@code syntax},
 * {@code package}, messages (nested), enums, fields with their labels, {@code map<K, V>} and {@code oneof};
 * options, reserved ranges, services and extensions are read past. Imports of Google's well-known types
 * ({@code google/protobuf/timestamp.proto}, …) resolve to protobuf-java's own; any other import to a file the
 * schema's references name (the registry's schema references: an import path and the subject version holding it).
 */
public final class ProtoSchemaParser {

    private static final Map<String, Descriptors.FileDescriptor> WELL_KNOWN = Map.of(
            "google/protobuf/timestamp.proto", TimestampProto.getDescriptor(),
            "google/protobuf/duration.proto", DurationProto.getDescriptor(),
            "google/protobuf/wrappers.proto", WrappersProto.getDescriptor(),
            "google/protobuf/struct.proto", StructProto.getDescriptor(),
            "google/protobuf/empty.proto", EmptyProto.getDescriptor(),
            "google/protobuf/any.proto", AnyProto.getDescriptor());

    private static final Map<String, FieldDescriptorProto.Type> SCALARS = Map.ofEntries(
            Map.entry("double", FieldDescriptorProto.Type.TYPE_DOUBLE), Map.entry("float", FieldDescriptorProto.Type.TYPE_FLOAT),
            Map.entry("int32", FieldDescriptorProto.Type.TYPE_INT32), Map.entry("int64", FieldDescriptorProto.Type.TYPE_INT64),
            Map.entry("uint32", FieldDescriptorProto.Type.TYPE_UINT32), Map.entry("uint64", FieldDescriptorProto.Type.TYPE_UINT64),
            Map.entry("sint32", FieldDescriptorProto.Type.TYPE_SINT32), Map.entry("sint64", FieldDescriptorProto.Type.TYPE_SINT64),
            Map.entry("fixed32", FieldDescriptorProto.Type.TYPE_FIXED32), Map.entry("fixed64", FieldDescriptorProto.Type.TYPE_FIXED64),
            Map.entry("sfixed32", FieldDescriptorProto.Type.TYPE_SFIXED32), Map.entry("sfixed64", FieldDescriptorProto.Type.TYPE_SFIXED64),
            Map.entry("bool", FieldDescriptorProto.Type.TYPE_BOOL), Map.entry("string", FieldDescriptorProto.Type.TYPE_STRING),
            Map.entry("bytes", FieldDescriptorProto.Type.TYPE_BYTES));

    /** The name of the file a registry's schema is parsed as (the files it imports are named by their import paths). */
    private static final String FILE_NAME = "registry-schema.proto";

    private final List<String> tokens;
    private final Map<String, Descriptors.FileDescriptor> imports;
    private int next;
    private boolean proto3;

    private ProtoSchemaParser(String text, Map<String, Descriptors.FileDescriptor> imports) {
        this.tokens = tokenize(text);
        this.imports = imports;
    }

    /**
     * The file descriptor of {@code text}, which imports no file but Google's well-known types.
     *
     * @throws IllegalArgumentException if the text does not parse, imports another file, or does not link (an
     *     unknown type name)
     */
    public static Descriptors.FileDescriptor parse(String text) {
        return parse(text, Map.of());
    }

    /**
     * The file descriptor of {@code text}, whose imports are Google's well-known types and the files of
     * {@code references} (the {@code .proto} text of each by its import path, a file after those it imports).
     *
     * @throws IllegalArgumentException if a text does not parse, imports a file neither well known nor among the
     *     references, or does not link (an unknown type name)
     */
    public static Descriptors.FileDescriptor parse(String text, Map<String, String> references) {
        Map<String, Descriptors.FileDescriptor> files = new HashMap<>();
        for (Map.Entry<String, String> reference : references.entrySet()) {
            try {
                files.put(reference.getKey(), new ProtoSchemaParser(reference.getValue(), files).file(reference.getKey()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("its reference " + reference.getKey() + ": " + e.getMessage(), e);
            }
        }
        return new ProtoSchemaParser(text, files).file(FILE_NAME);
    }

    private Descriptors.FileDescriptor file(String name) {
        FileDescriptorProto.Builder file = FileDescriptorProto.newBuilder().setName(name);
        List<Descriptors.FileDescriptor> dependencies = new ArrayList<>();
        while (next < tokens.size()) {
            String t = take();
            switch (t) {
                case "syntax" -> {
                    expect("=");
                    String syntax = unquote(take());
                    expect(";");
                    proto3 = syntax.equals("proto3");
                    file.setSyntax(syntax);
                }
                case "edition" -> throw new IllegalArgumentException("Protobuf editions are not supported");
                case "package" -> {
                    file.setPackage(take());
                    expect(";");
                }
                case "import" -> {
                    String path = take();
                    if (path.equals("public") || path.equals("weak")) {
                        path = take();
                    }
                    path = unquote(path);
                    expect(";");
                    Descriptors.FileDescriptor known = WELL_KNOWN.containsKey(path) ? WELL_KNOWN.get(path) : imports.get(path);
                    if (known == null) {
                        throw new IllegalArgumentException("it imports " + path + ", which is neither a well-known type nor among its schema references "
                                + (imports.isEmpty() ? "(it has none)" : imports.keySet()));
                    }
                    file.addDependency(path);
                    dependencies.add(known);
                }
                case "option" -> skipStatement();
                case "message" -> file.addMessageType(message(take()));
                case "enum" -> file.addEnumType(enumType(take()));
                case "service", "extend" -> skipBlock();
                case ";" -> { }
                default -> throw unexpected(t);
            }
        }
        try {
            return Descriptors.FileDescriptor.buildFrom(file.build(), dependencies.toArray(new Descriptors.FileDescriptor[0]));
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private DescriptorProto message(String name) {
        DescriptorProto.Builder message = DescriptorProto.newBuilder().setName(name);
        expect("{");
        while (!peek().equals("}")) {
            String t = take();
            switch (t) {
                case "message" -> message.addNestedType(message(take()));
                case "enum" -> message.addEnumType(enumType(take()));
                case "option", "reserved", "extensions" -> skipStatement();
                case "extend" -> skipBlock();
                case "oneof" -> {
                    int index = message.getOneofDeclCount();
                    message.addOneofDecl(OneofDescriptorProto.newBuilder().setName(take()));
                    expect("{");
                    while (!peek().equals("}")) {
                        String f = take();
                        if (f.equals("option")) {
                            skipStatement();
                        } else if (!f.equals(";")) {
                            message.addField(field(f, FieldDescriptorProto.Label.LABEL_OPTIONAL).setOneofIndex(index));
                        }
                    }
                    expect("}");
                }
                case "map" -> {
                    expect("<");
                    String key = take();
                    expect(",");
                    String value = take();
                    expect(">");
                    String field = take();
                    String entry = camel(field) + "Entry";
                    message.addNestedType(DescriptorProto.newBuilder().setName(entry)
                            .setOptions(MessageOptions.newBuilder().setMapEntry(true))
                            .addField(typed(FieldDescriptorProto.newBuilder().setName("key").setNumber(1)
                                    .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL), key))
                            .addField(typed(FieldDescriptorProto.newBuilder().setName("value").setNumber(2)
                                    .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL), value)));
                    expect("=");
                    int number = Integer.parseInt(take());
                    skipOptions();
                    expect(";");
                    message.addField(FieldDescriptorProto.newBuilder().setName(field).setNumber(number)
                            .setLabel(FieldDescriptorProto.Label.LABEL_REPEATED).setTypeName(entry));
                }
                case ";" -> { }
                case "repeated" -> message.addField(field(take(), FieldDescriptorProto.Label.LABEL_REPEATED));
                case "required" -> message.addField(field(take(), FieldDescriptorProto.Label.LABEL_REQUIRED));
                // proto3 'optional' (explicit presence) is read as a plain field: the same bytes decode
                case "optional" -> message.addField(field(take(), FieldDescriptorProto.Label.LABEL_OPTIONAL));
                default -> message.addField(field(t, FieldDescriptorProto.Label.LABEL_OPTIONAL));
            }
        }
        expect("}");
        return message.build();
    }

    /** A field whose type ({@code type}) was just read, up to its ';'. */
    private FieldDescriptorProto.Builder field(String type, FieldDescriptorProto.Label label) {
        String name = take();
        expect("=");
        int number = Integer.parseInt(take());
        skipOptions();
        expect(";");
        return typed(FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setLabel(label), type);
    }

    private static FieldDescriptorProto.Builder typed(FieldDescriptorProto.Builder field, String type) {
        FieldDescriptorProto.Type scalar = SCALARS.get(type);
        return scalar != null ? field.setType(scalar) : field.setTypeName(type);
    }

    private EnumDescriptorProto enumType(String name) {
        EnumDescriptorProto.Builder e = EnumDescriptorProto.newBuilder().setName(name);
        expect("{");
        while (!peek().equals("}")) {
            String t = take();
            if (t.equals("option") || t.equals("reserved")) {
                skipStatement();
            } else if (!t.equals(";")) {
                expect("=");
                String number = take();
                if (number.equals("-")) {
                    number = "-" + take();
                }
                skipOptions();
                expect(";");
                e.addValue(EnumValueDescriptorProto.newBuilder().setName(t).setNumber(Integer.decode(number)));
            }
        }
        expect("}");
        if (proto3 && e.getValueCount() > 0 && e.getValue(0).getNumber() != 0) {
            throw new IllegalArgumentException("enum " + name + "'s first value is not 0");
        }
        return e.build();
    }

    private void skipOptions() {
        if (peek().equals("[")) {
            int depth = 0;
            do {
                String t = take();
                depth += t.equals("[") ? 1 : t.equals("]") ? -1 : 0;
            } while (depth > 0);
        }
    }

    private void skipStatement() {
        int depth = 0;
        while (true) {
            String t = take();
            depth += t.equals("{") ? 1 : t.equals("}") ? -1 : 0;
            if (depth == 0 && (t.equals(";") || t.equals("}"))) {
                return;
            }
        }
    }

    private void skipBlock() {
        while (!take().equals("{")) {
            // the block's name
        }
        int depth = 1;
        while (depth > 0) {
            String t = take();
            depth += t.equals("{") ? 1 : t.equals("}") ? -1 : 0;
        }
    }

    private String peek() {
        if (next >= tokens.size()) {
            throw new IllegalArgumentException("the .proto text ends early");
        }
        return tokens.get(next);
    }

    private String take() {
        String t = peek();
        next++;
        return t;
    }

    private void expect(String token) {
        String t = take();
        if (!t.equals(token)) {
            throw new IllegalArgumentException("'" + token + "' expected in the .proto text, found '" + t + "'");
        }
    }

    private static IllegalArgumentException unexpected(String token) {
        return new IllegalArgumentException("unexpected '" + token + "' in the .proto text");
    }

    private static String unquote(String s) {
        return s.length() >= 2 && (s.startsWith("\"") || s.startsWith("'")) ? s.substring(1, s.length() - 1) : s;
    }

    /** {@code line_items} → {@code LineItems}, as protoc names a map field's entry message. */
    private static String camel(String field) {
        StringBuilder out = new StringBuilder();
        boolean upper = true;
        for (char c : field.toCharArray()) {
            if (c == '_') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }

    private static List<String> tokenize(String text) {
        List<String> tokens = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (text.startsWith("//", i)) {
                int end = text.indexOf('\n', i);
                i = end < 0 ? text.length() : end;
            } else if (text.startsWith("/*", i)) {
                int end = text.indexOf("*/", i + 2);
                i = end < 0 ? text.length() : end + 2;
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < text.length() && text.charAt(end) != c) {
                    end += text.charAt(end) == '\\' ? 2 : 1;
                }
                tokens.add(text.substring(i, Math.min(end + 1, text.length())));
                i = end + 1;
            } else if (Character.isLetterOrDigit(c) || c == '_' || c == '.') {
                int end = i;
                while (end < text.length() && (Character.isLetterOrDigit(text.charAt(end)) || "_.+".indexOf(text.charAt(end)) >= 0
                        || (text.charAt(end) == '-' && end > i && "eE".indexOf(text.charAt(end - 1)) >= 0))) {
                    end++;
                }
                tokens.add(text.substring(i, end));
                i = end;
            } else {
                tokens.add(String.valueOf(c));
                i++;
            }
        }
        return tokens;
    }
}
