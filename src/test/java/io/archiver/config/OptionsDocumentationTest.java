package io.archiver.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** README's option table is generated from the option definitions; this keeps it from drifting. */
class OptionsDocumentationTest {

    @Test
    void readmeCarriesTheGeneratedOptionTable() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        assertThat(readme)
                .as("README's option table is stale: replace it with the output of the 'options' command")
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
