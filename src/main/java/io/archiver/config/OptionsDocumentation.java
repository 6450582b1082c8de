package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.description.HtmlFormatter;

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
                    .append(option.hasDefaultValue() ? "`" + render(option.defaultValue()) + "`" : "")
                    .append(" | ").append(accepted(option))
                    .append(" | ").append(new HtmlFormatter().format(option.description()).replace("|", "\\|"))
                    .append(" |\n");
        }
        sb.append("| `").append(ArchiverOptions.KAFKA_PROPERTIES_PREFIX).append("*` | | any | ")
                .append("Kafka consumer properties, passed as they are (e.g. `kafka.properties.security.protocol: SASL_SSL`);"
                        + " `isolation.level` is `read_committed` unless set (`read_uncommitted` also archives aborted transactions). |\n");
        sb.append("| `").append(ArchiverOptions.FLINK_PREFIX).append("*` | | any | ")
                .append("Flink settings of the job and of the local Flink (e.g. `flink.s3.endpoint`, `flink.state.backend.type`). |\n");
        return sb.toString();
    }

    /** What values an option accepts, for error messages and documentation. */
    static String accepted(ConfigOption<?> option) {
        Object def = option.hasDefaultValue() ? option.defaultValue() : null;
        if (def instanceof Enum) {
            return enumValues((Enum<?>) def);
        }
        if (def instanceof Duration) {
            return "a duration (e.g. 30 s, 5 min)";
        }
        if (def instanceof MemorySize) {
            return "a size (e.g. 64 mb)";
        }
        if (def instanceof Integer) {
            return "an integer";
        }
        return "a string";
    }

    private static String enumValues(Enum<?> def) {
        return Arrays.stream(def.getDeclaringClass().getEnumConstants())
                .map(Object::toString)
                .collect(Collectors.joining(", "));
    }

    private static String render(Object value) {
        if (value instanceof Duration) {
            return org.apache.flink.util.TimeUtils.formatWithHighestUnit((Duration) value);
        }
        return String.valueOf(value);
    }
}
