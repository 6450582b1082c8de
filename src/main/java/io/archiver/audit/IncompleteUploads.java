package io.archiver.audit;

import java.io.IOException;
import java.util.List;

/** Lists multipart uploads under an archive root that were started but neither completed nor aborted. */
@FunctionalInterface
public interface IncompleteUploads {

    /** For filesystems without multipart uploads. */
    IncompleteUploads NONE = root -> List.of();

    /** Object keys (with their upload ids) of incomplete uploads under {@code root}. */
    List<String> list(String root) throws IOException;
}
