package io.archiver.deploy;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigLoader;

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

    @Test
    void composeFileAgreesWithTheArchiverConfiguration() throws Exception {
        Map<String, Object> compose =
                map(new Load(LoadSettings.builder().build()).loadFromString(Files.readString(Path.of("docker-compose.yml"))));
        Map<String, Object> services = map(compose.get("services"));
        assertThat(services).containsKeys("kafka", "create-topic", "s3", "create-bucket", "jobmanager", "taskmanager", "submit");

        ArchiverConfig config = ConfigLoader.load(Path.of("conf", "archiver-docker.yaml"), Map.of());
        String advertised = String.valueOf(map(map(services.get("kafka")).get("environment")).get("KAFKA_ADVERTISED_LISTENERS"));
        assertThat(advertised).contains("PLAINTEXT://" + config.get(io.archiver.config.ArchiverOptions.KAFKA_BOOTSTRAP_SERVERS));
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
        assertThat(Files.readString(Path.of("conf", "prometheus.yml"))).contains("jobmanager:9249", "taskmanager:9249");

        Map<String, Object> submit = map(services.get("submit"));
        String volumes = String.valueOf(submit.get("volumes"));
        assertThat(volumes).contains("./conf:/opt/archiver/conf:ro");
        assertThat(volumes).contains("./target/" + Path.of(System.getProperty("archiver.shaded.jar")).getFileName() + ":");
        assertThat(String.valueOf(submit.get("entrypoint"))).contains("--config /opt/archiver/conf/archiver-docker.yaml");
    }
}
