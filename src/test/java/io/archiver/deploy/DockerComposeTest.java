package io.archiver.deploy;

import io.archiver.config.SourceOptions;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigLoader;
import io.archiver.testutils.FlinkDistributionLayout;
import io.archiver.testutils.MonitoringQueries;

import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docker-compose.yml cannot be started here (no Docker engine), so this checks what can be checked: it
 * parses, has every service, and agrees with conf/archiver-docker.yaml on broker, topic, bucket,
 * credentials and the job jar.
 */
class DockerComposeTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    /** Every image is pinned to a version (no {@code latest}, no bare name); the S3 server to the one the tests run. */
    @Test
    void everyImageIsPinnedAndTheS3ServerIsTheTestedRelease() throws Exception {
        for (String file : List.of("docker-compose.yml", "docker-compose.secure.yml")) {
            Map<String, Object> services = map(load(file).get("services"));
            for (Map.Entry<String, Object> service : services.entrySet()) {
                Object image = map(service.getValue()).get("image");
                if (image != null) {
                    assertThat(String.valueOf(image)).as("%s: image of %s", file, service.getKey())
                            .matches("[^:]+:v?[0-9][^:]*").doesNotEndWith(":latest");
                }
            }
        }
        java.util.regex.Matcher s3proxy = java.util.regex.Pattern.compile("<s3proxy.version>([^<]+)</s3proxy.version>")
                .matcher(Files.readString(Path.of("pom.xml")));
        assertThat(s3proxy.find()).isTrue();
        assertThat(map(map(load("docker-compose.yml").get("services")).get("s3")).get("image"))
                .isEqualTo("andrewgaul/s3proxy:" + s3proxy.group(1));
    }

    @Test
    void composeFileAgreesWithTheArchiverConfiguration() throws Exception {
        Map<String, Object> compose =
                map(new Load(LoadSettings.builder().build()).loadFromString(Files.readString(Path.of("docker-compose.yml"))));
        Map<String, Object> services = map(compose.get("services"));
        assertThat(services).containsKeys("kafka", "create-topic", "s3", "create-bucket", "jobmanager", "taskmanager", "submit", "schema-registry");

        ArchiverConfig config = ConfigLoader.load(Path.of("conf", "archiver-docker.yaml"), Map.of());
        String advertised = String.valueOf(map(map(services.get("kafka")).get("environment")).get("KAFKA_ADVERTISED_LISTENERS"));
        assertThat(advertised).contains("PLAINTEXT://" + config.get(io.archiver.config.SourceOptions.KAFKA_BOOTSTRAP_SERVERS));
        assertThat(String.valueOf(map(services.get("kafka")).get("image"))).isEqualTo("apache/kafka:4.2.0");

        List<Object> createTopic = (List<Object>) map(services.get("create-topic")).get("entrypoint");
        assertThat(createTopic.get(createTopic.indexOf("--topic") + 1)).isEqualTo(config.topics().get(0));

        String bucket = config.sinkPath().replaceFirst("^s3://", "").split("/")[0];
        assertThat(String.valueOf(map(services.get("create-bucket")).get("entrypoint"))).contains("s3 mb s3://" + bucket);

        String flinkProperties = String.valueOf(map(compose.get("x-flink-properties")).get("FLINK_PROPERTIES"));
        Map<String, Object> s3Env = map(map(services.get("s3")).get("environment"));
        assertThat(flinkProperties)
                .contains("s3.access-key: " + s3Env.get("S3PROXY_IDENTITY"))
                .contains("s3.secret-key: " + s3Env.get("S3PROXY_CREDENTIAL"))
                .contains("s3.endpoint: http://s3:80");
        for (String flinkService : List.of("jobmanager", "taskmanager", "submit")) {
            Map<String, Object> service = map(services.get(flinkService));
            assertThat(String.valueOf(service.get("image"))).isEqualTo("flink:2.2.0-scala_2.12-java17");
            assertThat(String.valueOf(service.get("entrypoint")))
                    .as("%s takes the shared Flink settings of conf/flink/config.yaml", flinkService)
                    .contains("/opt/archiver/conf/flink/config.yaml >> /opt/flink/conf/config.yaml");
            assertThat(String.valueOf(service.get("volumes"))).contains("./conf:/opt/archiver/conf:ro");
        }
        assertThat(Files.readString(Path.of("conf", "flink", "config.yaml")))
                .contains("metrics.reporter.prom.factory.class: org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        assertThat(String.valueOf(map(services.get("prometheus")).get("volumes"))).contains("./conf/prometheus.yml");
        Map<String, Object> rest = map(map(services.get("iceberg-rest")).get("environment"));
        assertThat(String.valueOf(rest.get("CATALOG_WAREHOUSE"))).as("the REST catalog's warehouse, in the archive's bucket")
                .startsWith("s3://" + bucket + "/");
        assertThat(String.valueOf(rest.get("CATALOG_S3_ENDPOINT"))).isEqualTo("http://s3:80");
        assertThat(Files.readString(Path.of("conf", "archiver-docker.yaml"))).contains("# table.catalog.uri: http://iceberg-rest:8181");
        Map<String, Object> registry = map(services.get("schema-registry"));
        assertThat(String.valueOf(registry.get("image"))).as("the registry the tests run").isEqualTo("apicurio/apicurio-registry-mem:2.6.13.Final");
        assertThat(String.valueOf(registry.get("ports"))).contains(":8080");
        String archiverYaml = Files.readString(Path.of("conf", "archiver-docker.yaml"));
        assertThat(archiverYaml).contains("# value.format: avro", "# schema-registry.url: http://schema-registry:8080/apis/ccompat/v7");
        assertThat(config.with(Map.of("record.value.format", "avro", "schema-registry.url", "http://schema-registry:8080/apis/ccompat/v7")))
                .as("the commented typed-columns settings validate").isNotNull();
        assertThat(Files.readString(Path.of("conf", "prometheus.yml"))).contains("jobmanager:9249", "taskmanager:9249");

        Map<String, Object> submit = map(services.get("submit"));
        String volumes = String.valueOf(submit.get("volumes"));
        assertThat(volumes).contains("./conf:/opt/archiver/conf:ro");
        assertThat(volumes).contains("./target/" + Path.of(System.getProperty("archiver.shaded.jar")).getFileName() + ":");
        assertThat(String.valueOf(submit.get("entrypoint"))).contains("--config /opt/archiver/conf/archiver-docker.yaml");
    }

    @Test
    void securedComposeVariantAgreesWithItsArchiverConfigurationAndKeepsSecretsInTheEnvironment() throws Exception {
        Map<String, Object> base = load("docker-compose.yml");
        Map<String, Object> secure = load("docker-compose.secure.yml");
        Map<String, Object> services = map(secure.get("services"));
        for (String service : services.keySet()) {
            if (!List.of("tls", "kafka-user").contains(service)) {
                assertThat(map(base.get("services"))).as("service %s overrides one of docker-compose.yml", service).containsKey(service);
            }
        }
        ArchiverConfig config = ConfigLoader.load(Path.of("conf", "archiver-docker-secure.yaml"), Map.of());
        Map<String, Object> kafka = map(map(services.get("kafka")).get("environment"));
        String bootstrap = config.get(io.archiver.config.SourceOptions.KAFKA_BOOTSTRAP_SERVERS);
        assertThat(String.valueOf(kafka.get("KAFKA_ADVERTISED_LISTENERS"))).contains("SECURE://" + bootstrap);
        assertThat(String.valueOf(kafka.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP")))
                .contains("SECURE:" + config.kafkaProperties().getProperty("security.protocol"));
        assertThat(kafka.get("KAFKA_LISTENER_NAME_SECURE_SASL_ENABLED_MECHANISMS"))
                .isEqualTo(config.kafkaProperties().getProperty("sasl.mechanism"));
        assertThat(String.valueOf(kafka.get("KAFKA_LISTENER_NAME_SECURE_SSL_KEYSTORE_LOCATION"))).isEqualTo("/tls/kafka.p12");

        String grants = String.valueOf(map(services.get("kafka-user")).get("entrypoint"));
        assertThat(grants).contains("--entity-name archiver").contains("--topic " + config.topics().get(0))
                .contains("--group " + config.get(io.archiver.config.SourceOptions.KAFKA_GROUP_ID));
        assertThat(config.kafkaProperties().getProperty("sasl.jaas.config"))
                .contains("username=\"archiver\"").contains("password=\"${env:ARCHIVER_KAFKA_PASSWORD}\"");
        String trustStore = config.kafkaProperties().getProperty("ssl.truststore.location");

        String flinkProperties = String.valueOf(map(secure.get("x-secure-flink")).get("FLINK_PROPERTIES"));
        assertThat(flinkProperties).doesNotContain("access-key").doesNotContain("secret-key")
                .contains("s3.endpoint: https://s3:443").contains("-Djavax.net.ssl.trustStore=" + trustStore);
        assertThat(String.valueOf(map(map(services.get("s3")).get("environment")).get("S3PROXY_SECURE_ENDPOINT"))).endsWith(":443");
        Map<String, Object> flinkEnvironment = map(secure.get("x-secure-flink"));
        assertThat(flinkEnvironment).containsKeys("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "ARCHIVER_KAFKA_PASSWORD");
        // every secret comes from the environment of `docker compose`, none is written in the file
        for (String line : Files.readAllLines(Path.of("docker-compose.secure.yml"))) {
            String trimmed = line.trim();
            if (trimmed.matches("[A-Z0-9_]*(PASSWORD|SECRET|KEY_ID|CREDENTIAL|IDENTITY)[A-Z0-9_]*: .*")) {
                assertThat(trimmed).as("a secret setting").matches("[A-Z0-9_]+: \\$\\{[A-Z0-9_]+:\\?set [A-Z0-9_]+}");
            }
        }
    }

    @Test
    void certificateScriptOfTheSecuredComposeVariantMakesStoresAndAPasswordlessTrustStore(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        ProcessBuilder script = new ProcessBuilder("bash", "conf/secure/make-certs.sh", dir.toString()).redirectErrorStream(true);
        script.environment().put("TLS_STORE_PASSWORD", "compose-test-password");
        script.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
        Process process = script.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(output).isZero();
        assertThat(dir.resolve("kafka.p12")).exists();
        assertThat(dir.resolve("s3.p12")).exists();
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(dir.resolve("truststore.p12"))) {
            trust.load(in, null);
        }
        assertThat(trust.getCertificate("ca")).as("the CA, readable without a password").isNotNull();
        java.security.KeyStore kafkaStore = java.security.KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(dir.resolve("kafka.p12"))) {
            kafkaStore.load(in, "compose-test-password".toCharArray());
        }
        java.security.cert.X509Certificate kafkaCertificate = (java.security.cert.X509Certificate) kafkaStore.getCertificate("kafka");
        kafkaCertificate.verify(trust.getCertificate("ca").getPublicKey());
        assertThat(kafkaCertificate.getSubjectAlternativeNames().stream().map(san -> String.valueOf(san.get(1))).toList())
                .contains("kafka", "localhost");
    }

    private static Map<String, Object> load(String file) throws Exception {
        return map(new Load(LoadSettings.builder().build()).loadFromString(Files.readString(Path.of(file))));
    }

    /** The image's entrypoint exits when a jar ENABLE_BUILT_IN_PLUGINS names is not in the distribution's opt/: neither stack would start. */
    @Test
    void builtInPluginsTheComposeFilesEnableAreJarsTheFlinkImageShipsInOpt() throws Exception {
        for (String file : List.of("docker-compose.yml", "docker-compose.secure.yml")) {
            String enabled = Files.readAllLines(Path.of(file)).stream().filter(l -> l.trim().startsWith("ENABLE_BUILT_IN_PLUGINS:"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElseThrow();
            assertThat(enabled).as(file).contains("flink-s3-fs-hadoop-");
            for (String jar : enabled.split(";")) {
                assertThat(FlinkDistributionLayout.OPT).as("%s of %s is in the Flink image's opt/", jar, file)
                        .contains(FlinkDistributionLayout.unversioned(jar));
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void composeProvisionsTheDashboardAndPrometheusLoadsTheAlertRules() throws Exception {
        Map<String, Object> services = map(map(
                new Load(LoadSettings.builder().build()).loadFromString(Files.readString(Path.of("docker-compose.yml")))).get("services"));
        List<Object> prometheusVolumes = (List<Object>) map(services.get("prometheus")).get("volumes");
        assertThat(prometheusVolumes).contains("./" + MonitoringQueries.ALERT_RULES + ":/etc/prometheus/alerts.yml:ro");
        assertThat(Files.readString(Path.of("conf", "prometheus.yml"))).contains("rule_files:", "/etc/prometheus/alerts.yml");
        List<Object> grafanaVolumes = (List<Object>) map(services.get("grafana")).get("volumes");
        assertThat(grafanaVolumes).contains("./conf/grafana/dashboards:/var/lib/grafana/dashboards:ro",
                "./conf/grafana/provisioning:/etc/grafana/provisioning:ro");
        assertThat(Files.readString(Path.of("conf", "grafana", "provisioning", "dashboards", "archiver.yml")))
                .contains("path: /var/lib/grafana/dashboards");
        assertThat(Files.readString(Path.of("conf", "grafana", "provisioning", "datasources", "prometheus.yml")))
                .contains("uid: prometheus", "url: http://prometheus:9090");

        assertThat(MonitoringQueries.dashboard()).as("dashboard queries").hasSizeGreaterThan(10);
        assertThat(MonitoringQueries.alertRules()).containsKeys("ArchiverNoCommit", "ArchiverLagGrowing",
                "ArchiverCheckpointsFailing", "ArchiverRestarting", "ArchiverDeadLetters", "ArchiverLeaseTakenOver");
        // the names the queries read are checked against a running job's exports in SessionClusterITCase
        assertThat(MonitoringQueries.metricNames()).contains(
                "flink_taskmanager_job_task_operator_lastCommitTimestamp", "flink_jobmanager_job_numRestarts");
    }
}
