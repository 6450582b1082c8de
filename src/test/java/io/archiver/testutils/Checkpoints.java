package io.archiver.testutils;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.FileNotFoundException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Finds retained checkpoints, as an operator does after losing the JobManager or cancelling a job. */
public final class Checkpoints {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private Checkpoints() {}

    /**
     * The completed checkpoint ({@code chk-N} with {@code _metadata}) with the highest N under a job's
     * folder, waiting up to 30 s for one to exist.
     */
    public static String latest(String jobCheckpointDir) throws Exception {
        String[] found = new String[1];
        Await.until("a completed checkpoint under " + jobCheckpointDir, WAIT,
                () -> (found[0] = find(jobCheckpointDir)) != null,
                () -> "folder holds " + listing(jobCheckpointDir));
        return found[0];
    }

    private static String find(String jobCheckpointDir) throws Exception {
        Path dir = new Path(jobCheckpointDir);
        FileSystem fs = dir.getFileSystem();
        String latest = null;
        long latestId = -1;
        FileStatus[] entries;
        try {
            entries = fs.listStatus(dir);
        } catch (FileNotFoundException e) {
            return null;
        }
        for (FileStatus status : entries == null ? new FileStatus[0] : entries) {
            String name = status.getPath().getName();
            if (name.startsWith("chk-") && fs.exists(new Path(status.getPath(), "_metadata"))) {
                long id = Long.parseLong(name.substring(4));
                if (id > latestId) {
                    latestId = id;
                    latest = status.getPath().toString();
                }
            }
        }
        return latest;
    }

    private static List<String> listing(String jobCheckpointDir) throws Exception {
        Path dir = new Path(jobCheckpointDir);
        List<String> names = new ArrayList<>();
        try {
            for (FileStatus status : dir.getFileSystem().listStatus(dir)) {
                names.add(status.getPath().getName());
            }
        } catch (FileNotFoundException e) {
            names.add("(no such folder)");
        }
        return names;
    }
}
