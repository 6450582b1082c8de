package io.archiver.archive;

import io.archiver.format.FileFormats;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The archive's folder layout, Hive-style so query engines read it as partition columns:
 * {@code <root>/topic=<t>/partition=<p>/[date=YYYY-MM-DD/[hour=HH/]]<part file>}, or with the per-topic layout
 * {@code <root>/topic=<t>/[date=YYYY-MM-DD/[hour=HH/]]<part file>} whose files hold many partitions (shared
 * files). The time folders come from the record timestamp in UTC. Names starting with {@code _} or {@code .}
 * are never data (engines skip them too).
 */
public final class ArchiveLayout {

    private static final long MS_PER_DAY = 86_400_000L;
    private static final long MS_PER_HOUR = 3_600_000L;
    private static final Pattern PARTITION_DIR =
            Pattern.compile("(?:^|/)topic=([^/]+)/partition=(\\d+)(?:/|$)");
    private static final Pattern TOPIC_DIR = Pattern.compile("(?:^|/)topic=([^/]+)/");
    private static final Pattern TIME_DIRS = Pattern.compile("/date=(\\d{4}-\\d{2}-\\d{2})(?:/hour=(\\d{2}))?/");

    private ArchiveLayout() {}

    /** The bucket (folder relative to the root) of a record. */
    public static String bucket(String topic, int partition, long timestamp, TimePartitioning time, SinkLayout layout) {
        StringBuilder sb = new StringBuilder(64);
        sb.append("topic=").append(topic);
        if (layout == SinkLayout.PER_PARTITION) {
            sb.append("/partition=").append(partition);
        }
        if (time == TimePartitioning.NONE) {
            return sb.toString();
        }
        long day = Math.floorDiv(timestamp, MS_PER_DAY);
        java.time.LocalDate date = java.time.LocalDate.ofEpochDay(day);
        sb.append("/date=").append(date.getYear()).append('-');
        pad2(sb, date.getMonthValue()).append('-');
        pad2(sb, date.getDayOfMonth());
        if (time == TimePartitioning.HOUR) {
            sb.append("/hour=");
            pad2(sb, (int) (Math.floorMod(timestamp, MS_PER_DAY) / MS_PER_HOUR));
        }
        return sb.toString();
    }

    /**
     * The first timestamp of the record-time folder holding {@code timestamp}: the start of its UTC day or hour,
     * {@code Long.MIN_VALUE} without time folders. Every timestamp from there to {@link #timeFolderEnd} shares it.
     */
    public static long timeFolderStart(long timestamp, TimePartitioning time) {
        return switch (time) {
            case NONE -> Long.MIN_VALUE;
            case DAY -> Math.floorDiv(timestamp, MS_PER_DAY) * MS_PER_DAY;
            case HOUR -> Math.floorDiv(timestamp, MS_PER_HOUR) * MS_PER_HOUR;
        };
    }

    /** The first timestamp after the record-time folder holding {@code timestamp} ({@code Long.MAX_VALUE} without time folders). */
    public static long timeFolderEnd(long timestamp, TimePartitioning time) {
        return switch (time) {
            case NONE -> Long.MAX_VALUE;
            case DAY -> timeFolderStart(timestamp, time) + MS_PER_DAY;
            case HOUR -> timeFolderStart(timestamp, time) + MS_PER_HOUR;
        };
    }

    /** The topic of a file of the per-topic layout (a shared file): in a topic folder, in no partition folder. */
    public static Optional<String> sharedFileTopic(String path) {
        if (PARTITION_DIR.matcher(path).find()) {
            return Optional.empty();
        }
        Matcher m = TOPIC_DIR.matcher(path);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** The topic of a data file of either layout: its partition folder's topic, or its topic folder's for a shared file. */
    public static Optional<String> topicOf(String path) {
        Optional<TopicPartitionDir> tp = partitionOf(path);
        return tp.isPresent() ? Optional.of(tp.get().topic()) : sharedFileTopic(path);
    }

    /** The (topic, partition) a path inside the archive belongs to, if it follows the per-partition layout. */
    public static Optional<TopicPartitionDir> partitionOf(String path) {
        Matcher m = PARTITION_DIR.matcher(path);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new TopicPartitionDir(m.group(1), Integer.parseInt(m.group(2))));
    }

    /**
     * True for a committed data file name: not hidden ({@code _}/{@code .}, which also covers Flink's
     * in-progress files) and of one of the archive's formats.
     */
    public static boolean isDataFile(String name) {
        return !name.startsWith("_")
                && !name.startsWith(".")
                && FileFormats.ofFile(name).isPresent();
    }

    /** The record-time folder a path inside the archive lies in: its start and granularity ({@code NONE}: in none). */
    public static TimeFolder timeFolderOf(String path) {
        Matcher m = TIME_DIRS.matcher(path);
        if (!m.find()) {
            return new TimeFolder(TimePartitioning.NONE, Long.MIN_VALUE);
        }
        long day = java.time.LocalDate.parse(m.group(1)).toEpochDay() * MS_PER_DAY;
        return m.group(2) == null
                ? new TimeFolder(TimePartitioning.DAY, day)
                : new TimeFolder(TimePartitioning.HOUR, day + Integer.parseInt(m.group(2)) * MS_PER_HOUR);
    }

    private static StringBuilder pad2(StringBuilder sb, int v) {
        if (v < 10) {
            sb.append('0');
        }
        return sb.append(v);
    }

    /** A record-time folder: its granularity and first timestamp (UTC epoch milliseconds). */
    public record TimeFolder(TimePartitioning time, long start) {}

    /** A topic and partition read from an archive path. */
    public record TopicPartitionDir(String topic, int partition) {}
}
