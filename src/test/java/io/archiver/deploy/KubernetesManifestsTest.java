package io.archiver.deploy;

import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigLoader;
import io.archiver.table.TableSettings;
import io.archiver.testutils.CrdSchema;
import io.archiver.testutils.FlinkDistributionLayout;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Flink Kubernetes Operator manifests of conf/kubernetes held against the job itself: the image holds the jar
 * where they point, the entry class and arguments are the archiver's, the configuration they mount passes the
 * archiver's own validation, upgrades take savepoints, state lives in S3, credentials come from the pod's role and
 * every secret is a reference. No Kubernetes runs here: what the operator makes of them is not tried.
 */
class KubernetesManifestsTest {

    private static final Path DIR = Path.of("conf", "kubernetes");
    private static final Pattern COPY_JAR = Pattern.compile("(?m)^COPY (?:--chown=\\S+ )?(target/\\S+\\.jar) (\\S+)$");
    private static final Pattern SECRET_KEY = Pattern.compile("(?i).*(password|secret|access-key|access\\.key|token).*");

    @Test
    void applicationDeploymentRunsTheImagesJarWithTheMountedConfigurationAndSavepointUpgrades() throws Exception {
        Map<String, Object> deployment = only(documents("flink-deployment.yaml"), "FlinkDeployment");
        Map<String, Object> spec = map(deployment.get("spec"));
        assertClusterSpec(spec);
        Map<String, Object> job = map(spec.get("job"));
        assertThat(job.get("jarURI")).isEqualTo("local://" + imageJarPath());
        assertArchiverJob(job, spec);
    }

    @Test
    void sessionJobRunsTheArchiverOnTheSessionClusterWithSavepointUpgrades() throws Exception {
        List<Map<String, Object>> docs = documents("flink-session-job.yaml");
        Map<String, Object> session = only(docs, "FlinkDeployment");
        Map<String, Object> sessionSpec = map(session.get("spec"));
        assertThat(sessionSpec).as("a session cluster has no job").doesNotContainKey("job");
        assertClusterSpec(sessionSpec);
        Map<String, Object> sessionJob = map(only(docs, "FlinkSessionJob").get("spec"));
        assertThat(sessionJob.get("deploymentName")).isEqualTo(map(session.get("metadata")).get("name"));
        Map<String, Object> job = map(sessionJob.get("job"));
        assertThat(String.valueOf(job.get("jarURI"))).as("the operator fetches https by default").startsWith("https://")
                .as("the jar the build makes").endsWith("/" + Path.of(System.getProperty("archiver.shaded.jar",
                        "target/kafka-s3-archiver-0.1.0-SNAPSHOT.jar")).getFileName());
        assertArchiverJob(job, sessionSpec);
    }

    @Test
    void imageIsTheFlinkVersionOfTheBuildWithTheJarAndTheS3PluginFromOpt() throws Exception {
        String dockerfile = Files.readString(DIR.resolve("Dockerfile"));
        String flink = flinkVersion();
        assertThat(dockerfile).contains("FROM flink:" + flink + "-scala_2.12-java17");
        Matcher copy = COPY_JAR.matcher(dockerfile);
        assertThat(copy.find()).as("a COPY of the job jar").isTrue();
        assertThat(Path.of(copy.group(1)).getFileName().toString())
                .isEqualTo(Path.of(System.getProperty("archiver.shaded.jar", "target/kafka-s3-archiver-0.1.0-SNAPSHOT.jar"))
                        .getFileName().toString());
        assertThat(dockerfile).contains("/opt/flink/opt/flink-s3-fs-hadoop-" + flink + ".jar /opt/flink/plugins/s3-fs-hadoop/");
        Matcher fromOpt = Pattern.compile("/opt/flink/opt/([\\w.-]+\\.jar)").matcher(dockerfile);
        while (fromOpt.find()) {
            assertThat(FlinkDistributionLayout.OPT).as("%s is in the distribution's opt/ (a cp of a missing file fails the build)",
                    fromOpt.group(1)).contains(FlinkDistributionLayout.unversioned(fromOpt.group(1)));
        }
    }

    @Test
    void mountedConfigurationPassesTheArchiversValidation(@TempDir Path dir) throws Exception {
        String yaml = String.valueOf(map(only(documents("archiver-config.yaml"), "ConfigMap").get("data")).get("archiver.yaml"));
        Path file = dir.resolve("archiver.yaml");
        Files.writeString(file, yaml);
        ArchiverConfig config = ConfigLoader.load(file, Map.of());
        assertThat(config.sinkPath()).startsWith("s3://");
        assertThat(config.leaseTimeout()).as("an upgrade waits for the lease to expire").isLessThanOrEqualTo(java.time.Duration.ofMinutes(2));
    }

    /** With the table lines uncommented, the mounted configuration has tables in PostgreSQL, its password from every pod's environment. */
    @Test
    void mountedConfigurationWithItsTableLinesUncommentedHasTablesWhosePasswordEveryPodGets(@TempDir Path dir) throws Exception {
        String yaml = String.valueOf(map(only(documents("archiver-config.yaml"), "ConfigMap").get("data")).get("archiver.yaml"));
        String uncommented = yaml.replaceAll("(?m)^# (table:|  [\\w.]+: .*)$", "$1");
        assertThat(uncommented).as("the commented table lines").isNotEqualTo(yaml);
        Path file = dir.resolve("archiver.yaml");
        Files.writeString(file, uncommented);
        TableSettings table = TableSettings.of(ConfigLoader.load(file, Map.of())).orElseThrow();
        assertThat(table.uri()).startsWith("jdbc:postgresql://");
        Matcher reference = Pattern.compile("catalog\\.password: \\$\\{env:(\\w+)}").matcher(uncommented);
        assertThat(reference.find()).as("the catalog password, a reference").isTrue();
        for (Map<String, Object> container : containers()) {
            assertThat(list(container.get("env")).stream().map(KubernetesManifestsTest::map).map(e -> e.get("name")))
                    .as("environment of %s", container.get("name")).contains(reference.group(1));
        }
    }

    /**
     * The CronJobs of table-maintenance.yaml run `table compact` and `table expire` one at a time with the image's job
     * jar, the JVM flags bin/archiver gives it, the S3 plugin and the configuration the job's pods mount.
     */
    @Test
    void tableMaintenanceCronJobsRunTheImagesCommandLineOnTheMountedConfigurationOneAtATime() throws Exception {
        List<Map<String, Object>> jobs = documents("table-maintenance.yaml");
        assertThat(jobs).extracting(d -> d.get("kind")).containsOnly("CronJob");
        Map<String, Object> deploymentSpec = map(only(documents("flink-deployment.yaml"), "FlinkDeployment").get("spec"));
        String opens = Files.readString(Path.of("bin", "lib", "java-env.sh")).replaceAll("(?s).*\nOPENS=\"([^\"]+)\".*", "$1");
        List<List<String>> commands = new ArrayList<>();
        for (Map<String, Object> cronJob : jobs) {
            Map<String, Object> spec = map(cronJob.get("spec"));
            assertThat(spec.get("concurrencyPolicy")).isEqualTo("Forbid");
            Map<String, Object> pod = map(map(map(map(spec.get("jobTemplate")).get("spec")).get("template")).get("spec"));
            assertThat(pod.get("serviceAccountName")).isEqualTo(deploymentSpec.get("serviceAccount"));
            Map<String, Object> container = map(list(pod.get("containers")).get(0));
            assertThat(container.get("image")).isEqualTo(deploymentSpec.get("image"));
            List<String> command = list(container.get("command")).stream().map(String::valueOf).toList();
            assertThat(command.get(0)).isEqualTo("java");
            assertThat(String.join(" ", command.subList(1, command.indexOf("-cp")))).isEqualTo(opens);
            String imageJarFolder = Path.of(imageJarPath()).getParent().toString();
            assertThat(command.get(command.indexOf("-cp") + 1).split(":")).contains(imageJarFolder + "/*", "/opt/flink/lib/*");
            assertThat(command.get(command.size() - 1)).isEqualTo(ArchiverCli.class.getName());
            assertThat(list(container.get("env"))).contains(Map.of("name", "FLINK_PLUGINS_DIR", "value", "/opt/flink/plugins"));
            assertThat(Files.readString(DIR.resolve("Dockerfile"))).contains("/opt/flink/plugins/s3-fs-hadoop/");

            List<String> args = list(container.get("args")).stream().map(String::valueOf).toList();
            picocli.CommandLine.ParseResult parsed = ArchiverCli.commandLine().parseArgs(args.toArray(new String[0]));
            assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("table");
            commands.add(List.of(parsed.subcommand().subcommand().commandSpec().name()));
            String configMap = String.valueOf(map(only(documents("archiver-config.yaml"), "ConfigMap").get("metadata")).get("name"));
            String volume = list(pod.get("volumes")).stream().map(KubernetesManifestsTest::map)
                    .filter(v -> v.containsKey("configMap") && configMap.equals(map(v.get("configMap")).get("name")))
                    .map(v -> String.valueOf(v.get("name"))).findFirst().orElseThrow();
            String mountPath = list(container.get("volumeMounts")).stream().map(KubernetesManifestsTest::map)
                    .filter(m -> volume.equals(m.get("name"))).map(m -> String.valueOf(m.get("mountPath"))).findFirst().orElseThrow();
            assertThat(args.get(args.indexOf("--config") + 1)).isEqualTo(mountPath + "/archiver.yaml");
            assertThat(args).contains("-Dflink.s3.aws.credentials.provider=" + CREDENTIALS_CHAIN);
        }
        assertThat(commands).containsExactlyInAnyOrder(List.of("compact"), List.of("expire"));
    }

    /** The containers of every pod the manifests run the archiver in. */
    private static List<Map<String, Object>> containers() throws IOException {
        List<Map<String, Object>> containers = new ArrayList<>();
        for (String file : List.of("flink-deployment.yaml", "flink-session-job.yaml")) {
            Map<String, Object> podSpec = map(map(map(only(documents(file), "FlinkDeployment").get("spec")).get("podTemplate")).get("spec"));
            list(podSpec.get("containers")).stream().map(KubernetesManifestsTest::map).forEach(containers::add);
        }
        for (Map<String, Object> cronJob : documents("table-maintenance.yaml")) {
            Map<String, Object> pod = map(map(map(map(map(cronJob.get("spec")).get("jobTemplate")).get("spec")).get("template")).get("spec"));
            list(pod.get("containers")).stream().map(KubernetesManifestsTest::map).forEach(containers::add);
        }
        return containers;
    }

    @Test
    void everySecretIsAReferenceAndS3CredentialsComeFromThePodsRole() throws Exception {
        List<String> literals = new ArrayList<>();
        for (String file : List.of("archiver-config.yaml", "flink-deployment.yaml", "flink-session-job.yaml", "table-maintenance.yaml")) {
            for (Map<String, Object> doc : documents(file)) {
                assertThat(doc.get("kind")).as("%s holds no Secret", file).isNotEqualTo("Secret");
                findLiteralSecrets(file, doc, literals);
            }
        }
        assertThat(literals).as("secrets written into the manifests").isEmpty();

        Map<String, Object> account = only(documents("archiver-config.yaml"), "ServiceAccount");
        assertThat(map(map(account.get("metadata")).get("annotations"))).containsKey("eks.amazonaws.com/role-arn");
        for (String file : List.of("flink-deployment.yaml", "flink-session-job.yaml")) {
            Map<String, Object> spec = map(only(documents(file), "FlinkDeployment").get("spec"));
            assertThat(spec.get("serviceAccount")).isEqualTo(map(account.get("metadata")).get("name"));
            Map<String, Object> flink = map(spec.get("flinkConfiguration"));
            assertThat(flink.get("s3.aws.credentials.provider")).isEqualTo(CREDENTIALS_CHAIN);
            assertThat(flink).doesNotContainKeys("s3.access-key", "s3.secret-key");
        }
    }

    /**
     * The credentials chain the deployments name is in the S3 plugin the build ships, and its container credentials
     * provider reads EKS Pod Identity's token file and endpoint, as its web identity provider reads IRSA's token.
     */
    @Test
    void theCredentialsChainServesIrsaAndEksPodIdentityFromTheS3Plugin() throws Exception {
        Path plugin;
        try (var jars = Files.list(Path.of("target", "plugins", "s3-fs-hadoop"))) {
            plugin = jars.filter(j -> j.toString().endsWith(".jar")).findFirst().orElseThrow();
        }
        try (java.util.zip.ZipFile jar = new java.util.zip.ZipFile(plugin.toFile())) {
            assertThat(jar.getEntry(CREDENTIALS_CHAIN.replace('.', '/') + ".class")).as("%s in %s", CREDENTIALS_CHAIN, plugin).isNotNull();
            String chain = classText(jar, "com/amazonaws/auth/DefaultAWSCredentialsProviderChain");
            assertThat(List.of("WebIdentityTokenCredentialsProvider", "EC2ContainerCredentialsProviderWrapper"))
                    .as("providers of the chain").allMatch(chain::contains);
            String container = classText(jar, "com/amazonaws/auth/ContainerCredentialsProvider");
            assertThat(List.of("169.254.170.23", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"))
                    .as("Pod Identity: the agent's address and the token file").allMatch(container::contains);
        }
    }

    /** The check above finds a literal secret wherever one is written: in the mounted archiver.yaml, or in a pod's env. */
    @Test
    void aLiteralSecretInTheMountedConfigurationOrAPodsEnvironmentIsFound() throws Exception {
        String config = Files.readString(DIR.resolve("archiver-config.yaml"));
        String keystore = config.replace("      properties.config.providers: env\n",
                "      properties.config.providers: env\n      properties.ssl.keystore.password: hunter2\n");
        String registry = config.replace("    sink:\n", "    schema-registry:\n      basic-auth.password: hunter2\n    sink:\n");
        String deployment = Files.readString(DIR.resolve("flink-deployment.yaml")).replace("          env:\n",
                "          env:\n            - name: AWS_SECRET_ACCESS_KEY\n              value: wJalrXUtnFEMI\n");
        assertThat(keystore).isNotEqualTo(config);
        assertThat(registry).isNotEqualTo(config);
        assertThat(literalSecrets(keystore)).containsExactly("archiver.yaml: properties.ssl.keystore.password");
        assertThat(literalSecrets(registry)).containsExactly("archiver.yaml: basic-auth.password");
        assertThat(literalSecrets(deployment)).containsExactly("manifest: env AWS_SECRET_ACCESS_KEY has a literal value");
    }

    /**
     * Every field of the custom resources is one the Flink Kubernetes Operator's CRD knows, with its type and allowed
     * values: the schemas of operator 1.13.0, the oldest the docs name, recorded under src/test/resources/kubernetes/.
     */
    @Test
    void everyFieldOfTheCustomResourcesIsOneTheOperatorsCrdKnows() throws Exception {
        Map<String, CrdSchema> schemas = Map.of(
                "FlinkDeployment", CrdSchema.load("kubernetes/flinkdeployments-crd-1.13.0.json"),
                "FlinkSessionJob", CrdSchema.load("kubernetes/flinksessionjobs-crd-1.13.0.json"));
        int checked = 0;
        for (String file : List.of("flink-deployment.yaml", "flink-session-job.yaml")) {
            for (Map<String, Object> doc : documents(file)) {
                CrdSchema schema = schemas.get(String.valueOf(doc.get("kind")));
                assertThat(schema).as("%s: a recorded CRD of %s", file, doc.get("kind")).isNotNull();
                assertThat(doc.get("apiVersion")).as("%s: %s", file, doc.get("kind")).isEqualTo(schema.apiVersion());
                assertThat(schema.violations(doc.get("spec"))).as("%s: %s against %s", file, doc.get("kind"), schema.source()).isEmpty();
                checked++;
            }
        }
        assertThat(checked).as("custom resources checked").isEqualTo(3);
    }

    /** The check above finds a misspelled field, a value of the wrong type and one the CRD does not allow. */
    @Test
    void aMisspelledOrMistypedFieldOfADeploymentBreaksItsCrd() throws Exception {
        CrdSchema schema = CrdSchema.load("kubernetes/flinkdeployments-crd-1.13.0.json");
        String deployment = Files.readString(DIR.resolve("flink-deployment.yaml"));
        Map<String, String> mistakes = Map.of(
                "  serviceAccount: ", "  serviceAcount: ",
                "    parallelism: 2", "    parallelism: two",
                "  flinkVersion: v2_2", "  flinkVersion: v2_9",
                "              containerPort: 9249", "              containerPort: metrics-port");
        Map<String, String> expected = Map.of(
                "  serviceAccount: ", "spec.serviceAcount: a field the CRD does not know",
                "    parallelism: 2", "spec.job.parallelism: String 'two', not an integer",
                "  flinkVersion: v2_2", "spec.flinkVersion: String 'v2_9', not one of",
                "              containerPort: 9249", "spec.podTemplate.spec.containers[0].ports[0].containerPort: String 'metrics-port', not an integer");
        for (Map.Entry<String, String> mistake : mistakes.entrySet()) {
            assertThat(deployment).contains(mistake.getKey());
            Map<String, Object> broken = only(documentsOf(deployment.replace(mistake.getKey(), mistake.getValue())), "FlinkDeployment");
            assertThat(schema.violations(broken.get("spec"))).as(mistake.getValue())
                    .anySatisfy(v -> assertThat(v).startsWith(expected.get(mistake.getKey())));
        }
    }

    /** Prometheus finds the reporters: annotations for a kubernetes_sd scrape, a named port for pod-monitor.yaml. */
    @Test
    void prometheusScrapesTheReporterOfEveryFlinkPod() throws Exception {
        Map<String, Object> monitor = only(documents("pod-monitor.yaml"), "PodMonitor");
        Map<String, Object> endpoint = map(list(map(monitor.get("spec")).get("podMetricsEndpoints")).get(0));
        String selected = String.valueOf(map(monitor.get("spec")).get("selector"));
        for (String file : List.of("flink-deployment.yaml", "flink-session-job.yaml")) {
            Map<String, Object> deployment = only(documents(file), "FlinkDeployment");
            Map<String, Object> spec = map(deployment.get("spec"));
            String port = String.valueOf(map(spec.get("flinkConfiguration")).get("metrics.reporter.prom.port"));
            Map<String, Object> template = map(spec.get("podTemplate"));
            assertThat(map(map(template.get("metadata")).get("annotations")))
                    .containsEntry("prometheus.io/scrape", "true").containsEntry("prometheus.io/port", port);
            Map<String, Object> container = list(map(template.get("spec")).get("containers")).stream().map(KubernetesManifestsTest::map)
                    .filter(c -> "flink-main-container".equals(c.get("name"))).findFirst().orElseThrow();
            assertThat(list(container.get("ports"))).as("%s: the reporter's port, named as the PodMonitor asks", file)
                    .contains(Map.of("name", endpoint.get("port"), "containerPort", Integer.parseInt(port)));
            assertThat(selected).as("the PodMonitor selects %s's pods", file)
                    .contains(String.valueOf(map(deployment.get("metadata")).get("name")));
        }
    }

    private static final String CREDENTIALS_CHAIN = "com.amazonaws.auth.DefaultAWSCredentialsProviderChain";

    /** The bytes of a class and its nested classes, as text (their constants are readable in it). */
    private static String classText(java.util.zip.ZipFile jar, String className) throws IOException {
        StringBuilder text = new StringBuilder();
        for (var entry : java.util.Collections.list(jar.entries())) {
            if (entry.getName().equals(className + ".class") || entry.getName().startsWith(className + "$")) {
                try (var in = jar.getInputStream(entry)) {
                    text.append(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1));
                }
            }
        }
        return text.toString();
    }

    private static List<String> literalSecrets(String manifests) {
        List<String> literals = new ArrayList<>();
        for (Object doc : new Load(LoadSettings.builder().build()).loadAllFromString(manifests)) {
            findLiteralSecrets("manifest", doc, literals);
        }
        return literals;
    }

    /** HA and state in S3, the Prometheus reporter on. */
    private static void assertClusterSpec(Map<String, Object> spec) throws IOException {
        String flink = flinkVersion();
        assertThat(spec.get("flinkVersion")).isEqualTo("v" + flink.replaceAll("^(\\d+)\\.(\\d+).*", "$1_$2"));
        Map<String, Object> conf = map(spec.get("flinkConfiguration"));
        assertThat(String.valueOf(conf.get("execution.checkpointing.dir"))).startsWith("s3://");
        assertThat(String.valueOf(conf.get("execution.checkpointing.savepoint-dir"))).startsWith("s3://");
        assertThat(conf.get("high-availability.type")).isEqualTo("kubernetes");
        assertThat(String.valueOf(conf.get("high-availability.storageDir"))).startsWith("s3://");
        assertThat(conf.get("metrics.reporter.prom.factory.class")).isEqualTo("org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
    }

    /** The archiver's entry point and `run` command, with the configuration file the cluster's pods mount. */
    private static void assertArchiverJob(Map<String, Object> job, Map<String, Object> clusterSpec) throws IOException {
        assertThat(job.get("entryClass")).isEqualTo(ArchiverCli.class.getName());
        assertThat(job.get("upgradeMode")).isEqualTo("savepoint");
        List<Object> args = list(job.get("args"));
        assertThat(args).startsWith("run", "--config");
        Map<String, Object> podSpec = map(map(clusterSpec.get("podTemplate")).get("spec"));
        String configMap = String.valueOf(map(only(documents("archiver-config.yaml"), "ConfigMap").get("metadata")).get("name"));
        String volume = list(podSpec.get("volumes")).stream().map(KubernetesManifestsTest::map)
                .filter(v -> v.containsKey("configMap") && configMap.equals(map(v.get("configMap")).get("name")))
                .map(v -> String.valueOf(v.get("name"))).findFirst().orElseThrow();
        Map<String, Object> container = list(podSpec.get("containers")).stream().map(KubernetesManifestsTest::map)
                .filter(c -> "flink-main-container".equals(c.get("name"))).findFirst().orElseThrow();
        String mountPath = list(container.get("volumeMounts")).stream().map(KubernetesManifestsTest::map)
                .filter(m -> volume.equals(m.get("name"))).map(m -> String.valueOf(m.get("mountPath"))).findFirst().orElseThrow();
        assertThat(args.get(2)).isEqualTo(mountPath + "/archiver.yaml");
    }

    /** Values of secret-looking keys, env vars and Kafka JAAS passwords that are not references. */
    private static void findLiteralSecrets(String where, Object node, List<String> literals) {
        if (node instanceof Map<?, ?> m) {
            if (m.containsKey("name") && m.containsKey("value") && SECRET_KEY.matcher(String.valueOf(m.get("name"))).matches()) {
                literals.add(where + ": env " + m.get("name") + " has a literal value");
            }
            m.forEach((k, v) -> {
                if (v instanceof String s && SECRET_KEY.matcher(String.valueOf(k)).matches() && !s.contains("${")) {
                    literals.add(where + ": " + k);
                }
                if (v instanceof String s && String.valueOf(k).endsWith(".yaml")) {
                    // a configuration file mounted from a ConfigMap: its own keys and values
                    findLiteralSecrets(String.valueOf(k), new Load(LoadSettings.builder().build()).loadFromString(s), literals);
                } else {
                    findLiteralSecrets(where, v, literals);
                }
            });
        } else if (node instanceof List<?> l) {
            l.forEach(v -> findLiteralSecrets(where, v, literals));
        } else if (node instanceof String s) {
            Matcher password = Pattern.compile("(?i)password=\"([^\"]*)\"").matcher(s);
            while (password.find()) {
                if (!password.group(1).startsWith("${")) {
                    literals.add(where + ": a JAAS password");
                }
            }
        }
    }

    private static String imageJarPath() throws IOException {
        Matcher copy = COPY_JAR.matcher(Files.readString(DIR.resolve("Dockerfile")));
        assertThat(copy.find()).isTrue();
        return copy.group(2);
    }

    private static String flinkVersion() throws IOException {
        Matcher m = Pattern.compile("<flink.version>([^<]+)</flink.version>").matcher(Files.readString(Path.of("pom.xml")));
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    private static List<Map<String, Object>> documents(String file) throws IOException {
        return documentsOf(Files.readString(DIR.resolve(file)));
    }

    private static List<Map<String, Object>> documentsOf(String yaml) {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object doc : new Load(LoadSettings.builder().build()).loadAllFromString(yaml)) {
            docs.add(map(doc));
        }
        return docs;
    }

    private static Map<String, Object> only(List<Map<String, Object>> docs, String kind) {
        List<Map<String, Object>> matching = docs.stream().filter(d -> kind.equals(d.get("kind"))).toList();
        assertThat(matching).as("documents of kind %s", kind).hasSize(1);
        return matching.get(0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return (List<Object>) o;
    }
}
