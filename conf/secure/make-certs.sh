#!/usr/bin/env bash
# Certificates of a private CA for the secured docker compose stack (docker-compose.secure.yml, service `tls`):
# the CA, a key store for Kafka (kafka, localhost) and one for S3 (s3, localhost), protected by TLS_STORE_PASSWORD,
# and a trust store holding only the CA, readable without a password (it holds no secret), so no JVM option and
# no client setting carries a password for it. Runs once: an existing /tls/ca.pem is kept.
set -euo pipefail
dir=${1:-/tls}
: "${TLS_STORE_PASSWORD:?set TLS_STORE_PASSWORD}"
if [ -f "$dir/ca.pem" ]; then echo "certificates in $dir kept"; exit 0; fi
mkdir -p "$dir" && cd "$dir"
kt() { keytool "$@" -storetype PKCS12 -storepass "$TLS_STORE_PASSWORD"; }
kt -genkeypair -alias ca -dname "CN=kafka-s3-archiver compose CA" -ext bc:c -keyalg EC -groupname secp256r1 -validity 825 -keystore ca.p12
kt -exportcert -rfc -alias ca -keystore ca.p12 -file ca.pem
for name in kafka s3; do
  kt -genkeypair -alias "$name" -dname "CN=$name" -keyalg EC -groupname secp256r1 -validity 825 -keystore "$name.p12"
  kt -certreq -alias "$name" -keystore "$name.p12" -file "$name.csr"
  kt -gencert -rfc -alias ca -keystore ca.p12 -infile "$name.csr" -outfile "$name.pem" -validity 825 -ext "SAN=dns:$name,dns:localhost"
  kt -importcert -noprompt -alias ca -file ca.pem -keystore "$name.p12"
  kt -importcert -alias "$name" -file "$name.pem" -keystore "$name.p12"
done
keytool -J-Dkeystore.pkcs12.certProtectionAlgorithm=NONE -J-Dkeystore.pkcs12.macAlgorithm=NONE \
  -importcert -noprompt -alias ca -file ca.pem -keystore truststore.p12 -storetype PKCS12 -storepass changeit
chmod 644 ca.pem truststore.p12
echo "certificates written to $dir"
