package io.archiver.format.jsonl;

import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** A JSON Lines file written anew without some records: every other line byte for byte, its compression kept. */
class JsonLinesLineRemovalTest {

    @TempDir java.nio.file.Path dir;

    @ParameterizedTest
    @EnumSource(JsonCompression.class)
    void everyOtherLineStaysByteForByteInTheFilesCompression(JsonCompression compression) throws Exception {
        List<ArchiveRecord> records = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            records.add(new ArchiveRecord("orders", 4, i, 1_772_859_843_000L + i, "CreateTime", ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("{\"i\": " + i + ", \"text\":\"caf\u00e9\"}").getBytes(StandardCharsets.UTF_8), new String[0], new byte[0][]));
        }
        String suffix = JsonLinesFormat.suffix(compression);
        Path file = LocalPartFiles.write(dir.resolve("part" + suffix), new JsonLinesWriterFactory(PayloadFormats.BYTES, compression, 3), records);
        Path out = new Path(dir.resolve("erased" + suffix).toUri());
        long dropped;
        try (FSDataOutputStream stream = out.getFileSystem().create(out, FileSystem.WriteMode.NO_OVERWRITE)) {
            dropped = JsonLinesFormat.INSTANCE.copyWithout(file, stream, Map.of(4, Set.of(0L, 17L, 299L), 5, Set.of(1L)));
        }

        assertThat(dropped).isEqualTo(3);
        List<String> before = lines(file);
        List<String> expected = new ArrayList<>(before);
        expected.remove(299);
        expected.remove(17);
        expected.remove(0);
        assertThat(lines(out)).containsExactlyElementsOf(expected);
    }

    private static List<String> lines(Path file) throws Exception {
        try (InputStream raw = file.getFileSystem().open(file)) {
            InputStream in = file.getName().endsWith(".gz") ? new java.util.zip.GZIPInputStream(raw)
                    : file.getName().endsWith(".zst") ? new com.github.luben.zstd.ZstdInputStream(raw) : raw;
            return Arrays.asList(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"));
        }
    }
}
