package io.archiver.testutils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A custom resource's schema as its CRD declares it (openAPIV3Schema, recorded under {@code src/test/resources/kubernetes/}
 * with where it comes from), and what a manifest's {@code spec} breaks of it, as the API server would see it: a
 * field the schema does not know (the server drops it without a word, or refuses it), a value of the wrong type,
 * one outside its enum, a required field missing.
 */
public final class CrdSchema {

    private final String apiVersion;
    private final String source;
    private final JsonNode spec;

    private CrdSchema(String apiVersion, String source, JsonNode spec) {
        this.apiVersion = apiVersion;
        this.source = source;
        this.spec = spec;
    }

    /** The recorded schema of {@code resource} (e.g. {@code kubernetes/flinkdeployments-crd-1.13.0.json}). */
    public static CrdSchema load(String resource) throws IOException {
        try (InputStream in = CrdSchema.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IOException("No recorded CRD " + resource);
            }
            JsonNode crd = new ObjectMapper().readTree(in);
            String group = crd.path("crd").asText().substring(crd.path("crd").asText().indexOf('.') + 1);
            return new CrdSchema(group + "/" + crd.path("version").asText(), crd.path("source").asText(),
                    crd.path("openAPIV3Schema").path("properties").path("spec"));
        }
    }

    /** The {@code apiVersion} of manifests of this schema, e.g. {@code flink.apache.org/v1beta1}. */
    public String apiVersion() {
        return apiVersion;
    }

    public String source() {
        return source;
    }

    /** What the manifest's {@code spec} breaks of the schema, one line each with the field's path; empty when nothing. */
    public List<String> violations(Object manifestSpec) {
        List<String> found = new ArrayList<>();
        check(spec, manifestSpec, "spec", found);
        return found;
    }

    private static void check(JsonNode schema, Object value, String path, List<String> found) {
        if (schema.path("x-kubernetes-int-or-string").asBoolean()) {
            if (!(value instanceof String || value instanceof Integer || value instanceof Long)) {
                found.add(path + ": " + describe(value) + ", not an integer or a string");
            }
            return;
        }
        String type = schema.path("type").asText("");
        switch (type) {
            case "object" -> checkObject(schema, value, path, found);
            case "array" -> {
                if (!(value instanceof List<?> list)) {
                    found.add(path + ": " + describe(value) + ", not a list");
                    return;
                }
                for (int i = 0; i < list.size(); i++) {
                    check(schema.path("items"), list.get(i), path + "[" + i + "]", found);
                }
            }
            case "string" -> checkScalar(schema, value, value instanceof String, "a string", path, found);
            case "integer" -> checkScalar(schema, value, value instanceof Integer || value instanceof Long, "an integer", path, found);
            case "number" -> checkScalar(schema, value, value instanceof Number, "a number", path, found);
            case "boolean" -> checkScalar(schema, value, value instanceof Boolean, "a boolean", path, found);
            default -> {
                if (schema.has("properties")) {
                    checkObject(schema, value, path, found);
                }
                // no type and no properties: anything (x-kubernetes-preserve-unknown-fields)
            }
        }
    }

    private static void checkObject(JsonNode schema, Object value, String path, List<String> found) {
        if (!(value instanceof Map<?, ?> map)) {
            found.add(path + ": " + describe(value) + ", not an object");
            return;
        }
        JsonNode properties = schema.path("properties");
        JsonNode additional = schema.path("additionalProperties");
        boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean();
        for (Map.Entry<?, ?> field : map.entrySet()) {
            String name = String.valueOf(field.getKey());
            String at = path + "." + name;
            if (properties.has(name)) {
                check(properties.get(name), field.getValue(), at, found);
            } else if (additional.isObject()) {
                check(additional, field.getValue(), at, found);
            } else if (!preserve && (properties.size() > 0 || additional.isBoolean())) {
                found.add(at + ": a field the CRD does not know");
            }
        }
        for (JsonNode required : schema.path("required")) {
            if (!map.containsKey(required.asText())) {
                found.add(path + "." + required.asText() + ": required, missing");
            }
        }
    }

    private static void checkScalar(JsonNode schema, Object value, boolean typed, String what, String path, List<String> found) {
        if (!typed) {
            found.add(path + ": " + describe(value) + ", not " + what);
            return;
        }
        JsonNode allowed = schema.path("enum");
        if (allowed.isArray() && allowed.size() > 0) {
            List<String> names = new ArrayList<>();
            allowed.forEach(e -> names.add(e.asText()));
            if (!names.contains(String.valueOf(value))) {
                found.add(path + ": " + describe(value) + ", not one of " + names);
            }
        }
    }

    private static String describe(Object value) {
        return value == null ? "null" : value.getClass().getSimpleName() + " '" + value + "'";
    }
}
