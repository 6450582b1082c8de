package io.archiver.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The CPU time one benchmark round spent, split by part of the stack. Everything runs in one JVM, so the
 * threads' CPU clocks say where the machine's cores went: they are sampled every 100 ms (threads of a job end
 * before the round does, so their last sample counts), and what the process spent outside Java threads is
 * the JVM's own (garbage collection, JIT compilation). Threads that live less than one sampling period are
 * counted under the JVM's share.
 */
final class CpuAccounting implements AutoCloseable {

    /** Parts of the stack, told apart by thread name. */
    enum Part {
        TASK("Flink task threads"),
        FETCHER("Kafka consumer (Flink's fetcher)"),
        S3_CLIENT("S3 client (uploads, commits)"),
        S3_SERVER("S3 server"),
        KAFKA_BROKER("Kafka broker"),
        OTHER("other Java threads"),
        JVM("JVM (GC, JIT, short-lived threads)");

        final String label;

        Part(String label) {
            this.label = label;
        }

        static Part of(String thread) {
            if (thread.startsWith("Source Data Fetcher")) {
                return FETCHER;
            }
            if (thread.startsWith("Source: ") || thread.startsWith("Sink: ")) {
                return TASK;
            }
            if (thread.startsWith("S3Proxy")) {
                return S3_SERVER;
            }
            // ours (uploads, commit requests), Flink S3's upload pool (unnamed), S3A's transfer threads
            if (thread.startsWith("archive-") || thread.startsWith("pool-") || thread.startsWith("s3a-")) {
                return S3_CLIENT;
            }
            if (thread.contains("kafka") && !thread.contains("admin-client") && !thread.contains("producer")) {
                return KAFKA_BROKER;
            }
            return OTHER;
        }
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final Map<Long, Long> startNanos = new HashMap<>();
    private final Map<Long, Long> lastNanos = new HashMap<>();
    private final Map<Long, String> names = new HashMap<>();
    private final long processStart;
    private final ScheduledExecutorService sampler;

    private CpuAccounting() {
        sample(startNanos);
        processStart = OS.getProcessCpuTime();
        sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-cpu-sampler");
            t.setDaemon(true);
            return t;
        });
        sampler.scheduleAtFixedRate(() -> sample(lastNanos), 100, 100, TimeUnit.MILLISECONDS);
    }

    /** Starts accounting the CPU time spent from now on. */
    static CpuAccounting start() {
        return new CpuAccounting();
    }

    private synchronized void sample(Map<Long, Long> into) {
        for (long id : THREADS.getAllThreadIds()) {
            long nanos = THREADS.getThreadCpuTime(id);
            if (nanos < 0) {
                continue;
            }
            if (!names.containsKey(id)) {
                ThreadInfo info = THREADS.getThreadInfo(id);
                if (info == null) {
                    continue;
                }
                names.put(id, info.getThreadName());
            }
            into.put(id, nanos);
        }
    }

    /** Stops sampling; returns the CPU seconds spent since {@link #start()}, per part. */
    synchronized Map<Part, Double> seconds() {
        sampler.shutdownNow();
        sample(lastNanos);
        long process = OS.getProcessCpuTime() - processStart;
        Map<Part, Double> seconds = new EnumMap<>(Part.class);
        for (Part p : Part.values()) {
            seconds.put(p, 0.0);
        }
        long threads = 0;
        for (Map.Entry<Long, Long> e : lastNanos.entrySet()) {
            long spent = e.getValue() - startNanos.getOrDefault(e.getKey(), 0L);
            threads += spent;
            seconds.merge(Part.of(names.get(e.getKey())), spent / 1e9, Double::sum);
        }
        seconds.put(Part.JVM, Math.max(0, process - threads) / 1e9);
        return seconds;
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }
}
