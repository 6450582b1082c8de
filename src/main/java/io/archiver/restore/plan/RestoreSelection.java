package io.archiver.restore.plan;

import io.archiver.config.ConfigException;
import io.archiver.record.ArchiveRecord;

import java.io.Serializable;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What a restore writes back: the archived topics it takes (named, matching a pattern, or all), their partitions
 * (all when empty), the name each topic gets in Kafka (its own unless renamed), an inclusive range of archived
 * offsets, a window of record timestamps ({@code until} alone is a point-in-time restore), and whether records
 * keep their partition number or are re-partitioned by key ({@link #repartitioned}).
 */
public record RestoreSelection(Set<String> topics, String topicPattern, Set<Integer> partitions, Map<String, String> renames,
        long fromOffset, long toOffset, Instant since, Instant until, boolean repartition) implements Serializable {

    /** Topics, renames and a point in time only: {@link #parse(String, String, String, String, String, String, String)}. */
    public static RestoreSelection parse(String topics, String renames, String until) {
        return parse(topics, null, null, renames, null, null, until);
    }

    /**
     * From the command line's forms: topics {@code a,b}; a Java regular expression; partitions {@code 0,2};
     * renames {@code a=a-restored,b=b2}; offsets {@code FROM-TO}, {@code FROM-} or {@code -TO} (inclusive); ISO-8601
     * instants such as {@code 2026-11-30T10:00:00Z}. Any may be null (no limit).
     */
    public static RestoreSelection parse(String topics, String topicPattern, String partitions, String renames, String offsets,
            String since, String until) {
        Set<String> selected = new LinkedHashSet<>();
        for (String t : list(topics)) {
            selected.add(t);
        }
        String pattern = blank(topicPattern) ? null : topicPattern.trim();
        if (pattern != null) {
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                throw new ConfigException("Invalid --topic-pattern '" + pattern + "': " + e.getDescription() + ".");
            }
        }
        Set<Integer> numbers = new TreeSet<>();
        for (String p : list(partitions)) {
            try {
                numbers.add(Integer.parseInt(p));
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid --partitions '" + partitions + "': partition numbers separated by commas, e.g. 0,2.");
            }
        }
        Map<String, String> renamed = new LinkedHashMap<>();
        for (String pair : list(renames)) {
            String[] parts = pair.split("=", -1);
            if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new ConfigException("Invalid --rename '" + pair + "': write archived=target, e.g. orders=orders-restored.");
            }
            renamed.put(parts[0].trim(), parts[1].trim());
        }
        long from = 0;
        long to = Long.MAX_VALUE;
        if (!blank(offsets)) {
            String[] range = offsets.trim().split("-", -1);
            try {
                if (range.length != 2 || (range[0].isBlank() && range[1].isBlank())) {
                    throw new NumberFormatException();
                }
                from = range[0].isBlank() ? 0 : Long.parseLong(range[0].trim());
                to = range[1].isBlank() ? Long.MAX_VALUE : Long.parseLong(range[1].trim());
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid --offsets '" + offsets + "': FROM-TO (inclusive), FROM- or -TO, e.g. 1000-1999.");
            }
            if (from > to) {
                throw new ConfigException("Invalid --offsets '" + offsets + "': the first offset is after the last.");
            }
        }
        Instant start = instant("--since", since);
        Instant end = instant("--until", until);
        if (start != null && end != null && start.isAfter(end)) {
            throw new ConfigException("Invalid time window: --since " + start + " is after --until " + end + ".");
        }
        return new RestoreSelection(selected, pattern, numbers, renamed, from, to, start, end, false);
    }

    /**
     * This selection written by key instead of by partition number: each record to the target partition Kafka's
     * default partitioner gives its key (a null key: its archived partition number modulo the target's count),
     * so a target may have any number of partitions and order is kept per key.
     */
    public RestoreSelection repartitioned() {
        return new RestoreSelection(topics, topicPattern, partitions, renames, fromOffset, toOffset, since, until, true);
    }

    /** Whether records of this archived topic are restored. */
    public boolean takes(String topic) {
        if (topics.isEmpty() && topicPattern == null) {
            return true;
        }
        return topics.contains(topic) || (topicPattern != null && Pattern.matches(topicPattern, topic));
    }

    /** Whether files of this archived partition holding offsets {@code first..last} may hold selected records. */
    public boolean takes(String topic, int partition, long first, long last) {
        return takes(topic) && (partitions.isEmpty() || partitions.contains(partition)) && last >= fromOffset && first <= toOffset;
    }

    /** Whether this record of a selected partition is restored: in the offset range and the time window. */
    public boolean takes(ArchiveRecord r) {
        long offset = r.getOffset();
        long timestamp = r.getTimestamp();
        return offset >= fromOffset && offset <= toOffset
                && (since == null || timestamp >= since.toEpochMilli()) && (until == null || timestamp <= until.toEpochMilli());
    }

    /** Whether some records of a selected file may be left out (an offset range or a time window is set). */
    public boolean filtersRecords() {
        return fromOffset > 0 || toOffset < Long.MAX_VALUE || since != null || until != null;
    }

    public String target(String topic) {
        return renames.getOrDefault(topic, topic);
    }

    /**
     * What identifies a restore across its starts: the archived partitions and where they go, not which of their
     * records (an offset range or a time window), so that a restore started again with another range takes over
     * the transactional ids of an earlier start that crashed.
     */
    public String identity() {
        String id = new TreeSet<>(topics) + "|" + new TreeMap<>(renames);
        if (topicPattern != null || !partitions.isEmpty()) {
            id += "|" + topicPattern + "|" + partitions;
        }
        return repartition ? id + "|by-key" : id;
    }

    /** The limits set, for the plan's summary ("" when none). */
    String describeLimits() {
        StringBuilder s = new StringBuilder();
        if (fromOffset > 0 || toOffset < Long.MAX_VALUE) {
            s.append(" offsets ").append(fromOffset).append('-').append(toOffset == Long.MAX_VALUE ? "" : toOffset);
        }
        if (since != null) {
            s.append(" since ").append(since);
        }
        if (until != null) {
            s.append(" until ").append(until);
        }
        return s.toString();
    }

    private static String[] list(String value) {
        if (blank(value)) {
            return new String[0];
        }
        return java.util.Arrays.stream(value.split(",")).map(String::trim).filter(v -> !v.isEmpty()).toArray(String[]::new);
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    private static Instant instant(String option, String value) {
        if (blank(value)) {
            return null;
        }
        try {
            return Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new ConfigException("Invalid " + option + " '" + value + "': an ISO-8601 instant in UTC, e.g. 2026-11-30T10:00:00Z.");
        }
    }
}
