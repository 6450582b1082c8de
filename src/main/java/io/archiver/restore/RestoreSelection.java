package io.archiver.restore;

import io.archiver.config.ConfigException;

import java.io.Serializable;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * What a restore writes back: the archived topics it takes (all when empty), the name each gets in Kafka
 * (its own unless renamed), and the newest record timestamp it takes (point in time; none: everything).
 */
public record RestoreSelection(Set<String> topics, Map<String, String> renames, Instant until) implements Serializable {

    /** From the command line's forms: {@code a,b}; {@code a=a-restored,b=b2}; an ISO-8601 instant such as {@code 2026-11-30T10:00:00Z}. */
    public static RestoreSelection parse(String topics, String renames, String until) {
        Set<String> selected = new LinkedHashSet<>();
        if (topics != null && !topics.isBlank()) {
            for (String t : topics.split(",")) {
                if (!t.isBlank()) {
                    selected.add(t.trim());
                }
            }
        }
        Map<String, String> renamed = new LinkedHashMap<>();
        if (renames != null && !renames.isBlank()) {
            for (String pair : renames.split(",")) {
                String[] parts = pair.split("=", -1);
                if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
                    throw new ConfigException("Invalid --rename '" + pair + "': write archived=target, e.g. orders=orders-restored.");
                }
                renamed.put(parts[0].trim(), parts[1].trim());
            }
        }
        Instant end = null;
        if (until != null && !until.isBlank()) {
            try {
                end = Instant.parse(until.trim());
            } catch (DateTimeParseException e) {
                throw new ConfigException("Invalid --until '" + until + "': an ISO-8601 instant in UTC, e.g. 2026-11-30T10:00:00Z.");
            }
        }
        return new RestoreSelection(selected, renamed, end);
    }

    public boolean takes(String topic) {
        return topics.isEmpty() || topics.contains(topic);
    }

    public String target(String topic) {
        return renames.getOrDefault(topic, topic);
    }

    /** Whether a record of this timestamp is restored: at or before {@code until}. */
    public boolean takesTimestamp(long timestamp) {
        return until == null || timestamp <= until.toEpochMilli();
    }
}
