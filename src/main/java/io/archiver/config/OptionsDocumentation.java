package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.description.HtmlFormatter;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;

/** Renders {@link ArchiverOptions} as the Markdown table docs/configuration.md carries (and the 'options' command prints). */
public final class OptionsDocumentation {

    private OptionsDocumentation() {}

    public static String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| key | default | accepted | description |\n");
        sb.append("|---|---|---|---|\n");
        for (ConfigOption<?> option : ArchiverOptions.all()) {
            sb.append("| `").append(option.key()).append("` | ")
                    .append(option.hasDefaultValue() && !render(option.defaultValue()).isEmpty() ? "`" + render(option.defaultValue()) + "`" : "")
                    .append(" | ").append(accepted(option))
                    .append(" | ").append(new HtmlFormatter().format(option.description()).replace("|", "\\|"))
                    .append(" |\n");
        }
        sb.append("| `").append(SourceOptions.KAFKA_PROPERTIES_PREFIX).append("*` | | any | ")
                .append("Kafka consumer properties, passed as they are (e.g. `kafka.properties.security.protocol: SASL_SSL`);"
                        + " `isolation.level` is `read_committed` unless set (`read_uncommitted` also archives aborted transactions). |\n");
        sb.append("| `").append(JobOptions.FLINK_PREFIX).append("*` | | any | ")
                .append("Flink settings of the job and of the local Flink (e.g. `flink.s3.endpoint`, `flink.state.backend.type`). |\n");
        return sb.toString();
    }

    /** What values an option accepts, from its declared type, for error messages and documentation. */
    static String accepted(ConfigOption<?> option) {
        if (option == SinkOptions.SINK_FORMAT) {
            return FormatAreas.names();
        }
        Class<?> type = declaredType(option);
        if (type.isEnum()) {
            return Arrays.stream(type.getEnumConstants()).map(Object::toString).collect(Collectors.joining(", "));
        }
        if (type == Boolean.class) {
            return "true or false";
        }
        if (type == Duration.class) {
            return "a duration (e.g. 30 s, 5 min)";
        }
        if (type == MemorySize.class) {
            return "a size (e.g. 64 mb)";
        }
        if (type == Integer.class || type == Long.class) {
            return "an integer";
        }
        return "a string";
    }

    /**
     * The type an option is declared with: the type argument of its {@code ConfigOption<T>} field in the class of
     * its area ({@link ArchiverOptions#AREAS}; Flink keeps the type of an option to itself).
     */
    static Class<?> declaredType(ConfigOption<?> option) {
        for (Class<?> area : ArchiverOptions.AREAS) {
            for (Field field : area.getFields()) {
                try {
                    if (Modifier.isStatic(field.getModifiers()) && field.get(null) == option
                            && field.getGenericType() instanceof ParameterizedType declared) {
                        return (Class<?>) declared.getActualTypeArguments()[0];
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new IllegalArgumentException("Not an option of ArchiverOptions: " + option.key());
    }

    private static String render(Object value) {
        if (value instanceof Duration) {
            return org.apache.flink.util.TimeUtils.formatWithHighestUnit((Duration) value);
        }
        return String.valueOf(value);
    }
}
