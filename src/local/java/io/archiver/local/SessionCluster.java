package io.archiver.local;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Flink standalone session cluster on this machine, as separate JVMs started the way Flink's own
 * scripts start them: a JobManager ({@code StandaloneSessionClusterEntrypoint}) and TaskManagers
 * ({@code TaskManagerRunner}), with memory settings from {@code BashJavaUtils}, a conf folder and a plugins
 * folder. Jobs are submitted and stopped with Flink's {@code CliFrontend}. Uses only the JDK, so it runs
 * without Flink on its own classpath; {@code bin/session-cluster.sh} drives it.
 */
public final class SessionCluster {

    private static final String[] JVM_OPENS = {
        "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.time=ALL-UNNAMED",
        "--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED", "--add-opens=java.sql/java.sql=ALL-UNNAMED"
    };
    private static final Pattern JOB_ID = Pattern.compile("JobID ([0-9a-f]{32})");
    private static final Pattern SAVEPOINT = Pattern.compile("Savepoint completed\\. Path: (\\S+)");

    private final Path lib;
    private final Path conf;
    private final Path plugins;
    private final Path logs;
    /** The processes' working folders (blobs: a copy of each submitted jar per process), deleted by {@link #stop}. */
    private final Path scratch;
    private final int restPort;
    private final Map<String, String> settings;
    private final Map<String, String> environment = new java.util.LinkedHashMap<>();
    private Process jobManager;
    private final List<Process> taskManagers = new ArrayList<>();

    /**
     * Prepares a cluster under {@code workDir}: its conf folder is {@code baseConf} plus {@code settings}
     * (addresses, ports, S3 endpoint and credentials of this environment). The JobManager's RPC port is a free
     * one unless {@code settings} (or {@code baseConf}) name it, so that another Flink on this machine does not
     * stop it from starting; {@code restPort} 0 picks a free REST port too. Every other port the cluster opens
     * is chosen by Flink at start.
     */
    public SessionCluster(Path lib, Path baseConf, Path plugins, Path workDir, int restPort, Map<String, String> settings)
            throws IOException {
        this.lib = lib.toAbsolutePath();
        this.plugins = plugins.toAbsolutePath();
        this.conf = workDir.toAbsolutePath().resolve("conf");
        this.logs = workDir.toAbsolutePath().resolve("log");
        this.scratch = workDir.toAbsolutePath().resolve("tmp");
        this.restPort = restPort == 0 ? freePort() : restPort;
        Files.createDirectories(conf);
        Files.createDirectories(logs);
        // conf/flink/config.yaml is flat (one `key: value` per line); this environment's settings win.
        Map<String, String> merged = new java.util.LinkedHashMap<>();
        for (String line : Files.readAllLines(baseConf.resolve("config.yaml"))) {
            int colon = line.indexOf(": ");
            if (!line.isBlank() && !line.startsWith("#") && colon > 0) {
                merged.put(line.substring(0, colon).trim(), line.substring(colon + 2).trim());
            }
        }
        merged.put("jobmanager.rpc.address", "127.0.0.1");
        merged.put("jobmanager.bind-host", "127.0.0.1");
        merged.put("taskmanager.bind-host", "127.0.0.1");
        merged.put("taskmanager.host", "127.0.0.1");
        merged.put("rest.address", "127.0.0.1");
        merged.put("rest.bind-address", "127.0.0.1");
        merged.put("rest.port", Integer.toString(this.restPort));
        merged.putAll(settings);
        // not the machine's /tmp: a killed process leaves its working folder (a copy of every jar it ran) behind
        merged.putIfAbsent("io.tmp.dirs", scratch.toString());
        Files.createDirectories(scratch);
        if (!merged.containsKey("jobmanager.rpc.port")) {
            merged.put("jobmanager.rpc.port", Integer.toString(freePort()));
        }
        this.settings = merged;
        StringBuilder yaml = new StringBuilder("# written by SessionCluster from conf/flink/config.yaml\n");
        merged.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
        Files.writeString(conf.resolve("config.yaml"), yaml.toString());
        // the logging configuration, then the filters of Flink's known false warnings (conf/flink/log4j-filters.properties)
        String logging = Files.readString(baseConf.resolve("log4j.properties"));
        Path filters = baseConf.resolve("log4j-filters.properties");
        if (Files.exists(filters)) {
            logging += "\n" + Files.readString(filters);
        }
        Files.writeString(conf.resolve("log4j.properties"), logging);
    }

    /** The cluster prepared under {@code workDir} by an earlier process, as its conf folder says. */
    public static SessionCluster reopen(Path lib, Path plugins, Path workDir) throws IOException {
        Path conf = workDir.toAbsolutePath().resolve("conf");
        int rest = 0;
        for (String line : Files.readAllLines(conf.resolve("config.yaml"))) {
            if (line.startsWith("rest.port: ")) {
                rest = Integer.parseInt(line.substring("rest.port: ".length()).trim());
            }
        }
        return new SessionCluster(lib, conf, plugins, workDir, rest, Map.of());
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * Environment variables of every process of the cluster and of its client (submissions), e.g. the S3
     * credentials {@code AWS_ACCESS_KEY_ID} and {@code AWS_SECRET_ACCESS_KEY} instead of keys in config.yaml.
     * Before {@link #start}.
     */
    public SessionCluster withEnvironment(Map<String, String> variables) {
        environment.putAll(variables);
        return this;
    }

    /** The folder of every process's log and output, the clients' included. */
    public Path logDir() {
        return logs;
    }

    public String restUrl() {
        return "http://127.0.0.1:" + restPort;
    }

    public Path confDir() {
        return conf;
    }

    /** Starts the JobManager and {@code taskManagers} TaskManagers and waits until they are registered. */
    public void start(int taskManagers) throws Exception {
        startJobManager();
        for (int i = 0; i < taskManagers; i++) {
            startTaskManager();
        }
        awaitTaskManagers(taskManagers, Duration.ofMinutes(2));
    }

    public void startJobManager() throws Exception {
        jobManager = launch("jobmanager", "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                "GET_JM_RESOURCE_PARAMS", "env.java.opts.jobmanager");
        awaitRest(Duration.ofMinutes(2));
    }

    public Process startTaskManager() throws Exception {
        Process tm = launch("taskmanager-" + taskManagers.size() + "-" + System.currentTimeMillis(), "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                "GET_TM_RESOURCE_PARAMS", "env.java.opts.taskmanager");
        taskManagers.add(tm);
        return tm;
    }

    /** {@code kill -9} of every TaskManager started so far that is still alive. */
    public void killTaskManagers() throws InterruptedException {
        for (Process tm : taskManagers) {
            if (tm.isAlive()) {
                tm.destroyForcibly();
                tm.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** {@code kill -9} of the JobManager. */
    public void killJobManager() throws InterruptedException {
        jobManager.destroyForcibly();
        jobManager.waitFor(30, TimeUnit.SECONDS);
    }

    /** Submits a job jar detached and returns its job id. */
    public String submit(Path jar, String... programArgs) throws Exception {
        return submitFrom(null, jar, programArgs);
    }

    /** Submits a job jar detached, restoring from {@code statePath} when not null, and returns its job id. */
    public String submitFrom(String statePath, Path jar, String... programArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "-d"));
        if (statePath != null) {
            args.addAll(List.of("-s", statePath));
        }
        args.add(jar.toAbsolutePath().toString());
        args.addAll(Arrays.asList(programArgs));
        return find(JOB_ID, cli(args), "job id");
    }

    /**
     * Stops a job with a savepoint into {@code dir} and returns the savepoint's path. A savepoint cannot be
     * triggered while the job is still recovering (tasks not all running yet): that is retried, 5 times at
     * most, 3 s apart.
     */
    public String stopWithSavepoint(String jobId, String dir) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return find(SAVEPOINT, cli(List.of("stop", "--savepointPath", dir, jobId)), "savepoint path");
            } catch (IllegalStateException e) {
                if (attempt == 5 || !e.getMessage().contains("Trigger checkpoint failure")) {
                    throw e;
                }
                TimeUnit.SECONDS.sleep(3);
            }
        }
    }

    /** Cancels a job. */
    public void cancel(String jobId) throws Exception {
        cli(List.of("cancel", jobId));
    }

    /** Status of a job from the REST API, e.g. RUNNING. */
    public String jobStatus(String jobId) throws IOException {
        String body = get("/jobs/" + jobId);
        Matcher m = Pattern.compile("\"state\"\\s*:\\s*\"([A-Z]+)\"").matcher(body);
        return m.find() ? m.group(1) : "UNKNOWN";
    }

    /** Process ids of the JobManager and the live TaskManagers, one per line. */
    public String pids() {
        StringBuilder sb = new StringBuilder().append(jobManager.pid()).append('\n');
        taskManagers.stream().filter(Process::isAlive).forEach(tm -> sb.append(tm.pid()).append('\n'));
        return sb.toString();
    }

    /** Kills every process of the cluster and deletes their working folders (the logs stay). */
    public void stop() throws InterruptedException {
        killTaskManagers();
        if (jobManager != null && jobManager.isAlive()) {
            jobManager.destroy();
            if (!jobManager.waitFor(30, TimeUnit.SECONDS)) {
                jobManager.destroyForcibly();
                jobManager.waitFor(30, TimeUnit.SECONDS);
            }
        }
        deleteScratch();
    }

    private void deleteScratch() {
        try (java.util.stream.Stream<Path> files = Files.walk(scratch)) {
            files.sorted(java.util.Comparator.reverseOrder()).filter(f -> !f.equals(scratch)).forEach(f -> f.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException e) {
            // best effort: a folder left behind takes disk, not correctness
        }
    }

    private String cli(List<String> args) throws Exception {
        List<String> command = java("client", "org.apache.flink.client.cli.CliFrontend", javaOptions("env.java.opts.client"));
        command.addAll(args);
        Path output = logs.resolve("client-" + System.nanoTime() + ".out");
        Process p = processBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("flink " + args + " did not finish within 3 minutes; see " + output);
        }
        String out = Files.readString(output, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IllegalStateException("flink " + args + " failed (exit " + p.exitValue() + "):\n" + out);
        }
        return out;
    }

    private static String find(Pattern pattern, String text, String what) {
        Matcher m = pattern.matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("No " + what + " in Flink's answer:\n" + text);
        }
        return m.group(1);
    }

    /** As Flink's scripts do: the JVM options of {@code env.java.opts.all} and of the process's own {@code optsKey}. */
    private List<String> javaOptions(String optsKey) {
        List<String> options = new ArrayList<>();
        for (String key : List.of("env.java.opts.all", optsKey)) {
            Arrays.stream(settings.getOrDefault(key, "").split("\\s+")).filter(o -> !o.isEmpty()).forEach(options::add);
        }
        return options;
    }

    /** Starts a JobManager or TaskManager JVM with the memory flags Flink computes for it and {@link #javaOptions}. */
    private Process launch(String name, String mainClass, String resourceCommand, String optsKey) throws Exception {
        List<List<String>> params = resourceParams(resourceCommand);
        List<String> jvm = new ArrayList<>(params.get(0));
        jvm.addAll(javaOptions(optsKey));
        List<String> command = java(name, mainClass, jvm);
        command.addAll(List.of("--configDir", conf.toString()));
        command.addAll(params.get(1));
        return processBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve(name + ".out").toFile())
                .start();
    }

    private List<String> java(String name, String mainClass, List<String> extra) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(JVM_OPENS));
        command.add("-Dlog.file=" + logs.resolve(name + ".log"));
        command.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        command.addAll(extra);
        command.add("-cp");
        command.add(lib + "/*");
        command.add(mainClass);
        return command;
    }

    private ProcessBuilder processBuilder(List<String> command) {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("FLINK_CONF_DIR", conf.toString());
        pb.environment().put("FLINK_PLUGINS_DIR", plugins.toString());
        pb.environment().put("AWS_JAVA_V1_DISABLE_DEPRECATION_ANNOUNCEMENT", "true");
        pb.environment().putAll(environment);
        return pb;
    }

    /**
     * JVM flags and dynamic properties (program arguments {@code -D key=value}) of a JobManager or
     * TaskManager, computed by Flink's BashJavaUtils from the memory settings, exactly as
     * bin/jobmanager.sh and bin/taskmanager.sh do.
     */
    private List<List<String>> resourceParams(String command) throws Exception {
        List<String> call = java("bash-java-utils", "org.apache.flink.runtime.util.bash.BashJavaUtils", List.of());
        call.addAll(List.of(command, "--configDir", conf.toString()));
        Process p = processBuilder(call).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(1, TimeUnit.MINUTES);
        String prefix = "BASH_JAVA_UTILS_EXEC_RESULT:";
        List<String> results = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.startsWith(prefix)) {
                results.add(line.substring(prefix.length()).trim());
            }
        }
        if (results.size() >= 2) {
            List<String> jvm = new ArrayList<>(Arrays.asList(results.get(0).split("\\s+")));
            jvm.removeIf(String::isEmpty);
            List<String> dynamic = new ArrayList<>();
            Matcher m = Pattern.compile("-D\\s+(\\S+)").matcher(results.get(1));
            while (m.find()) {
                dynamic.add("-D");
                dynamic.add(m.group(1));
            }
            return List.of(jvm, dynamic);
        }
        throw new IllegalStateException("BashJavaUtils " + command + " gave no result:\n" + out);
    }

    private void awaitRest(Duration timeout) throws Exception {
        awaitTrue(timeout, () -> get("/overview").contains("taskmanagers"), "the JobManager's REST API at " + restUrl());
    }

    /** TaskManagers registered with the JobManager now. */
    public int registeredTaskManagers() throws IOException {
        Matcher m = Pattern.compile("\"taskmanagers\"\\s*:\\s*(\\d+)").matcher(get("/overview"));
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** The resource ids of the TaskManagers registered with the JobManager now. */
    public Set<String> taskManagerIds() throws IOException {
        Set<String> ids = new TreeSet<>();
        Matcher m = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"").matcher(get("/taskmanagers"));
        while (m.find()) {
            ids.add(m.group(1));
        }
        return ids;
    }

    /**
     * Waits until a TaskManager that is not one of {@code before} registers: a TaskManager killed a moment before
     * may drop out meanwhile (its heartbeat times out), so a count would not do. Returns the ids registered then.
     */
    public Set<String> awaitNewTaskManager(Set<String> before, Duration timeout) throws Exception {
        Set<String> now = new TreeSet<>();
        awaitTrue(timeout, () -> {
            now.clear();
            now.addAll(taskManagerIds());
            return !before.containsAll(now);
        }, "a new TaskManager registered (besides " + before + ")");
        return now;
    }

    public void awaitTaskManagers(int count, Duration timeout) throws Exception {
        awaitTrue(timeout, () -> registeredTaskManagers() >= count, count + " TaskManagers registered");
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    private void awaitTrue(Duration timeout, Check check, String what) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            try {
                if (check.ok()) {
                    return;
                }
            } catch (IOException notYet) {
                // not up yet
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what + "; logs in " + logs);
            }
            if (jobManager != null && !jobManager.isAlive()) {
                throw new IllegalStateException("The JobManager exited (code " + jobManager.exitValue() + "); logs in " + logs);
            }
            TimeUnit.MILLISECONDS.sleep(300);
        }
    }

    /** The body of a GET on the REST API, e.g. {@code /jobs/<id>}. */
    public String get(String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(restUrl() + path).toURL().openConnection();
        c.setConnectTimeout(2_000);
        c.setReadTimeout(5_000);
        try {
            return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }
}
