package io.archiver.format;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.ArchiverOptions;
import io.archiver.config.ConfigException;
import io.archiver.config.FormatAreas;

import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** File formats are plug-ins found through their services file, each owning its options; sink.format resolves by their names. */
class FileFormatsTest {

    @Test
    void theBuildsFormatsAreFoundThroughTheirServicesFileAndEachOwnsItsOptions() {
        assertThat(FormatAreas.all()).extracting(f -> f.name()).containsExactly("parquet", "jsonl");
        for (var format : FormatAreas.all()) {
            assertThat(format).isInstanceOf(FileFormat.class);
            assertThat(format.options()).isNotEmpty().allSatisfy(o -> assertThat(o.key()).startsWith("sink." + format.name() + "."));
            assertThat(ArchiverOptions.all()).as("the catalog holds the format's options").containsAll(format.options());
        }
        assertThat(ArchiverOptions.all().stream().map(ConfigOption::key).filter(k -> k.startsWith("sink.parquet.") || k.startsWith("sink.jsonl.")))
                .as("no format option is declared outside its format")
                .hasSize(FormatAreas.all().stream().mapToInt(f -> f.options().size()).sum());
    }

    @Test
    void sinkFormatResolvesByNameAndAnUnknownNameListsTheFormats() {
        Map<String, String> settings = Map.of("kafka.bootstrap.servers", "k:9092", "kafka.topics", "t", "sink.path", "s3://b/p");
        assertThat(FileFormats.configured(ArchiverConfig.of(with(settings, "sink.format", "jsonl")))).isSameAs(FileFormats.named("jsonl"));
        assertThatThrownBy(() -> ArchiverConfig.of(with(settings, "sink.format", "avro")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 'avro' for 'sink.format': accepted parquet, jsonl.");
        assertThat(FileFormats.ofFile("part-0-1.jsonl.gz")).contains(FileFormats.named("jsonl"));
    }

    private static Map<String, String> with(Map<String, String> settings, String key, String value) {
        Map<String, String> m = new java.util.HashMap<>(settings);
        m.put(key, value);
        return m;
    }
}
