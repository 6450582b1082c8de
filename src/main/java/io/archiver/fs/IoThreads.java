package io.archiver.fs;

import java.util.concurrent.ThreadFactory;

/** Threads of the archiver's own small I/O pools (position records, commits, lag checks). */
public final class IoThreads {

    private IoThreads() {}

    /** Daemon threads named {@code name}, that never keep a JVM alive. */
    public static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }}
