package io.archiver.source;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Turns every Kafka record into an {@link ArchiveRecord} without interpreting key, value or headers, so
 * nothing is ever dropped or altered here: tombstones and null keys are kept as nulls.
 */
public final class ArchiveRecordDeserializer implements KafkaRecordDeserializationSchema<ArchiveRecord> {

    private static final long serialVersionUID = 1L;
    private static final String[] NO_KEYS = new String[0];
    private static final byte[][] NO_VALUES = new byte[0][];

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ArchiveRecord> out) {
        Headers headers = record.headers();
        Header[] array = headers.toArray();
        String[] keys = array.length == 0 ? NO_KEYS : new String[array.length];
        byte[][] values = array.length == 0 ? NO_VALUES : new byte[array.length][];
        for (int i = 0; i < array.length; i++) {
            keys[i] = array[i].key();
            values[i] = array[i].value();
        }
        ArchiveRecord archived =
                new ArchiveRecord(
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        record.timestamp(),
                        record.timestampType().name,
                        record.key(),
                        record.value(),
                        keys,
                        values);
        archived.setLeaderEpoch(record.leaderEpoch().orElse(-1));
        out.collect(archived);
    }

    @Override
    public TypeInformation<ArchiveRecord> getProducedType() {
        return TypeInformation.of(ArchiveRecord.class);
    }
}
