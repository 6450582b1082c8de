#!/usr/bin/env bash
# A real Flink 2.2 standalone session cluster on this machine, without Docker: JobManager and TaskManager as
# separate JVMs built from Maven Central artifacts, with conf/flink/config.yaml (the same file
# docker-compose.yml uses) and the S3 filesystem and Prometheus reporter plugins.
#
#   bin/session-cluster.sh start      # JobManager + 1 TaskManager; prints the web UI's address (free ports)
#   bin/session-cluster.sh submit -D kafka.bootstrap.servers=... -D kafka.topics=demo -D sink.path=s3://archive/demo
#   bin/session-cluster.sh flink <any flink CLI arguments>     # e.g. list, stop --savepointPath s3://... <job-id>
#   bin/session-cluster.sh taskmanager start                   # one more TaskManager (e.g. to replace one that died)
#   bin/session-cluster.sh taskmanager stop [pid]              # the last one started, or that one
#   bin/session-cluster.sh stop                                # every process the script started
#
# Environment: REST_PORT (a free port; set it to fix the web UI's), S3_ENDPOINT (http://127.0.0.1:9000, the `local` command's S3 server),
# S3_ACCESS_KEY, S3_SECRET_KEY, CHECKPOINT_DIR (s3://archive/_flink/checkpoints), WORK_DIR (target/session-cluster).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK_DIR=${WORK_DIR:-target/session-cluster}
source bin/lib/java-env.sh

flink_cli() {
  FLINK_CONF_DIR="$WORK_DIR/conf" FLINK_PLUGINS_DIR=target/plugins AWS_JAVA_V1_DISABLE_DEPRECATION_ANNOUNCEMENT=true \
    java $OPENS -Dlog4j.configurationFile="$WORK_DIR/conf/log4j.properties" -Dlog.file="$WORK_DIR/log/client.log" \
    -cp "target/flink/lib/*" org.apache.flink.client.cli.CliFrontend "$@"
}

case "${1:-}" in
  start)
    ensure_built
    mkdir -p "$WORK_DIR"
    java -cp target/test-classes io.archiver.local.SessionClusterMain start "$WORK_DIR"
    ;;
  taskmanager)
    case "${2:-}" in
      start) java -cp target/test-classes io.archiver.local.SessionClusterMain taskmanager-start "$WORK_DIR" ;;
      stop) java -cp target/test-classes io.archiver.local.SessionClusterMain taskmanager-stop "$WORK_DIR" ${3:-} ;;
      *) echo "usage: $0 taskmanager start|stop [pid]" >&2; exit 2 ;;
    esac
    ;;
  submit)
    shift
    flink_cli run -d "$JAR" run "$@"
    ;;
  flink)
    shift
    flink_cli "$@"
    ;;
  stop)
    if [ -f "$WORK_DIR/pids" ]; then
      xargs -r kill < "$WORK_DIR/pids" || true
      rm -f "$WORK_DIR/pids"
      echo "Flink session cluster stopped."
    else
      echo "No cluster running from $WORK_DIR."
    fi
    ;;
  *)
    sed -n '2,16p' "$0"
    exit 2
    ;;
esac
