# Shared by bin/archiver and bin/session-cluster.sh: the JVM flags Flink 2.2 needs on Java 17 and the build's
# outputs they run from (the shaded job jar, the S3 and Prometheus plugins, Flink's own jars from Maven Central).
JAR=target/kafka-s3-archiver-0.1.0-SNAPSHOT.jar
OPENS="--add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED"

# Builds the job jar, the plugins and target/flink/lib when one is missing (the first run takes a few minutes).
ensure_built() {
  [ -f "$JAR" ] && [ -d target/plugins ] || mvn -q -B -DskipTests package
  [ -d target/flink/lib ] || mvn -q -B -f conf/flink/pom.xml dependency:copy-dependencies -DoutputDirectory="$PWD/target/flink/lib"
}
