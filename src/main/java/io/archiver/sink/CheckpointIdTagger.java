package io.archiver.sink;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;

/**
 * Pre-commit stage: writes the checkpoint id, which the writer does not know when it hands out its
 * committables, into each committable, so that commit logs and position records can name it.
 */
final class CheckpointIdTagger
        implements MapFunction<CommittableMessage<ArchiveCommittable>, CommittableMessage<ArchiveCommittable>> {

    private static final long serialVersionUID = 1L;

    @Override
    public CommittableMessage<ArchiveCommittable> map(CommittableMessage<ArchiveCommittable> message) {
        if (message instanceof CommittableWithLineage) {
            CommittableWithLineage<ArchiveCommittable> c = (CommittableWithLineage<ArchiveCommittable>) message;
            return c.map(committable -> committable.withCheckpoint(c.getCheckpointId()));
        }
        return message;
    }
}
