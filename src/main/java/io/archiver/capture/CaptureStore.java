package io.archiver.capture;

import io.archiver.archive.ArchiveRoot;
import io.archiver.fs.FileSystemContext;
import io.archiver.fs.MetadataObjects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.TemporaryClassLoaderContext;
import org.apache.kafka.common.TopicPartition;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The captured metadata in the archive, next to the position records:
 * <ul>
 *   <li>{@code _archiver/groups/<group>/<yyyy-MM-dd>/<HH-mm-ss.SSS>Z.json}: a consumer group's offsets, one object
 *       per capture in which they moved, so a point-in-time restore finds the group as it was then and a
 *       lookup lists one day folder, not the whole history;</li>
 *   <li>{@code _archiver/topics/<topic>.json}: an archived topic's partition count and own settings.</li>
 * </ul>
 * Group and topic names are URL-encoded in paths.
 */
public final class CaptureStore {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH-mm-ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final ArchiveRoot root;

    public CaptureStore(ArchiveRoot root) {
        this.root = root;
    }

    public void write(GroupOffsets offsets) throws IOException {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", 1);
        n.put("group", offsets.group());
        n.put("captured_at", offsets.capturedAt().toString());
        ArrayNode list = n.putArray("offsets");
        offsets.offsets().entrySet().stream()
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)))
                .forEach(e -> list.addObject()
                        .put("topic", e.getKey().topic()).put("partition", e.getKey().partition()).put("offset", e.getValue()));
        Path day = new Path(groupFolder(offsets.group()), DAY.format(offsets.capturedAt()));
        MetadataObjects.write(new Path(day, TIME.format(offsets.capturedAt()) + ".json"), JSON.writeValueAsBytes(n));
    }

    /** The groups with captured offsets. */
    public List<String> groups() throws IOException {
        List<String> groups = new ArrayList<>();
        for (FileStatus folder : list(root.groupOffsets())) {
            groups.add(URLDecoder.decode(folder.getPath().getName(), StandardCharsets.UTF_8));
        }
        groups.sort(null);
        return groups;
    }

    /** The group's last captured offsets at or before {@code until} (the last of all when null). */
    public Optional<GroupOffsets> groupOffsets(String group, Instant until) throws IOException {
        String lastDay = until == null ? null : DAY.format(until);
        String lastName = until == null ? null : TIME.format(until) + ".json";
        List<FileStatus> days = sortedDescending(list(groupFolder(group)));
        for (FileStatus day : days) {
            String dayName = day.getPath().getName();
            if (lastDay != null && dayName.compareTo(lastDay) > 0) {
                continue;
            }
            for (FileStatus capture : sortedDescending(list(day.getPath()))) {
                String name = capture.getPath().getName();
                if (!name.endsWith(".json") || (lastDay != null && dayName.equals(lastDay) && name.compareTo(lastName) > 0)) {
                    continue;
                }
                Optional<byte[]> bytes = MetadataObjects.read(capture.getPath());
                if (bytes.isPresent()) {
                    return Optional.of(parseGroup(JSON.readTree(bytes.get())));
                }
            }
        }
        return Optional.empty();
    }

    public void write(TopicSettings topic) throws IOException {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", 1);
        n.put("topic", topic.topic());
        n.put("partitions", topic.partitions());
        ObjectNode configs = n.putObject("configs");
        new java.util.TreeMap<>(topic.configs()).forEach(configs::put);
        MetadataObjects.write(topicPath(topic.topic()), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n));
    }

    public Optional<TopicSettings> topic(String topic) throws IOException {
        Optional<byte[]> bytes = MetadataObjects.read(topicPath(topic));
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        JsonNode n = JSON.readTree(bytes.get());
        Map<String, String> configs = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.path("configs").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            configs.put(e.getKey(), e.getValue().asText());
        }
        return Optional.of(new TopicSettings(n.path("topic").asText(), n.path("partitions").asInt(), configs));
    }

    private static GroupOffsets parseGroup(JsonNode n) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (JsonNode o : n.path("offsets")) {
            offsets.put(new TopicPartition(o.path("topic").asText(), o.path("partition").asInt()), o.path("offset").asLong());
        }
        return new GroupOffsets(n.path("group").asText(), Instant.parse(n.path("captured_at").asText()), offsets);
    }

    private Path groupFolder(String group) {
        return new Path(root.groupOffsets(), URLEncoder.encode(group, StandardCharsets.UTF_8));
    }

    private Path topicPath(String topic) {
        return new Path(root.topicSettings(), URLEncoder.encode(topic, StandardCharsets.UTF_8) + ".json");
    }

    private static List<FileStatus> sortedDescending(FileStatus[] entries) {
        List<FileStatus> sorted = new ArrayList<>(List.of(entries));
        sorted.sort(Comparator.comparing((FileStatus f) -> f.getPath().getName()).reversed());
        return sorted;
    }

    /** The entries of {@code folder}; none if it does not exist. */
    private static FileStatus[] list(Path folder) throws IOException {
        try (TemporaryClassLoaderContext ignored = FileSystemContext.of(folder).enter()) {
            FileStatus[] entries = folder.getFileSystem().listStatus(folder);
            return entries == null ? new FileStatus[0] : entries;
        } catch (FileNotFoundException e) {
            return new FileStatus[0];
        }
    }
}
