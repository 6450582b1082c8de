package io.archiver.cli;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/** The job jar carries the job, the Kafka connector and Parquet, and nothing of Flink's runtime or the local stack. */
class ShadedJarITCase {

    private static final long MAX_BYTES = 100L * 1024 * 1024;

    @Test
    void shadedJarHoldsTheJobAndConnectorButNotFlinkOrTheLocalStack() throws Exception {
        File jar = new File(System.getProperty("archiver.shaded.jar"));
        assertThat(jar).isFile();
        assertThat(jar.length()).as("jar size (REST upload limit is 100 MiB)").isLessThan(MAX_BYTES);
        try (JarFile jf = new JarFile(jar)) {
            assertThat(jf.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo(ArchiverCli.class.getName());
            assertThat(jf.getManifest().getMainAttributes().getValue("Implementation-Version"))
                    .as("the version --version prints").isEqualTo(System.getProperty("archiver.version"));
            assertThat(jf.getEntry("io/archiver/cli/ArchiverCli.class")).isNotNull();
            assertThat(jf.getEntry("io/archiver/job/ArchiverJob.class")).isNotNull();
            assertThat(jf.getEntry("org/apache/flink/connector/kafka/source/KafkaSource.class")).isNotNull();
            assertThat(jf.getEntry("org/apache/kafka/clients/consumer/KafkaConsumer.class")).isNotNull();
            assertThat(jf.getEntry("org/apache/flink/formats/parquet/ParquetWriterFactory.class")).isNotNull();
            assertThat(jf.getEntry("org/apache/parquet/hadoop/ParquetWriter.class")).isNotNull();
            assertThat(jf.getEntry("picocli/CommandLine.class")).isNotNull();
            assertThat(new String(jf.getInputStream(jf.getEntry("META-INF/services/io.archiver.config.FormatArea")).readAllBytes()))
                    .as("the file formats' plug-in list").contains("io.archiver.format.parquet.ParquetFormat")
                    .contains("io.archiver.format.jsonl.JsonLinesFormat");
            // the archiver's own S3 requests (lease, upload listings) find EKS pod roles (IRSA) only through STS
            assertThat(jf.getEntry("software/amazon/awssdk/services/sts/internal/StsWebIdentityCredentialsProviderFactory.class"))
                    .as("the AWS SDK's web identity provider").isNotNull();

            assertThat(jf.getEntry("org/apache/flink/runtime/jobgraph/JobGraph.class")).isNull();
            assertThat(jf.getEntry("org/apache/flink/streaming/api/environment/StreamExecutionEnvironment.class")).isNull();
            assertThat(jf.getEntry("org/apache/flink/connector/file/sink/FileSink.class")).isNull();
            assertThat(jf.getEntry("kafka/server/BrokerServer.class")).isNull();
            assertThat(jf.getEntry("org/gaul/s3proxy/S3Proxy.class")).isNull();
            // development tooling: the local stack and the benchmarks build with the tests
            assertThat(jf.stream().filter(e -> e.getName().startsWith("io/archiver/local/") || e.getName().startsWith("io/archiver/bench/")))
                    .isEmpty();
            assertThat(jf.getEntry("org/slf4j/Logger.class")).isNull();
        }
    }
}
