package io.archiver.job;

import io.archiver.config.ConfigException;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterOnlySettingsTest {

    @Test
    void fileSystemAndProcessSettingsOfAJobAreRefusedNamingWhereToSetThem() {
        assertThatThrownBy(() -> ClusterOnlySettings.refuseOnCluster(Map.of(
                        "s3.secret-key", "wrong", "s3.endpoint", "http://elsewhere", "taskmanager.memory.process.size", "4g",
                        "state.backend.type", "rocksdb")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("'flink.s3.endpoint', 'flink.s3.secret-key', 'flink.taskmanager.memory.process.size' are settings of the cluster's own")
                .hasMessageContaining("Set s3.endpoint, s3.secret-key, taskmanager.memory.process.size in the cluster's configuration")
                .hasMessageNotContaining("wrong")
                .hasMessageNotContaining("state.backend");
    }

    @Test
    void jobLevelFlinkSettingsPass() {
        assertThatCode(() -> ClusterOnlySettings.refuseOnCluster(Map.of(
                        "state.backend.type", "rocksdb", "execution.checkpointing.min-pause", "5 s", "pipeline.max-parallelism", "256")))
                .doesNotThrowAnyException();
    }
}
