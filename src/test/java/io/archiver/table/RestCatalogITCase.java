package io.archiver.table;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.record.ArchiveRecord;
import io.archiver.testutils.Cli;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.RestCatalogServer;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TableContents;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The archive's table in a REST catalog (Apache Iceberg's own REST catalog server, a process of its own): through a
 * kill of the TaskManagers, then `table compact` and `audit` through the same catalog, the table equals the
 * read_committed truth (Iceberg's reader, DuckDB) and lists exactly the archive's files as its readers see them.
 */
@KillsTaskManagers
class RestCatalogITCase {

    @Test
    void theTableInARestCatalogEqualsTheReadCommittedTruthThroughAKillAndACompaction() throws Exception {
        try (RestCatalogServer catalog = RestCatalogServer.start()) {
            Map<String, String> settings = new HashMap<>(TableContents.jobSettings(java.nio.file.Path.of("unused.db"), SinkLayout.PER_PARTITION));
            settings.put("table.catalog.type", "rest");
            settings.put("table.catalog.uri", catalog.uri());
            try (FaultScenario s = FaultScenario.start("table-rest", 6_000, 1_000, settings)) {
                ArchiverConfig config = s.config();
                s.awaitArchived(2_000);
                SharedStack.get().killAndReplaceTaskManagers();
                List<ArchiveRecord> truth = TableContents.drainWithTable(s);
                TableContents.assertEqualsTruth(config, s.topic(), truth);

                Cli.Result compact = Cli.run(config, "table", "compact");
                assertThat(compact.code()).as(compact.out()).isZero();
                assertThat(compact.out()).containsPattern("compacted [1-9]\\d* files");
                TableContents.assertEqualsTruth(config, s.topic(), truth);
                assertThat(Cli.run(config, "audit").out()).as("audit through the REST catalog").contains("Verdict: CLEAN")
                        .containsPattern("[1-9]\\d* files replaced by a compaction");
            }
        }
    }
}
