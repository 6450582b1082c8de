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
}
