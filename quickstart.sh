#!/usr/bin/env bash
# Builds pg2lite and runs the embedded demo: Postgres 17 (embedded), a KRaft broker and a Kafka
# Connect worker process whose plugin.path holds the plugin archives just built, with the source
# and sink registered from etc/. Ctrl-C stops everything. Needs only Java 17+ and Maven.
#   ./quickstart.sh                                  run until Ctrl-C
#   ./quickstart.sh -Dpg2lite.quickstart.seconds=30  stop by itself, checking the replica
set -euo pipefail
cd "$(dirname "$0")"
echo "  … building pg2lite and its plugin archives (mvn install -DskipTests; a minute or two the first time)"
mvn -B -q install -DskipTests
exec mvn -B -q -pl quickstart exec:java "$@"
