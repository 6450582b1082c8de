package io.archiver.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The option table of docs/configuration.md is generated from the option definitions; this keeps it from drifting. */
class OptionsDocumentationTest {

    @Test
    void configurationReferenceCarriesTheGeneratedOptionTable() throws Exception {
        String reference = Files.readString(Path.of("docs", "configuration.md"));
        assertThat(reference)
                .as("docs/configuration.md's option table is stale: replace it with the output of the 'options' command")
                .contains(OptionsDocumentation.markdown());
    }

    @Test
    void everyOptionIsDocumented() {
        String table = OptionsDocumentation.markdown();
        for (var option : ArchiverOptions.all()) {
            assertThat(table).contains("`" + option.key() + "`");
            assertThat(option.description().toString()).isNotBlank();
        }
    }

    @Test
    void everyOptionSaysWhatItAcceptsFromItsDeclaredTypeNotItsDefault() {
        assertThat(OptionsDocumentation.accepted(SourceOptions.RESUME_FROM_ARCHIVE)).isEqualTo("true or false");
        assertThat(OptionsDocumentation.accepted(FencingOptions.FENCING_LEASE_TIMEOUT)).startsWith("a duration");
        for (var option : ArchiverOptions.all()) {
            Class<?> type = OptionsDocumentation.declaredType(option);
            if (type != String.class) {
                assertThat(OptionsDocumentation.accepted(option)).as(option.key()).isNotEqualTo("a string");
            }
        }
    }

    @Test
    void aValueOfTheWrongTypeIsRefusedNamingWhatTheOptionAccepts() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ArchiverConfig.of(java.util.Map.of(
                        "kafka.bootstrap.servers", "k:9092", "kafka.topics", "t", "sink.path", "s3://b/p",
                        "resume.from-archive", "yes please")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 'yes please' for 'resume.from-archive': accepted true or false.");
    }
}
