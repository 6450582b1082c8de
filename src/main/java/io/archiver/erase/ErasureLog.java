package io.archiver.erase;

import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.RejectedRecords;
import io.archiver.fs.MetadataObjects;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The archive's record of its erasures. Per erasure and partition, a file of the erasure log ({@link
 * ArchiveRoot#erasureLog()}) holds the positions of the records erased, as the skip log holds those of skipped records
 * (topic, partition, offset, timestamp and the erasure's id as reason; never a key or payload): audit counts those
 * offsets as erased, not missing, and repair never archives them again. Per erasure, a request object
 * ({@link ArchiveRoot#erasures()}) says what was asked (the keys, and the values of typed columns asked for, as
 * HMAC-SHA256 under the operator's secret, or as given when the operator asks so), when it started and completed, and how many records of each partition went.
 *
 * <p>The log is written before any file is rewritten, so that a crash leaves no erased record unaccounted for; a
 * logged record still in the archive is an erasure not finished (audit says so; run it again).
 */
public final class ErasureLog {

    /** How the request object records the keys. */
    public enum KeyLogging {
        /** HMAC-SHA256 of each key under {@code erase.key-hash-secret}, hex. */
        HASHED,
        /** Each key as given (base64 of its bytes): the log then holds the personal data the keys are. */
        PLAIN
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ArchiveRoot root;

    public ErasureLog(ArchiveRoot root) {
        this.root = root;
    }

    /** A new erasure's id: its start time and a random part, so that ids sort by time. */
    public static String newId(Instant now) {
        return now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString().replaceAll("[-:]", "") + "-"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Writes the positions of the records {@code plan} erases into the erasure log, one file per partition. */
    public void recordPositions(String id, ErasurePlan plan) throws IOException {
        // topic to partition to offset to timestamp: a file of the log per partition, in offset order
        Map<String, Map<Integer, NavigableMap<Long, Long>>> byPartition = new TreeMap<>();
        for (ErasurePlan.FileErasure f : plan.files()) {
            f.records().forEach((p, r) -> byPartition.computeIfAbsent(f.topic(), t -> new TreeMap<>()).computeIfAbsent(p, k -> new TreeMap<>()).putAll(r));
        }
        BulkWriter.Factory<ArchiveRecord> factory = RejectedRecords.writer();
        for (Map.Entry<String, Map<Integer, NavigableMap<Long, Long>>> topic : byPartition.entrySet()) {
            for (Map.Entry<Integer, NavigableMap<Long, Long>> partition : topic.getValue().entrySet()) {
                Path file = new Path(root.erasureLog(), "topic=" + topic.getKey() + "/partition=" + partition.getKey() + "/erasure-" + id
                        + RejectedRecords.suffix());
                try (FSDataOutputStream out = file.getFileSystem().create(file, FileSystem.WriteMode.OVERWRITE)) {
                    BulkWriter<ArchiveRecord> writer = factory.create(out);
                    for (Map.Entry<Long, Long> r : partition.getValue().entrySet()) {
                        writer.addElement(DeadLetter.skipped(new ArchiveRecord(topic.getKey(), partition.getKey(), r.getKey(), r.getValue(),
                                "CreateTime", null, null, new String[0], new byte[0][]), "erasure " + id));
                    }
                    writer.finish();
                }
            }
        }
    }

    /**
     * Writes the request object of erasure {@code id}: what was asked and erased; {@code completed} null while it runs.
     *
     * @throws IllegalArgumentException under {@link KeyLogging#HASHED} without a secret
     */
    public void recordRequest(String id, ErasureRequest request, ErasurePlan plan, KeyLogging logging, String secret, Instant started,
            Instant completed) throws IOException {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", id);
        n.put("started", started.toString());
        if (completed != null) {
            n.put("completed", completed.toString());
        }
        ArrayNode keys = n.putArray("keys");
        for (byte[] key : request.keys()) {
            if (logging == KeyLogging.PLAIN) {
                keys.addObject().put("base64", Base64.getEncoder().encodeToString(key));
            } else {
                keys.addObject().put("hmac-sha256", hmac(secret, key));
            }
        }
        if (!request.where().isEmpty()) {
            ArrayNode where = n.putArray("where");
            request.where().forEach((column, values) -> {
                ObjectNode w = where.addObject().put("column", column);
                ArrayNode logged = w.putArray("values");
                values.stream().sorted().forEach(v -> {
                    byte[] bytes = v.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    if (logging == KeyLogging.PLAIN) {
                        logged.addObject().put("text", v);
                    } else {
                        logged.addObject().put("hmac-sha256", hmac(secret, bytes));
                    }
                });
            });
        }
        ArrayNode topics = n.putArray("topics");
        request.topics().stream().sorted().forEach(topics::add);
        if (request.before() != null) {
            n.put("before", request.before().toString());
        }
        ObjectNode erased = n.putObject("records");
        plan.recordsByPartition().forEach(erased::put);
        ArrayNode rewritten = n.putArray("rewritten");
        plan.files().forEach(f -> rewritten.add(f.path().toString()));
        MetadataObjects.write(requestObject(id), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n));
    }

    /** Where erasure {@code id}'s request object is. */
    public Path requestObject(String id) {
        return new Path(root.erasures(), id + ".json");
    }

    /**
     * Every file an erasure rewrote or set out to rewrite (their request objects list them before the first is
     * rewritten): each existed whole, committed, when the erasure read it, so a job that commits one again after a
     * restore finds it committed, whatever its length now.
     */
    public Set<String> rewrittenFiles() throws IOException {
        Path folder = root.erasures();
        FileStatus[] requests;
        try {
            requests = folder.getFileSystem().listStatus(folder);
        } catch (FileNotFoundException e) {
            return Set.of();
        }
        Set<String> files = new HashSet<>();
        for (FileStatus request : requests == null ? new FileStatus[0] : requests) {
            if (!request.getPath().getName().endsWith(".json")) {
                continue;
            }
            Optional<byte[]> bytes = MetadataObjects.read(request.getPath());
            if (bytes.isPresent()) {
                JSON.readTree(bytes.get()).path("rewritten").forEach(f -> files.add(f.asText()));
            }
        }
        return files;
    }

    /** HMAC-SHA256 of {@code key} under {@code secret}, hex: what the request object records of a key. */
    public static String hmac(String secret, byte[] key) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("no secret for the keys' hashes");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(key));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }
}
