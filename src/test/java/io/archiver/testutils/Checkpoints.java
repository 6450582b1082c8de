package io.archiver.testutils;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/** Finds retained checkpoints, as an operator does after losing the JobManager or cancelling a job. */
public final class Checkpoints {

    private Checkpoints() {}

    /** The completed checkpoint ({@code chk-N} with {@code _metadata}) with the highest N under a job's folder. */
    public static String latest(String jobCheckpointDir) throws Exception {
        Path dir = new Path(jobCheckpointDir);
        FileSystem fs = dir.getFileSystem();
        String latest = null;
        long latestId = -1;
        for (FileStatus status : fs.listStatus(dir)) {
            String name = status.getPath().getName();
            if (name.startsWith("chk-") && fs.exists(new Path(status.getPath(), "_metadata"))) {
                long id = Long.parseLong(name.substring(4));
                if (id > latestId) {
                    latestId = id;
                    latest = status.getPath().toString();
                }
            }
        }
        if (latest == null) {
            throw new AssertionError("No completed checkpoint under " + dir);
        }
        return latest;
    }
}
