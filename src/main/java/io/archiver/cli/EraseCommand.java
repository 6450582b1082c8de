package io.archiver.cli;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ErasureOptions;
import io.archiver.config.SecretReferences;
import io.archiver.erase.ArchiveEraser;
import io.archiver.erase.ErasureLog;
import io.archiver.erase.ErasurePlan;
import io.archiver.erase.ErasureRequest;
import io.archiver.fencing.ArchiveLease;
import io.archiver.format.parquet.ParquetOptions;
import io.archiver.job.BatchWork;
import io.archiver.job.ClusterJobs;
import io.archiver.job.JobLauncher;
import io.archiver.job.JobSettings;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Erases the records of one or more keys from the archive (a right-to-erasure request): dry run unless
 * {@code --apply}, which records the erasure in the archive's erasure log, then rewrites each file holding such records
 * without them. Exits 0 when everything found was erased (or, dry, listed; also when nothing was found), 1 when a file
 * could not be rewritten (running it again finishes the erasure), 2 on a wrong request or configuration.
 */
@Command(name = "erase", mixinStandardHelpOptions = true,
        description = "Erase the records of keys (or of values of typed columns) from the archive and its dead letters, recorded in the "
                + "erasure log (dry run unless --apply).")
final class EraseCommand implements Callable<Integer> {

    @Option(names = "--key", paramLabel = "TEXT", description = "A key to erase, as text (its UTF-8 bytes). Repeatable.")
    List<String> textKeys = new ArrayList<>();

    @Option(names = "--key-base64", paramLabel = "BASE64", description = "A key to erase, its bytes in base64. Repeatable.")
    List<String> base64Keys = new ArrayList<>();

    @Option(names = "--keys-file", paramLabel = "FILE",
            description = "A file of keys to erase, one per line, as text; a line 'base64:<bytes>' gives a key's bytes in base64.")
    Path keysFile;

    @Option(names = "--where", paramLabel = "COLUMN=VALUE",
            description = "Erase the records whose typed column (a field of a decoded key or value, e.g. value_decoded.customer_id=4711) "
                    + "holds the value: for topics whose key is not the person. Repeatable; with keys, records of either go.")
    List<String> where = new ArrayList<>();

    @Option(names = "--topics", paramLabel = "TOPIC,...", split = ",", description = "Only these topics (default: every topic of the archive).")
    List<String> topics = new ArrayList<>();

    @Option(names = "--before", paramLabel = "INSTANT", description = "Only records with a timestamp before this instant, e.g. 2026-11-30T00:00:00Z.")
    String before;

    @Option(names = "--apply", description = "Really erase (default: only say which files and how many records of each partition would go).")
    boolean apply;

    @Option(names = "--log-keys", paramLabel = "HASHED|PLAIN",
            description = "How the erasure log records the keys: HASHED (default; HMAC-SHA256 under erase.key-hash-secret) or PLAIN "
                    + "(as given: the log then holds them).")
    ErasureLog.KeyLogging logKeys = ErasureLog.KeyLogging.HASHED;

    @Mixin ConfigArgs config;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ArchiverConfig cfg = config.load(Map.of());
        ErasureRequest request;
        try {
            request = new ErasureRequest(keys(), where(), new LinkedHashSet<>(topics), before == null ? null : Instant.parse(before));
        } catch (DateTimeParseException e) {
            err.println("error: --before " + before + " is not an instant: give it as 2026-11-30T00:00:00Z.");
            return ArchiverCli.CONFIG_ERROR;
        } catch (IllegalArgumentException | IOException e) {
            err.println("error: " + e.getMessage());
            return ArchiverCli.CONFIG_ERROR;
        }
        String secret = null;
        if (apply) {
            if (logKeys == ErasureLog.KeyLogging.HASHED) {
                secret = secret(cfg);
                if (secret == null) {
                    err.println("error: The erasure log records each key as a keyed hash: set " + ErasureOptions.ERASE_KEY_HASH_SECRET.key()
                            + " (a ${provider:path:key} reference to a secret you keep), or give --log-keys PLAIN to record the keys as given.");
                    return ArchiverCli.CONFIG_ERROR;
                }
            }
        }
        Configuration settings = JobSettings.of(cfg);
        // a failed search or rewrite fails the erasure, which the operator runs again (it finishes what is left)
        settings.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        // batch jobs without checkpoints (the job's interval would make Flink warn that it skips them)
        settings.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        settings.removeConfig(CheckpointingOptions.CHECKPOINTING_INTERVAL);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(settings);
        if (!JobLauncher.isLocal(env) && !env.getConfiguration().getOptional(DeploymentOptions.ATTACHED).orElse(true)) {
            err.println("error: erase runs attached: it records the erasure between its search and its rewrite, which run as batch jobs "
                    + "on the cluster. Submit it without -d (flink run kafka-s3-archiver.jar erase ...).");
            return ArchiverCli.CONFIG_ERROR;
        }
        BatchWork work = BatchWork.of(env);
        try (ArchiveAccess ignored = new ArchiveAccess(cfg)) {
            List<String> archived = ArchiveRoot.of(cfg).topics();
            List<String> unknown = topics.stream().filter(t -> !archived.contains(t)).toList();
            if (!unknown.isEmpty()) {
                // a misspelt topic must not read as "nothing to erase"
                err.println("error: " + (unknown.size() == 1 ? "Topic " : "Topics ") + String.join(", ", unknown) + " not in the archive "
                        + cfg.sinkPath() + " (its topics: " + (archived.isEmpty() ? "none" : String.join(", ", archived)) + ").");
                return ArchiverCli.CONFIG_ERROR;
            }
            if (!JobLauncher.isLocal(env)) {
                out.printf("Searching and rewriting as Flink batch jobs on the cluster (parallelism %d).%n", work.parallelism());
            }
            ArchiveEraser eraser = new ArchiveEraser(cfg, work);
            ErasurePlan plan;
            try (ClusterJobs cluster = new ClusterJobs(env.getConfiguration())) {
                plan = eraser.plan(request, JobLauncher.isLocal(env) ? ArchiveLease.EndedJobs.UNKNOWN : cluster, notice -> {
                    out.println(notice);
                    out.flush();
                });
            }
            ErasurePlan.Search search = plan.search();
            if (!search.columnsNowhere().isEmpty()) {
                err.println("error: No file of " + cfg.sinkPath() + " has the typed column " + String.join(", ", search.columnsNowhere())
                        + (search.untyped().size() == search.files()
                                ? ": its files have no typed columns (JSON Lines, or payloads stored as bytes: --where searches the typed "
                                        + "Parquet columns of record.key.format / record.value.format avro, json-schema, protobuf or schema-registry)"
                                : ": check its path against the files' schema (a field of key_decoded or value_decoded, e.g. DuckDB: "
                                        + "DESCRIBE SELECT * FROM read_parquet('<a file>'))")
                        + ". Nothing erased.");
                return ArchiverCli.CONFIG_ERROR;
            }
            if (search.readWhole() > 0) {
                out.printf("Searched %d files, %d of them record by record: they have no Bloom filter of the key (JSON Lines, Parquet keys "
                        + "decoded into typed columns, or Parquet written without %s: key, which makes the next files searchable through "
                        + "their footers).%n", search.files(), search.readWhole(), ParquetOptions.SINK_PARQUET_BLOOM_FILTER_COLUMNS.key());
            }
            if (!search.untyped().isEmpty()) {
                (apply ? err : out).printf("%s: %d files could not be searched by %s, their payloads not being in typed columns (JSON Lines, "
                        + "dead letters, payloads stored as bytes): records of them holding the value stay. %s%n",
                        apply ? "warning" : "Note", search.untyped().size(), String.join(", ", request.where().keySet()),
                        String.join(", ", search.untyped().subList(0, Math.min(5, search.untyped().size())))
                                + (search.untyped().size() > 5 ? ", …" : ""));
            }
            for (ErasurePlan.FileErasure f : plan.files()) {
                out.printf("%s %s: %s%n", apply ? "Erasing from" : "Would erase from", f.path(), describe(f));
            }
            for (String f : plan.replacedLeft()) {
                out.printf("%s %s: an earlier erasure swapped it out of its table but was cut short before deleting it%n",
                        apply ? "Deleting" : "Would delete", f);
            }
            if (!plan.cutShort().isEmpty()) {
                (apply ? err : out).printf("%s: the last commit of the job was cut short, and these files are not complete yet: %s. The job's "
                        + "next start completes them with every record they hold; start it (or wait until it runs again), then erase.%n",
                        apply ? "error: Not erasing" : "Note", String.join(", ", plan.cutShort()));
                if (apply) {
                    return 1;
                }
            }
            if (!plan.committedSince().isEmpty()) {
                out.printf("Note: %d files of the running job's commit were completed after the search: what this erasure selects in them "
                        + "stays; run erase again to erase it. %s%n", plan.committedSince().size(), String.join(", ", plan.committedSince()));
            }
            if (plan.isEmpty()) {
                out.println("Nothing to erase: no record of " + (request.where().isEmpty() ? request.keys().size() == 1 ? "this key" : "these keys"
                        : "what was asked") + " in " + cfg.sinkPath() + ".");
                return apply && !search.untyped().isEmpty() ? 1 : 0;
            }
            if (!apply) {
                out.printf("Would erase %d records from %s: %s. Run again with --apply to erase them.%n", plan.records(), files(plan.files().size()),
                        counts(plan.recordsByPartition()));
                return 0;
            }
            String id = ErasureLog.newId(Instant.now());
            Instant started = Instant.now();
            ErasureLog log = new ErasureLog(ArchiveRoot.of(cfg));
            log.recordRequest(id, request, plan, logKeys, secret, started, null);
            log.recordPositions(id, plan);
            long erased = eraser.apply(plan, id);
            log.recordRequest(id, request, plan, logKeys, secret, started, Instant.now());
            out.printf("Erased %d records from %s: %s (erasure %s, recorded in %s).%n", erased, files(plan.files().size()),
                    counts(plan.recordsByPartition()), id, log.requestObject(id));
            // files --where could not search may hold the value: not all that was asked is done
            return search.untyped().isEmpty() ? 0 : 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("error: Interrupted before the erasure finished. Files already rewritten stay so; run erase --apply again to finish it.");
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println("error: The erasure did not finish: " + TableCommand.messages(e) + ". Files already rewritten stay so; run erase --apply "
                    + "again to finish it.");
            return 1;
        }
    }

    private List<byte[]> keys() throws IOException {
        List<byte[]> keys = new ArrayList<>();
        textKeys.forEach(k -> keys.add(k.getBytes(StandardCharsets.UTF_8)));
        for (String k : base64Keys) {
            keys.add(base64(k, "--key-base64"));
        }
        if (keysFile != null) {
            for (String line : Files.readAllLines(keysFile, StandardCharsets.UTF_8)) {
                if (line.startsWith("base64:")) {
                    keys.add(base64(line.substring("base64:".length()), keysFile.toString()));
                } else if (!line.isEmpty()) {
                    keys.add(line.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        if (keys.isEmpty() && where.isEmpty()) {
            throw new IllegalArgumentException("No key to erase: give --key, --key-base64, --keys-file or --where.");
        }
        return keys;
    }

    /** The values of {@code --where}, by column. */
    private Map<String, Set<String>> where() {
        Map<String, Set<String>> columns = new LinkedHashMap<>();
        for (String w : where) {
            int eq = w.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--where " + w + ": give it as COLUMN=VALUE, e.g. value_decoded.customer_id=4711");
            }
            columns.computeIfAbsent(w.substring(0, eq).trim(), c -> new LinkedHashSet<>()).add(w.substring(eq + 1));
        }
        return columns;
    }

    private static byte[] base64(String value, String where) {
        try {
            return Base64.getDecoder().decode(value.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": '" + value + "' is not base64");
        }
    }

    private static String secret(ArchiverConfig cfg) {
        return cfg.getOptional(ErasureOptions.ERASE_KEY_HASH_SECRET)
                .map(reference -> {
                    Map<String, String> secrets = new HashMap<>();
                    secrets.put("secret", reference);
                    return SecretReferences.resolve(SecretReferences.providers(cfg.kafkaClientProperties()), secrets).get("secret");
                })
                .orElse(null);
    }

    private static String describe(ErasurePlan.FileErasure f) {
        StringBuilder s = new StringBuilder();
        f.records().forEach((p, r) -> s.append(s.length() == 0 ? "" : ", ").append(f.topic()).append('-').append(p).append(": ")
                .append(r.size()).append(r.size() == 1 ? " record" : " records"));
        return f.deadLetters() ? s + " (dead letters)" : s.toString();
    }

    private static String files(int n) {
        return n == 1 ? "1 file" : n + " files";
    }

    private static String counts(Map<String, Long> byPartition) {
        List<String> parts = new ArrayList<>();
        byPartition.forEach((tp, n) -> parts.add(tp + " " + n));
        return String.join(", ", parts);
    }
}
