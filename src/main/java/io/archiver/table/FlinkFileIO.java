package io.archiver.table;

import io.archiver.fs.FileSystemContext;
import io.archiver.fs.MetadataObjects;

import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.TemporaryClassLoaderContext;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Iceberg's file access through Flink's file systems: the table's metadata and manifests are read and written with
 * the same S3 settings, credentials and encryption as the archive's files ({@code flink.s3.*}), and the table needs
 * no Hadoop configuration of its own. A catalog loads it by name ({@code io-impl}).
 */
public final class FlinkFileIO implements FileIO {

    private static final long serialVersionUID = 1L;

    private Map<String, String> properties = Map.of();

    @Override
    public void initialize(Map<String, String> props) {
        this.properties = Map.copyOf(props);
    }

    @Override
    public Map<String, String> properties() {
        return properties;
    }

    @Override
    public InputFile newInputFile(String location) {
        return new In(location, -1);
    }

    @Override
    public InputFile newInputFile(String location, long length) {
        return new In(location, length);
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return new Out(location);
    }

    @Override
    public void deleteFile(String location) {
        Path path = new Path(location);
        try (TemporaryClassLoaderContext ignored = context(path)) {
            path.getFileSystem().delete(path, false);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + location, e);
        }
    }

    private static FileSystem fs(Path path) {
        try {
            return path.getFileSystem();
        } catch (IOException e) {
            throw new UncheckedIOException("No file system for " + path, e);
        }
    }

    /**
     * The file system's class loader as the thread's context class loader until closed: Iceberg calls from its own
     * and the committer's threads, whose context class loader may be a task's that is gone by then.
     */
    private static TemporaryClassLoaderContext context(Path path) {
        return contextOf(path).enter();
    }

    /** The context of {@code path}'s file system, looked up once for a stream's many calls. */
    private static FileSystemContext contextOf(Path path) {
        try {
            return FileSystemContext.of(path);
        } catch (IOException e) {
            throw new UncheckedIOException("No file system for " + path, e);
        }
    }

    private static final class In implements InputFile {
        private final String location;
        private long length;

        In(String location, long length) {
            this.location = location;
            this.length = length;
        }

        @Override
        public long getLength() {
            if (length < 0) {
                Path path = new Path(location);
                try (TemporaryClassLoaderContext ignored = context(path)) {
                    length = fs(path).getFileStatus(path).getLen();
                } catch (FileNotFoundException e) {
                    throw new NotFoundException(e, "File does not exist: %s", location);
                } catch (IOException e) {
                    throw new UncheckedIOException("Cannot read the length of " + location, e);
                }
            }
            return length;
        }

        @Override
        public SeekableInputStream newStream() {
            Path path = new Path(location);
            FSDataInputStream in;
            try (TemporaryClassLoaderContext ignored = context(path)) {
                in = fs(path).open(path);
            } catch (FileNotFoundException e) {
                throw new NotFoundException(e, "File does not exist: %s", location);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot open " + location, e);
            }
            FileSystemContext fsContext = contextOf(path);
            return new SeekableInputStream() {
                @Override
                public long getPos() throws IOException {
                    return in.getPos();
                }

                @Override
                public void seek(long newPos) throws IOException {
                    try (TemporaryClassLoaderContext ignored = fsContext.enter()) {
                        in.seek(newPos);
                    }
                }

                @Override
                public int read() throws IOException {
                    try (TemporaryClassLoaderContext ignored = fsContext.enter()) {
                        return in.read();
                    }
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    try (TemporaryClassLoaderContext ignored = fsContext.enter()) {
                        return in.read(b, off, len);
                    }
                }

                @Override
                public long skip(long n) throws IOException {
                    try (TemporaryClassLoaderContext ignored = fsContext.enter()) {
                        return in.skip(n);
                    }
                }

                @Override
                public int available() throws IOException {
                    return in.available();
                }

                @Override
                public void close() throws IOException {
                    try (TemporaryClassLoaderContext ignored = fsContext.enter()) {
                        in.close();
                    }
                }
            };
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public boolean exists() {
            Path path = new Path(location);
            try (TemporaryClassLoaderContext ignored = context(path)) {
                return fs(path).exists(path);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot look for " + location, e);
            }
        }
    }

    private static final class Out implements OutputFile {
        private final String location;

        Out(String location) {
            this.location = location;
        }

        @Override
        public PositionOutputStream create() {
            Path path = new Path(location);
            try (TemporaryClassLoaderContext ignored = context(path)) {
                if (fs(path).exists(path)) {
                    throw new AlreadyExistsException("File already exists: %s", location);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot look for " + location, e);
            }
            return open(FileSystem.WriteMode.NO_OVERWRITE);
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return open(FileSystem.WriteMode.OVERWRITE);
        }

        private PositionOutputStream open(FileSystem.WriteMode mode) {
            Path path = new Path(location);
            FSDataOutputStream out;
            try (TemporaryClassLoaderContext ignored = context(path)) {
                out = fs(path).create(path, mode);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create " + location, e);
            }
            FileSystemContext fsContext = contextOf(path);
            return new PositionOutputStream() {
                /** Iceberg asks for the length after closing, which a closed Flink stream may refuse. */
                private long closedAt = -1;

                @Override
                public long getPos() throws IOException {
                    return closedAt >= 0 ? closedAt : out.getPos();
                }

                @Override
                public void write(int b) throws IOException {
                    try (TemporaryClassLoaderContext ignored = fsContext.enter()) {
                        out.write(b);
                    }
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    try (TemporaryClassLoaderContext ignored = fsContext.enter()) {
                        out.write(b, off, len);
                    }
                }

                /**
                 * Nothing: an object is written whole when the stream closes, and S3A warns of every flush (Hadoop's
                 * Syncable, which object stores do not support). Iceberg closes every file it writes.
                 */
                @Override
                public void flush() {
                }

                @Override
                public void close() throws IOException {
                    if (closedAt < 0) {
                        try (TemporaryClassLoaderContext ignored = fsContext.enter()) {
                            long pos = out.getPos();
                            out.close();
                            closedAt = pos;
                        }
                        // a table whose catalog points at metadata that was never written cannot be read
                        MetadataObjects.failIfInterrupted(path);
                    }
                }
            };
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public InputFile toInputFile() {
            return new In(location, -1);
        }
    }
}
