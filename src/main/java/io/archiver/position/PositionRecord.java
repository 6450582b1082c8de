package io.archiver.position;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * The archive position of one Kafka partition, written by the committer <em>before</em> it commits a
 * checkpoint's files of that partition: every offset below {@code nextOffset} is archived once the listed
 * files are committed (all earlier files already are). Each listed file keeps its pending upload handle, so a
 * job that starts without state can finish a commit that was cut short instead of re-archiving it; a record
 * whose commit is known to be complete lists no file (settled).
 *
 * <p>{@code sequence} orders the records of a partition: each commit of the partition writes the last known
 * sequence plus one, so the highest is the partition's position, wherever it is stored ({@link PositionStore}).
 * Records of the per-partition format of earlier versions have sequence 0.
 *
 * <p>{@code lastLeaderEpoch} is the leader epoch Kafka gave the record before {@code nextOffset} (-1: unknown, as in
 * records of earlier versions): a job that starts without state asks Kafka whether its log still holds that record,
 * which tells a truncation of archived records even where the log has grown past the position since.
 */
public final class PositionRecord {

    static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String topic;
    private final int partition;
    private final long nextOffset;
    private final int lastLeaderEpoch;
    private final long checkpointId;
    private final long sequence;
    private final List<PendingFile> files;

    public PositionRecord(String topic, int partition, long nextOffset, long checkpointId, List<PendingFile> files) {
        this(topic, partition, nextOffset, -1, checkpointId, 0, files);
    }

    PositionRecord(String topic, int partition, long nextOffset, int lastLeaderEpoch, long checkpointId, long sequence, List<PendingFile> files) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.partition = partition;
        this.nextOffset = nextOffset;
        this.lastLeaderEpoch = lastLeaderEpoch;
        this.checkpointId = checkpointId;
        this.sequence = sequence;
        this.files = List.copyOf(files);
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    /** The first offset not archived: where a job without state resumes this partition. */
    public long nextOffset() {
        return nextOffset;
    }

    /** The leader epoch of the record before {@link #nextOffset()}, the last archived; -1 if unknown. */
    public int lastLeaderEpoch() {
        return lastLeaderEpoch;
    }

    public long checkpointId() {
        return checkpointId;
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    /** The order of this record among the records of its partition: the highest is the partition's position. */
    public long sequence() {
        return sequence;
    }

    public List<PendingFile> files() {
        return files;
    }

    /** This record as the {@code sequence}th of its partition. */
    PositionRecord withSequence(long sequence) {
        return new PositionRecord(topic, partition, nextOffset, lastLeaderEpoch, checkpointId, sequence, files);
    }

    /** This record listing {@code files} instead. */
    public PositionRecord withFiles(List<PendingFile> files) {
        return new PositionRecord(topic, partition, nextOffset, lastLeaderEpoch, checkpointId, sequence, files);
    }

    /** This record with the leader epoch of the last archived record. */
    public PositionRecord withLastLeaderEpoch(int epoch) {
        return new PositionRecord(topic, partition, nextOffset, epoch, checkpointId, sequence, files);
    }

    /** The record of a commit known to be complete: the same position, no file to check. */
    PositionRecord settled() {
        return files.isEmpty() ? this : withFiles(List.of());
    }

    /** The record as a stand-alone object of the per-partition format (earlier versions wrote these). */
    byte[] toJson() throws IOException {
        ObjectNode root = toJsonNode(true);
        root.put("format", FORMAT);
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    }

    /**
     * The record as JSON; without {@code uploads} the files' pending uploads are left out (a subtask's positions
     * object keeps each file's upload once, whatever the number of partitions listing it).
     */
    ObjectNode toJsonNode(boolean uploads) {
        ObjectNode root = JSON.createObjectNode();
        root.put("topic", topic);
        root.put("partition", partition);
        root.put("next_offset", nextOffset);
        if (lastLeaderEpoch >= 0) {
            root.put("last_leader_epoch", lastLeaderEpoch);
        }
        root.put("checkpoint", checkpointId);
        root.put("sequence", sequence);
        ArrayNode list = root.putArray("files");
        for (PendingFile f : files) {
            ObjectNode n = list.addObject();
            n.put("path", f.path());
            n.put("first_offset", f.firstOffset());
            n.put("last_offset", f.lastOffset());
            n.put("records", f.records());
            n.put("bytes", f.bytes());
            if (uploads) {
                n.put("upload_version", f.uploadVersion());
                n.put("upload", Base64.getEncoder().encodeToString(f.upload()));
            }
        }
        return root;
    }

    /** A stand-alone record of the per-partition format. */
    static PositionRecord fromJson(byte[] bytes, String where) throws IOException {
        JsonNode root = JSON.readTree(bytes);
        if (root == null || root.path("format").asInt(-1) != FORMAT) {
            throw new IOException("Unreadable archive position record " + where + " (format "
                    + (root == null ? "?" : root.path("format")) + ", this archiver reads format " + FORMAT + ")");
        }
        return fromJsonNode(root, root);
    }

    /**
     * A record from JSON whose files' uploads are in {@code uploads}: keyed by path, with {@code upload_version}
     * and {@code upload} (a stand-alone record keeps them in each file).
     */
    static PositionRecord fromJsonNode(JsonNode root, JsonNode uploads) {
        List<PendingFile> files = new ArrayList<>();
        for (JsonNode n : root.path("files")) {
            files.add(new PendingFile(
                    n.path("path").asText(), n.path("first_offset").asLong(), n.path("last_offset").asLong(),
                    n.path("records").asLong(), n.path("bytes").asLong(), upload(n, uploads).path("upload_version").asInt(),
                    Base64.getDecoder().decode(upload(n, uploads).path("upload").asText())));
        }
        return new PositionRecord(
                root.path("topic").asText(), root.path("partition").asInt(), root.path("next_offset").asLong(),
                root.path("last_leader_epoch").asInt(-1), root.path("checkpoint").asLong(), root.path("sequence").asLong(0), files);
    }

    private static JsonNode upload(JsonNode file, JsonNode uploads) {
        return file.has("upload") ? file : uploads.path(file.path("path").asText());
    }

    /** The file's pending upload as JSON ({@code upload_version}, {@code upload}). */
    static ObjectNode uploadJson(PendingFile file) {
        ObjectNode n = JSON.createObjectNode();
        n.put("upload_version", file.uploadVersion());
        n.put("upload", Base64.getEncoder().encodeToString(file.upload()));
        return n;
    }

    @Override
    public String toString() {
        return topic + "-" + partition + " next offset " + nextOffset + " (checkpoint " + checkpointId + ", sequence " + sequence
                + ", " + files.size() + " files)";
    }

    /**
     * One file being committed: where it goes, what it holds ({@code firstOffset..lastOffset} of this record's
     * partition, {@code records} of them; {@code bytes} the whole file's size) and its pending upload, serialized with
     * the file system's serializer of version {@code uploadVersion}.
     */
    public record PendingFile(String path, long firstOffset, long lastOffset, long records, long bytes, int uploadVersion, byte[] upload) {

        /** The same file's entry in the record of another partition it holds offsets {@code first..last} of. */
        public PendingFile forRange(long first, long last, long records) {
            return new PendingFile(path, first, last, records, bytes, uploadVersion, upload);
        }
    }
}
