package io.archiver.job;

import io.archiver.fencing.ArchiveLease;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Asks the cluster a job is submitted to (its REST endpoint, from the client's configuration) whether the
 * Flink job named in the archive's lease has ended, so that the next job after a stop-with-savepoint or a
 * cancel takes the lease at once, and an erasure tells a commit cut short from one the job is making. A job the cluster does not know (another cluster, or forgotten) or a
 * cluster that does not answer counts as not ended: then the lease's timeout decides, as without a cluster.
 */
public final class ClusterJobs implements ArchiveLease.EndedJobs, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterJobs.class);
    private static final long ANSWER_SECONDS = 5;

    private final Configuration client;
    private RestClusterClient<StandaloneClusterId> rest;

    /** Asks the cluster whose REST endpoint {@code client} (a client's configuration) names. */
    public ClusterJobs(ReadableConfig client) {
        this.client = Configuration.fromMap(client.toMap());
    }

    @Override
    public Optional<String> endState(String jobId) {
        if (jobId == null || jobId.isEmpty()) {
            return Optional.empty();
        }
        try {
            if (rest == null) {
                rest = new RestClusterClient<>(client, StandaloneClusterId.getInstance());
            }
            JobStatus status = rest.getJobStatus(JobID.fromHexString(jobId)).get(ANSWER_SECONDS, TimeUnit.SECONDS);
            return status.isGloballyTerminalState() ? Optional.of(status.name()) : Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (Exception e) {
            LOG.debug("The cluster cannot say whether Flink job {} ended: {}", jobId, e.toString());
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        if (rest != null) {
            rest.close();
        }
    }
}
