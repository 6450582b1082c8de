package io.archiver.kafka;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A TCP connect to each address of {@code bootstrap.servers}, so that a wrong address is named within seconds: the
 * Kafka client retries an address that refuses until its API timeout (the pre-flight timeout, 30 s by default)
 * before saying it could not reach any. Only proves that something listens; Kafka's own checks follow.
 */
public final class BootstrapAddresses {

    private BootstrapAddresses() {}

    /**
     * Why none of {@code servers} (comma-separated {@code host:port}) takes a connection within {@code timeout}
     * each, one reason per address; empty when one does (or an address cannot be parsed: Kafka's client names it).
     */
    public static Optional<String> noneReachable(String servers, Duration timeout) {
        List<String> reasons = new ArrayList<>();
        for (String server : servers.split(",")) {
            String address = server.trim();
            int colon = address.lastIndexOf(':');
            if (colon <= 0) {
                return Optional.empty();
            }
            int port;
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
            String host = address.substring(0, colon).replace("[", "").replace("]", "");
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
                return Optional.empty();
            } catch (UnknownHostException e) {
                reasons.add(address + ": unknown host");
            } catch (ConnectException e) {
                reasons.add(address + ": connection refused");
            } catch (SocketTimeoutException e) {
                reasons.add(address + ": no answer within " + timeout.toMillis() + " ms");
            } catch (IOException | IllegalArgumentException e) {
                reasons.add(address + ": " + e.getMessage());
            }
        }
        return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons));
    }
}
