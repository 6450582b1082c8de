package io.archiver.restore;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * An archived record as the record Kafka gets back: same partition number of the target topic, key, value
 * (null keys and tombstones stay null), headers in their order with duplicates, and the archived timestamp as
 * its CreateTime (a topic with {@code message.timestamp.type=LogAppendTime} replaces it with the time of the
 * restore).
 */
final class RestoredRecords implements KafkaRecordSerializationSchema<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    private final RestoreSelection selection;

    RestoredRecords(RestoreSelection selection) {
        this.selection = selection;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(ArchiveRecord r, KafkaSinkContext context, Long timestamp) {
        RecordHeaders headers = new RecordHeaders();
        String[] keys = r.getHeaderKeys();
        byte[][] values = r.getHeaderValues();
        for (int i = 0; i < keys.length; i++) {
            headers.add(keys[i], values[i]);
        }
        return new ProducerRecord<>(
                selection.target(r.getTopic()), r.getPartition(), r.getTimestamp(), r.getKey(), r.getValue(), headers);
    }
}
