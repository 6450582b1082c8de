package io.archiver.restore;

import io.archiver.format.ArchiveFileReader;
import io.archiver.fs.FileSystemContext;
import io.archiver.fs.PoolThreads;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.Collector;
import org.apache.flink.util.TemporaryClassLoaderContext;

/**
 * Reads one archive file (its path after a tab, see {@link RestoreJob}) and emits its records in file order
 * (offset order), those of the selected time window only. A file is read within one call, so a checkpoint
 * barrier comes before or after a whole file, never inside it.
 */
final class ArchiveFileRecords extends RichFlatMapFunction<String, ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    private final PayloadFormats formats;
    private final RestoreSelection selection;
    private transient ArchiveFileReader reader;
    private transient FileSystemContext fs;

    ArchiveFileRecords(PayloadFormats formats, RestoreSelection selection) {
        this.formats = formats;
        this.selection = selection;
    }

    @Override
    public void open(OpenContext openContext) {
        reader = new ArchiveFileReader(formats);
    }

    @Override
    public void flatMap(String file, Collector<ArchiveRecord> out) throws Exception {
        Path path = new Path(file.substring(file.indexOf('\t') + 1));
        if (fs == null) {
            fs = FileSystemContext.of(path);
        }
        try (TemporaryClassLoaderContext ignored = fs.enter()) {
            reader.read(path, r -> {
                if (selection.takesTimestamp(r.getTimestamp())) {
                    out.collect(r);
                }
            });
        }
    }

    @Override
    public void close() throws Exception {
        if (fs != null) {
            PoolThreads.forgetJobs(fs);
        }
        super.close();
    }
}
