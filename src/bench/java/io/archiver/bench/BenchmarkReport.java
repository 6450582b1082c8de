package io.archiver.bench;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/** Writes the throughput figures as Markdown, CSV and a PNG bar chart, with ratios to the limit and the peer. */
final class BenchmarkReport {

    private static final String LIMIT_A = "limit (a): Kafka consumer";
    private static final String LIMIT_B = "limit (b): S3 multipart ingest";
    private static final String PEER = "peer: plain Flink job";

    private final long records;
    private final long bytes;
    private final int rounds;

    BenchmarkReport(long records, long bytes, int rounds) {
        this.records = records;
        this.bytes = bytes;
        this.rounds = rounds;
    }

    /**
     * {@code outputBytes}: what each job variant wrote to S3 (none for the limits); {@code cpu}: the CPU seconds
     * of each measured round by part of the stack.
     */
    void write(Map<String, List<Double>> seconds, Map<String, Long> outputBytes,
            Map<String, List<Map<CpuAccounting.Part, Double>>> cpu) throws Exception {
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        double limit = Math.max(median(seconds.get(LIMIT_A)), median(seconds.get(LIMIT_B)));
        double peer = median(seconds.get(PEER));
        StringBuilder md = new StringBuilder();
        md.append("# Throughput, ").append(LocalDate.now()).append("\n\n")
                .append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ")
                .append(System.getProperty("java.version")).append(", Flink 2.2.0, Kafka 4.2.0 (embedded), S3Proxy 4.1.0 (filesystem backend), all in one JVM.\n")
                .append("Input: ").append(records).append(" records of 1 KiB with key and 2 headers over 8 partitions, ")
                .append(String.format("%.1f MB", bytes / 1e6)).append(". Parallelism 2, checkpoints every 5 s, MiniCluster start included.")
                .append(BenchSettings.described()).append(' ')
                .append("Median of ").append(rounds).append(" rounds after one warm-up round (min–max in brackets).\n\n")
                .append("The limit is the slower of (a) and (b). Ratios are of throughput (higher is better).\n\n")
                .append("| variant | seconds | records/s | MB/s | × limit | × peer | written MB |\n|---|---|---|---|---|---|---|\n");
        StringBuilder csv = new StringBuilder("variant,median_s,min_s,max_s,records_per_s,mb_per_s,ratio_limit,ratio_peer,written_mb\n");
        for (Map.Entry<String, List<Double>> e : seconds.entrySet()) {
            double med = median(e.getValue());
            double min = Collections.min(e.getValue());
            double max = Collections.max(e.getValue());
            Long written = outputBytes.get(e.getKey());
            String writtenMb = written == null ? "" : String.format("%.1f", written / 1e6);
            md.append(String.format("| %s | %.1f (%.1f–%.1f) | %,.0f | %.1f | %.2f | %.2f | %s |%n",
                    e.getKey(), med, min, max, records / med, bytes / 1e6 / med, limit / med, peer / med, writtenMb));
            csv.append(String.format("%s,%.3f,%.3f,%.3f,%.0f,%.2f,%.3f,%.3f,%s%n",
                    e.getKey(), med, min, max, records / med, bytes / 1e6 / med, limit / med, peer / med, writtenMb));
        }
        cpuTable(md, cpu, seconds);
        Files.writeString(dir.resolve("throughput.md"), md.toString());
        Files.writeString(dir.resolve("throughput.csv"), csv.toString());
        Files.writeString(dir.resolve("throughput-cpu.csv"), cpuCsv(cpu));
        chart(dir.resolve("throughput.png"), seconds);
        System.out.println(md);
    }

    /**
     * Where the cores went: CPU seconds per round by part of the stack (mean of the measured rounds), the share of
     * the machine the round kept busy, and CPU milliseconds per MB of input.
     */
    private void cpuTable(StringBuilder md, Map<String, List<Map<CpuAccounting.Part, Double>>> cpu,
            Map<String, List<Double>> seconds) {
        md.append("\nCPU seconds per round by part of the stack (mean of the measured rounds; one JVM, so the threads' ")
                .append("CPU clocks tell the parts apart). \"busy\" is CPU seconds over wall seconds × cores.\n\n| variant | CPU s | busy | ms/MB |");
        for (CpuAccounting.Part p : CpuAccounting.Part.values()) {
            md.append(' ').append(p.label).append(" |");
        }
        md.append("\n|---|---|---|---|").append("---|".repeat(CpuAccounting.Part.values().length)).append('\n');
        int cores = Runtime.getRuntime().availableProcessors();
        for (Map.Entry<String, List<Map<CpuAccounting.Part, Double>>> e : cpu.entrySet()) {
            Map<CpuAccounting.Part, Double> mean = mean(e.getValue());
            double total = mean.values().stream().mapToDouble(Double::doubleValue).sum();
            double wall = seconds.get(e.getKey()).stream().mapToDouble(Double::doubleValue).average().orElse(1);
            md.append(String.format("| %s | %.1f | %.0f %% | %.1f |", e.getKey(), total, 100 * total / (wall * cores),
                    1000 * total / (bytes / 1e6)));
            for (double s : mean.values()) {
                md.append(String.format(" %.1f |", s));
            }
            md.append('\n');
        }
    }

    private static String cpuCsv(Map<String, List<Map<CpuAccounting.Part, Double>>> cpu) {
        StringBuilder csv = new StringBuilder("variant");
        for (CpuAccounting.Part p : CpuAccounting.Part.values()) {
            csv.append(',').append(p.name().toLowerCase()).append("_cpu_s");
        }
        csv.append('\n');
        for (Map.Entry<String, List<Map<CpuAccounting.Part, Double>>> e : cpu.entrySet()) {
            csv.append(e.getKey());
            for (double s : mean(e.getValue()).values()) {
                csv.append(String.format(",%.3f", s));
            }
            csv.append('\n');
        }
        return csv.toString();
    }

    private static Map<CpuAccounting.Part, Double> mean(List<Map<CpuAccounting.Part, Double>> rounds) {
        Map<CpuAccounting.Part, Double> mean = new EnumMap<>(CpuAccounting.Part.class);
        for (Map<CpuAccounting.Part, Double> round : rounds) {
            round.forEach((p, s) -> mean.merge(p, s / rounds.size(), Double::sum));
        }
        return mean;
    }

    private void chart(Path file, Map<String, List<Double>> seconds) throws Exception {
        int width = 900;
        int barHeight = 34;
        int left = 260;
        BufferedImage image = new BufferedImage(width, 60 + barHeight * seconds.size(), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString("Input MB/s (median), " + records + " × 1 KiB records", 10, 22);
        double best = 0;
        List<Double> rates = new ArrayList<>();
        for (List<Double> s : seconds.values()) {
            double rate = bytes / 1e6 / median(s);
            rates.add(rate);
            best = Math.max(best, rate);
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int y = 40;
        int i = 0;
        for (String name : seconds.keySet()) {
            double rate = rates.get(i++);
            int w = (int) ((width - left - 80) * rate / best);
            g.setColor(name.startsWith("limit") ? new Color(150, 150, 150) : name.startsWith("peer") ? new Color(230, 150, 60) : new Color(60, 120, 200));
            g.fillRect(left, y, w, barHeight - 10);
            g.setColor(Color.BLACK);
            g.drawString(name, 10, y + 16);
            g.drawString(String.format("%.1f", rate), left + w + 6, y + 16);
            y += barHeight;
        }
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
