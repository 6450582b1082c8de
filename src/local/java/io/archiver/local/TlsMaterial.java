package io.archiver.local;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private certificate authority and the PKCS12 key stores of a TLS server and client it signed, made with the
 * JDK's {@code keytool} when the secured local stack or a test starts: nothing secret is stored in the
 * repository. The server certificate names {@code localhost} and {@code 127.0.0.1}; the client certificate's
 * subject is {@code CN=<client>}.
 */
public final class TlsMaterial {

    private static final Duration KEYTOOL_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final String password;
    private final String client;

    private TlsMaterial(Path dir, String password, String client) {
        this.dir = dir;
        this.password = password;
        this.client = client;
    }

    /**
     * Creates, under {@code dir}, a CA, a server key store signed by it, a client key store for {@code client}
     * signed by it, and a trust store holding the CA; every store protected by {@code password}.
     */
    public static TlsMaterial create(Path dir, String password, String client) throws IOException {
        Files.createDirectories(dir);
        TlsMaterial tls = new TlsMaterial(dir, password, client);
        tls.keytool("-genkeypair", "-alias", "ca", "-dname", "CN=kafka-s3-archiver test CA", "-ext", "bc:c",
                "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "3650", "-keystore", tls.file("ca.p12"));
        tls.keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", tls.file("ca.p12"), "-file", tls.file("ca.pem"));
        tls.keytool("-importcert", "-noprompt", "-alias", "ca", "-file", tls.file("ca.pem"),
                "-keystore", tls.file("truststore.p12"));
        tls.signedKeyStore("server", "CN=localhost", "SAN=dns:localhost,ip:127.0.0.1");
        tls.signedKeyStore("client", "CN=" + client, null);
        return tls;
    }

    private void signedKeyStore(String name, String subject, String extension) throws IOException {
        String store = file(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-dname", subject, "-keyalg", "EC", "-groupname", "secp256r1",
                "-validity", "3650", "-keystore", store);
        keytool("-certreq", "-alias", name, "-keystore", store, "-file", file(name + ".csr"));
        List<String> sign = new ArrayList<>(List.of("-gencert", "-rfc", "-alias", "ca", "-keystore", file("ca.p12"),
                "-infile", file(name + ".csr"), "-outfile", file(name + ".pem"), "-validity", "3650"));
        if (extension != null) {
            sign.addAll(List.of("-ext", extension));
        }
        keytool(sign.toArray(String[]::new));
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", file("ca.pem"), "-keystore", store);
        keytool("-importcert", "-alias", name, "-file", file(name + ".pem"), "-keystore", store);
    }

    /** The key store (PKCS12) of the server: its key and certificate for localhost and 127.0.0.1. */
    public Path serverKeyStore() {
        return dir.resolve("server.p12");
    }

    /** The key store (PKCS12) of the client: its key and certificate {@code CN=<client>}. */
    public Path clientKeyStore() {
        return dir.resolve("client.p12");
    }

    /** The trust store (PKCS12) holding the CA that signed both. */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /** A TLS context that trusts the CA (a client without a certificate of its own). */
    public SSLContext clientContext() throws IOException {
        try (InputStream in = Files.newInputStream(trustStore())) {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(in, password.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("The trust store " + trustStore() + " cannot be loaded: " + e.getMessage(), e);
        }
    }

    /** The CA's certificate (PEM). */
    public Path caCertificate() {
        return dir.resolve("ca.pem");
    }

    /** The password of every store. */
    public String password() {
        return password;
    }

    /** The client certificate's common name. */
    public String client() {
        return client;
    }

    private String file(String name) {
        return dir.resolve(name).toString();
    }

    private void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", password));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(KEYTOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("keytool " + args[0] + " did not finish within " + KEYTOOL_TIMEOUT.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while keytool " + args[0] + " ran", e);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (process.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed (exit " + process.exitValue() + "): " + output);
        }
    }
}
