package io.archiver.registry;

import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shape of a JSON Schema as typed columns see it: objects with declared properties, arrays, maps (objects
 * with only {@code additionalProperties}), strings, integers, numbers, booleans, and {@link Kind#JSON} for
 * everything a column cannot type (several types, {@code oneOf}/{@code anyOf}, no type at all), kept as JSON
 * text. References are resolved: local ones ({@code #/definitions/…}, {@code #/$defs/…}) in their document, others
 * ({@code address.json}, {@code address.json#/$defs/…}) in the schema the registry's schema references name so
 * (the reference's name as the {@code $ref} gives it, or as it resolves against the {@code $id} of the schema
 * that refers); {@code "null"} among a property's types only makes it optional, which every property is (JSON
 * documents leave fields out).
 */
public record JsonSchemaType(Kind kind, Map<String, JsonSchemaType> properties, JsonSchemaType items) {

    /** What a JSON value of the schema is. */
    public enum Kind { OBJECT, ARRAY, MAP, STRING, INTEGER, NUMBER, BOOLEAN, JSON }

    private static final JsonSchemaType JSON = new JsonSchemaType(Kind.JSON, Map.of(), null);

    /**
     * The shape of {@code schema}, which refers to no other schema.
     *
     * @throws IllegalArgumentException if a reference is not local or does not resolve, or the schema is recursive
     */
    public static JsonSchemaType of(JsonNode schema) {
        return of(schema, Map.of());
    }

    /**
     * The shape of {@code schema}, whose references to other schemas resolve to {@code references} (each schema
     * by its reference name).
     *
     * @throws IllegalArgumentException if a reference does not resolve, or the schema is recursive
     */
    public static JsonSchemaType of(JsonNode schema, Map<String, JsonNode> references) {
        return new Shapes(references).of(schema, schema);
    }

    /** One schema's shapes: its references, and the references being resolved (to refuse recursion). */
    private static final class Shapes {

        private final Map<String, JsonNode> references;
        private final Map<JsonNode, Boolean> open = new IdentityHashMap<>();

        Shapes(Map<String, JsonNode> references) {
            this.references = references;
        }

        private JsonSchemaType of(JsonNode node, JsonNode root) {
            if (node == null || !node.isObject()) {
                return JSON;
            }
            if (node.has("$ref")) {
                String ref = node.get("$ref").asText();
                int hash = ref.indexOf('#');
                JsonNode document = hash == 0 ? root : referenced(hash < 0 ? ref : ref.substring(0, hash), root);
                JsonNode target = hash < 0 ? document : document.at(ref.substring(hash + 1));
                if (target.isMissingNode()) {
                    throw new IllegalArgumentException("reference " + ref + " does not resolve");
                }
                if (open.put(target, Boolean.TRUE) != null) {
                    throw new IllegalArgumentException("reference " + ref + " is recursive: columns cannot hold it");
                }
                JsonSchemaType resolved = of(target, document);
                open.remove(target);
                return resolved;
            }
            String type = type(node.get("type"));
            if (type == null) {
                return node.has("properties") ? object(node, root) : JSON;
            }
            return switch (type) {
                case "object" -> node.has("properties") ? object(node, root)
                        : node.path("additionalProperties").isObject()
                                ? new JsonSchemaType(Kind.MAP, Map.of(), of(node.get("additionalProperties"), root)) : JSON;
                case "array" -> node.path("items").isObject() ? new JsonSchemaType(Kind.ARRAY, Map.of(), of(node.get("items"), root)) : JSON;
                case "string" -> new JsonSchemaType(Kind.STRING, Map.of(), null);
                case "integer" -> new JsonSchemaType(Kind.INTEGER, Map.of(), null);
                case "number" -> new JsonSchemaType(Kind.NUMBER, Map.of(), null);
                case "boolean" -> new JsonSchemaType(Kind.BOOLEAN, Map.of(), null);
                default -> JSON;
            };
        }

        private JsonSchemaType object(JsonNode node, JsonNode root) {
            Map<String, JsonSchemaType> properties = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.get("properties").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> p = it.next();
                properties.put(p.getKey(), of(p.getValue(), root));
            }
            return properties.isEmpty() ? JSON : new JsonSchemaType(Kind.OBJECT, properties, null);
        }

        /** The schema {@code uri} names among the references: by name, or resolved against the referring schema's {@code $id}. */
        private JsonNode referenced(String uri, JsonNode root) {
            JsonNode named = references.get(uri);
            if (named == null && root.path("$id").isTextual()) {
                try {
                    URI base = new URI(root.get("$id").asText());
                    String absolute = base.resolve(uri).toString();
                    for (Map.Entry<String, JsonNode> reference : references.entrySet()) {
                        if (base.resolve(reference.getKey()).toString().equals(absolute)) {
                            named = reference.getValue();
                        }
                    }
                } catch (URISyntaxException | IllegalArgumentException e) {
                    // not a URI: only the names themselves can match
                }
            }
            if (named == null) {
                throw new IllegalArgumentException("reference " + uri + " is neither local nor among the schema's references "
                        + (references.isEmpty() ? "(it has none)" : references.keySet()));
            }
            return named;
        }
    }

    /** The one non-null type of {@code type} (a string or an array of them), or null when none or several. */
    private static String type(JsonNode type) {
        if (type == null) {
            return null;
        }
        if (type.isTextual()) {
            return type.asText();
        }
        List<String> types = new ArrayList<>();
        type.forEach(t -> {
            if (!t.asText().equals("null")) {
                types.add(t.asText());
            }
        });
        return types.size() == 1 ? types.get(0) : "several";
    }

    /** Why {@code value} does not fit this shape (naming the field, never a value), or null when it fits. */
    public String mismatch(JsonNode value) {
        return mismatch(value, "");
    }

    private String mismatch(JsonNode value, String path) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return null;
        }
        switch (kind) {
            case OBJECT -> {
                if (!value.isObject()) {
                    return expected(path, "an object", value);
                }
                for (Map.Entry<String, JsonSchemaType> p : properties.entrySet()) {
                    String problem = p.getValue().mismatch(value.get(p.getKey()), path + "." + p.getKey());
                    if (problem != null) {
                        return problem;
                    }
                }
                return null;
            }
            case ARRAY -> {
                if (!value.isArray()) {
                    return expected(path, "an array", value);
                }
                for (int i = 0; i < value.size(); i++) {
                    String problem = items.mismatch(value.get(i), path + "[" + i + "]");
                    if (problem != null) {
                        return problem;
                    }
                }
                return null;
            }
            case MAP -> {
                if (!value.isObject()) {
                    return expected(path, "an object", value);
                }
                for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    String problem = items.mismatch(e.getValue(), path + "[key]");
                    if (problem != null) {
                        return problem;
                    }
                }
                return null;
            }
            case STRING -> {
                return value.isTextual() ? null : expected(path, "a string", value);
            }
            case INTEGER -> {
                return value.isIntegralNumber() && value.canConvertToLong() ? null : expected(path, "an integer (64 bits)", value);
            }
            case NUMBER -> {
                return value.isNumber() ? null : expected(path, "a number", value);
            }
            case BOOLEAN -> {
                return value.isBoolean() ? null : expected(path, "a boolean", value);
            }
            default -> {
                return null;
            }
        }
    }

    private static String expected(String path, String what, JsonNode found) {
        return "field '" + (path.isEmpty() ? "(the value)" : path.substring(1)) + "' is " + found.getNodeType().name().toLowerCase() + ", its schema says " + what;
    }

    /**
     * True when values of {@code writer} fit this shape: every property both declare has the same kind here and
     * there (recursively); properties only one of them declares do not matter (absent is null).
     */
    public boolean reads(JsonSchemaType writer) {
        if (kind == Kind.JSON) {
            return true;
        }
        if (kind != writer.kind) {
            return false;
        }
        return switch (kind) {
            case OBJECT -> properties.entrySet().stream().allMatch(p ->
                    !writer.properties.containsKey(p.getKey()) || p.getValue().reads(writer.properties.get(p.getKey())));
            case ARRAY, MAP -> items.reads(writer.items);
            default -> true;
        };
    }
}
