package io.archiver.testutils;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of the S3 server that resets connections in the middle of a part upload, as a load balancer or a
 * flaky network does: armed with {@link #resetNextPartUploads}, it forwards the next {@code UploadPart} request's headers
 * and the first bytes of its body, then closes both sides with a TCP reset (no answer ever comes). Everything else
 * passes through untouched. The S3 server itself cannot do this: whatever fails inside it still answers.
 */
public final class ConnectionResettingProxy implements AutoCloseable {

    private static final byte[] HEADERS_END = "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    private final ServerSocket server;
    private final InetSocketAddress upstream;
    private final ExecutorService pumps = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "connection-resetting-proxy");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger resetsLeft = new AtomicInteger();
    private final AtomicInteger resets = new AtomicInteger();
    private volatile int bodyBytesBeforeReset;

    private ConnectionResettingProxy(URI upstream) throws IOException {
        this.upstream = new InetSocketAddress(upstream.getHost(), upstream.getPort());
        this.server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        pumps.execute(this::accept);
    }

    /** A proxy on a free port of the loopback address in front of {@code upstream} (http://host:port). */
    public static ConnectionResettingProxy start(URI upstream) throws IOException {
        return new ConnectionResettingProxy(upstream);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** The next {@code n} part uploads are cut with a reset after {@code bodyBytes} bytes of their body. */
    public void resetNextPartUploads(int n, int bodyBytes) {
        bodyBytesBeforeReset = bodyBytes;
        resetsLeft.set(n);
    }

    /** Connections reset so far. */
    public int resets() {
        return resets.get();
    }

    public void heal() {
        resetsLeft.set(0);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket();
                target.connect(upstream, 5_000);
                pumps.execute(() -> pump(target, client, false));
                pumps.execute(() -> pump(client, target, true));
            } catch (IOException e) {
                if (!server.isClosed()) {
                    System.err.println("ConnectionResettingProxy: " + e);
                }
            }
        }
    }

    /** Copies {@code from} to {@code to}; requests (client to server) are watched for part uploads to cut. */
    private void pump(Socket from, Socket to, boolean requests) {
        byte[] buffer = new byte[64 * 1024];
        long cutAt = -1; // bytes of this stream after which to reset, once a part upload to cut began
        long forwarded = 0;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (requests && cutAt < 0 && resetsLeft.get() > 0) {
                    int headersEnd = partUploadHeadersEnd(buffer, n);
                    if (headersEnd >= 0 && resetsLeft.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
                        cutAt = forwarded + headersEnd + bodyBytesBeforeReset;
                    }
                }
                if (cutAt >= 0 && forwarded + n >= cutAt) {
                    out.write(buffer, 0, (int) (cutAt - forwarded));
                    out.flush();
                    resets.incrementAndGet();
                    reset(from);
                    reset(to);
                    return;
                }
                out.write(buffer, 0, n);
                out.flush();
                forwarded += n;
            }
        } catch (IOException e) {
            // the other side closed or was reset: so is this one
        } finally {
            close(from);
            close(to);
        }
    }

    /** Where the headers of an UploadPart request in {@code buffer} end (the body's first byte), -1 if it holds none. */
    private static int partUploadHeadersEnd(byte[] buffer, int length) {
        String text = new String(buffer, 0, length, StandardCharsets.ISO_8859_1);
        int put = text.indexOf("PUT /");
        if (put < 0) {
            return -1;
        }
        int lineEnd = text.indexOf("\r\n", put);
        if (lineEnd < 0 || !text.substring(put, lineEnd).contains("partNumber=")) {
            return -1;
        }
        int end = text.indexOf(new String(HEADERS_END, StandardCharsets.ISO_8859_1), lineEnd);
        return end < 0 ? -1 : end + HEADERS_END.length;
    }

    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0); // close with RST, not FIN
        } catch (IOException e) {
            // already closed
        }
        close(socket);
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        pumps.shutdownNow();
    }
}
