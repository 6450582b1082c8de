package io.archiver.restore.ledger;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Utils;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * An archived record as the record Kafka gets back: key, value (null keys and tombstones stay null), headers in
 * their order with duplicates, and the archived timestamp as its CreateTime (a topic with {@code
 * message.timestamp.type=LogAppendTime} replaces it with the time of the restore). By default it goes to the
 * same partition number of the target topic. Re-partitioned ({@link RestoreSelection#repartitioned}), it goes
 * where Kafka's default partitioner puts its key (murmur2 of the key modulo the target's partitions; a null key:
 * its archived partition number modulo them) and carries one header more, {@value #SOURCE_HEADER} = {@code
 * topic:partition:offset} of the archived record: records of many archived partitions share a target partition
 * then, and the verification of such a restore joins them with the archive by that header. A ledger entry
 * ({@link RestoreLedger#isEntry}) goes to the ledger topic as it is.
 */
public final class RestoredRecords implements KafkaRecordSerializationSchema<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    public static final String SOURCE_HEADER = "kafka-s3-archiver.source";

    private final RestoreSelection selection;
    /** Each target topic's partition count, as the restore found (or created) it. */
    private final HashMap<String, Integer> targetPartitions;

    public RestoredRecords(RestoreSelection selection, Map<String, Integer> targetPartitions) {
        this.selection = selection;
        this.targetPartitions = new HashMap<>(targetPartitions);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(ArchiveRecord r, KafkaSinkContext context, Long timestamp) {
        if (RestoreLedger.isEntry(r)) {
            return new ProducerRecord<>(r.getTopic(), null, r.getTimestamp(), r.getKey(), r.getValue());
        }
        RecordHeaders headers = new RecordHeaders();
        String[] keys = r.getHeaderKeys();
        byte[][] values = r.getHeaderValues();
        for (int i = 0; i < keys.length; i++) {
            headers.add(keys[i], values[i]);
        }
        String target = selection.target(r.getTopic());
        int partition = r.getPartition();
        if (selection.repartition()) {
            partition = partitionOf(r.getKey(), r.getPartition(), targetPartitions.get(target));
            headers.add(SOURCE_HEADER, (r.getTopic() + ":" + r.getPartition() + ":" + r.getOffset()).getBytes(StandardCharsets.UTF_8));
        }
        return new ProducerRecord<>(target, partition, r.getTimestamp(), r.getKey(), r.getValue(), headers);
    }

    /** The target partition of a re-partitioned record: Kafka's default partitioner for a key. */
    public static int partitionOf(byte[] key, int archivedPartition, int targetPartitions) {
        return key == null ? archivedPartition % targetPartitions : Utils.toPositive(Utils.murmur2(key)) % targetPartitions;
    }

    /** The archived {@code topic-partition} and offset a re-partitioned record carries; null if it has none. */
    public static Source sourceOf(Headers headers) {
        var header = headers.lastHeader(SOURCE_HEADER);
        if (header == null) {
            return null;
        }
        String[] parts = new String(header.value(), StandardCharsets.UTF_8).split(":");
        return parts.length == 3 ? new Source(parts[0] + "-" + parts[1], Long.parseLong(parts[2])) : null;
    }

    /** Where a re-partitioned record was archived: {@code topic-partition} and offset. */
    public record Source(String archivedPartition, long offset) {}
}
