package io.archiver.table;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.job.Preflight;
import io.archiver.job.Preflight.PreflightException;
import io.archiver.record.ArchiveRecord;
import io.archiver.testutils.Await;
import io.archiver.testutils.CapturedLogs;
import io.archiver.testutils.Cli;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.PostgresServer;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TableContents;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The archive's table in a JDBC catalog on PostgreSQL (a real server, the catalog of a cluster), its password from a
 * file through the config providers: a wrong password is refused before the job starts, naming the setting and never
 * the password; through a kill of the TaskManagers and a `table compact` that commits while the job commits too (both
 * through PostgreSQL's conditional update of the table's metadata pointer), the table equals the read_committed truth
 * (Iceberg's reader, DuckDB) and audit through the same catalog finds it clean.
 */
@KillsTaskManagers
class PostgresCatalogITCase {

    private static final String PASSWORD = "catalog-secret-7Qx";

    @TempDir
    static Path secrets;

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = PostgresServer.start(PASSWORD);
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aWrongCatalogPasswordIsRefusedBeforeTheJobStartsNamingTheSettingNeverThePassword() throws Exception {
        String topic = SharedStack.uniqueName("table-pg-preflight");
        SharedStack.get().kafka().createTopic(topic, 1);
        Map<String, String> settings = new HashMap<>(SharedStack.get().jobSettings(topic, topic));
        settings.putAll(catalogSettings("wrong-password-9Zt"));
        ArchiverConfig config = ArchiverConfig.of(settings);
        Preflight preflight = new Preflight(Duration.ofSeconds(20), Configuration.fromMap(SharedStack.get().s3().flinkSettings()));
        try (CapturedLogs logs = CapturedLogs.start()) {
            assertThatThrownBy(() -> preflight.check(config))
                    .isInstanceOf(PreflightException.class)
                    .hasMessageContaining("Cannot use the Iceberg catalog at '" + postgres.jdbcUrl() + "'")
                    .hasMessageContaining("password authentication failed for user \"" + PostgresServer.USER + "\"")
                    .hasMessageContaining("table.catalog.password")
                    .hasMessageNotContaining("wrong-password-9Zt");
            assertThat(logs.containing("wrong-password-9Zt")).as("log lines with the password").isEmpty();
        }
    }

    @Test
    void theTableInAPostgresCatalogEqualsTheReadCommittedTruthThroughAKillAndACompactionBesideTheJob() throws Exception {
        Map<String, String> settings = new HashMap<>(TableContents.jobSettings(Path.of("unused.db"), SinkLayout.PER_TOPIC));
        settings.putAll(catalogSettings(PASSWORD));
        try (FaultScenario s = FaultScenario.start("table-pg", 6_000, 1_000, settings)) {
            ArchiverConfig config = s.config();
            s.awaitArchived(1_500);
            SharedStack.get().killAndReplaceTaskManagers();
            s.awaitArchived(3_000);
            Await.until("the table holds records committed after the kill", Duration.ofMinutes(1),
                    () -> TableContents.records(config, s.topic()) >= 3_000, () -> "table " + TableContents.records(config, s.topic()));
            Cli.Result compact = Cli.run(config, "table", "compact");
            assertThat(compact.code()).as(compact.out()).isZero();
            assertThat(compact.out()).containsPattern("compacted [1-9]\\d* files");

            List<ArchiveRecord> truth = TableContents.drainIntoTable(s);
            TableContents.assertEqualsTruth(config, s.topic(), truth);
            assertThat(TableContents.appendingJobs(config, s.topic())).as("jobs that committed to the table").contains("compact");
            assertThat(Cli.run(config, "audit").out()).as("audit through the PostgreSQL catalog").contains("Verdict: CLEAN")
                    .containsPattern("[1-9]\\d* files replaced by a compaction");
        }
    }

    /** The catalog on PostgreSQL, its user's password read from a file by Kafka's file config provider. */
    private static Map<String, String> catalogSettings(String password) throws Exception {
        Path file = Files.createTempFile(secrets, "catalog", ".properties");
        Files.writeString(file, "password=" + password + "\n");
        return Map.of(
                "table.format", "iceberg",
                "table.catalog.uri", postgres.jdbcUrl(),
                "table.catalog.user", PostgresServer.USER,
                "table.catalog.password", "${file:" + file + ":password}",
                "kafka.properties.config.providers", "file",
                "kafka.properties.config.providers.file.class", FileConfigProvider.class.getName());
    }
}
