package io.archiver.position;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Where a restore began writing into each target partition, kept in the archive ({@code <root>/_archiver/
 * restores/<restore id>.json}, written before its first record): a restore of the same selection started again
 * without state counts what its target partitions hold since then and skips that many records, so it neither
 * writes a record twice nor leaves one out. Keys are {@code <topic>-<partition>} of the targets.
 */
public final class RestoreStarts {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path path;

    public RestoreStarts(String root, String restoreId) {
        this.path = new Path(new Path(root), "_archiver/restores/" + restoreId + ".json");
    }

    public Path path() {
        return path;
    }

    /** The recorded start offsets, if this restore started before. */
    public Optional<Map<String, Long>> read() throws IOException {
        Optional<byte[]> bytes = MetadataObjects.read(path);
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        JsonNode starts = JSON.readTree(bytes.get()).path("starts");
        Map<String, Long> offsets = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = starts.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            offsets.put(e.getKey(), e.getValue().asLong());
        }
        return Optional.of(offsets);
    }

    public void write(Map<String, Long> starts) throws IOException {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", 1);
        ObjectNode s = n.putObject("starts");
        starts.forEach(s::put);
        MetadataObjects.write(path, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n));
    }
}
