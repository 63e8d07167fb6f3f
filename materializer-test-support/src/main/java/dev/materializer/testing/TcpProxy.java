package dev.materializer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP forwarder for tests of lost connections: it listens on an ephemeral port of
 * {@code 127.0.0.1} and forwards each connection to a target on the loopback interface. Give a
 * client under test its address, keep a direct client for the test's own reads and writes, and
 * {@link #cut()} to drop every open connection and refuse new ones (they are accepted and closed at
 * once) until {@link #restore()}.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start(mongo.connectionString().getHosts().get(0))) {
 *     MongoClient engineClient = MongoClients.create("mongodb://" + proxy.address());
 *     ...
 *     proxy.cut();      // the engine's connections break; the test's direct client goes on
 *     proxy.restore();  // new connections go through again
 * }
 * }</pre>
 *
 * <p>Threads: one thread accepts, and each connection has two that copy bytes, one per direction;
 * at most {@code maxConnections} connections are open at once (more are closed at once), so the
 * threads are bounded. {@link #close()} stops accepting, closes every connection and waits (a
 * bounded time) for every thread to end. The control methods may be called from any thread.
 */
public final class TcpProxy implements AutoCloseable {

    /** The most connections open at once when not told otherwise. */
    public static final int DEFAULT_MAX_CONNECTIONS = 32;

    private static final Logger log = LoggerFactory.getLogger(TcpProxy.class);

    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private static final long CLOSE_WAIT_MILLIS = 5_000;

    private static final int BUFFER = 16 * 1024;

    private final ServerSocket server;

    private final InetSocketAddress target;

    private final int maxConnections;

    private final ExecutorService threads;

    private final Set<Connection> open = ConcurrentHashMap.newKeySet();

    private final AtomicInteger accepted = new AtomicInteger();

    private final AtomicInteger refused = new AtomicInteger();

    private volatile boolean cut;

    private volatile boolean closed;

    private TcpProxy(ServerSocket server, InetSocketAddress target, int maxConnections) {
        this.server = server;
        this.target = target;
        this.maxConnections = maxConnections;
        AtomicInteger count = new AtomicInteger();
        String prefix = "tcp-proxy-" + server.getLocalPort() + "-";
        // One acceptor and two copiers per connection; no queue, so nothing waits for a thread.
        this.threads = new ThreadPoolExecutor(0, 2 * maxConnections + 1, 1, TimeUnit.SECONDS,
                new SynchronousQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * Starts a proxy to a {@code host:port} on the loopback interface, with
     * {@value #DEFAULT_MAX_CONNECTIONS} connections at most.
     * @param hostAndPort the target, e.g. {@code localhost:27017}
     * @return the running proxy
     * @throws IOException when it cannot listen
     * @throws IllegalArgumentException when the target is not on the loopback interface
     */
    public static TcpProxy start(String hostAndPort) throws IOException {
        int colon = hostAndPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostAndPort.length() - 1) {
            throw new IllegalArgumentException("the target must be host:port, was '" + hostAndPort + "'");
        }
        return start(hostAndPort.substring(0, colon), Integer.parseInt(hostAndPort.substring(colon + 1)),
                DEFAULT_MAX_CONNECTIONS);
    }

    /**
     * Starts a proxy to a port on the loopback interface.
     * @param host the target host; it must resolve to a loopback address
     * @param port the target port
     * @param maxConnections the most connections open at once, 1 to 256
     * @return the running proxy
     * @throws IOException when it cannot listen
     * @throws IllegalArgumentException when the target is not on the loopback interface, or a limit is out of range
     */
    public static TcpProxy start(String host, int port, int maxConnections) throws IOException {
        if (maxConnections < 1 || maxConnections > 256) {
            throw new IllegalArgumentException("maxConnections must be between 1 and 256, was " + maxConnections);
        }
        InetAddress address = InetAddress.getByName(host);
        if (!address.isLoopbackAddress()) {
            throw new IllegalArgumentException("the proxy forwards to the loopback interface only, not to " + host);
        }
        ServerSocket server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
        TcpProxy proxy = new TcpProxy(server, new InetSocketAddress(address, port), maxConnections);
        proxy.threads.execute(proxy::acceptLoop);
        return proxy;
    }

    /** The port the proxy listens on, on {@code 127.0.0.1}. */
    public int port() {
        return server.getLocalPort();
    }

    /** Where clients connect: {@code 127.0.0.1:<port>}. */
    public String address() {
        return "127.0.0.1:" + port();
    }

    /** Drops every open connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        cut = true;
        for (Connection connection : open) {
            connection.close();
        }
        log.info("Proxy {} cut: connections dropped, new ones refused", address());
    }

    /** Lets new connections through again. */
    public void restore() {
        cut = false;
        log.info("Proxy {} restored", address());
    }

    /** Whether connections are cut now. */
    public boolean isCut() {
        return cut;
    }

    /** The connections open now. */
    public int openConnections() {
        return open.size();
    }

    /** How many connections went through to the target since the start. */
    public int acceptedConnections() {
        return accepted.get();
    }

    /** How many connections were closed at once: while cut, or over the limit. */
    public int refusedConnections() {
        return refused.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            }
            catch (IOException ex) {
                if (!closed) {
                    log.warn("Proxy {} stopped accepting: {}", address(), ex.toString());
                }
                return;
            }
            if (cut || closed || open.size() >= maxConnections) {
                refused.incrementAndGet();
                closeQuietly(client);
                continue;
            }
            connect(client);
        }
    }

    private void connect(Socket client) {
        Socket upstream = new Socket();
        try {
            upstream.connect(target, CONNECT_TIMEOUT_MILLIS);
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
        }
        catch (IOException ex) {
            log.debug("Proxy {} could not reach {}: {}", address(), target, ex.toString());
            refused.incrementAndGet();
            closeQuietly(client);
            closeQuietly(upstream);
            return;
        }
        Connection connection = new Connection(client, upstream);
        open.add(connection);
        // A cut between the check in the loop and here must still drop this connection.
        if (cut || closed) {
            connection.close();
            return;
        }
        try {
            threads.execute(() -> connection.copy(client, upstream));
            threads.execute(() -> connection.copy(upstream, client));
            accepted.incrementAndGet();
        }
        catch (RejectedExecutionException ex) {
            // Threads of connections just closed may not have ended yet: refuse rather than wait.
            refused.incrementAndGet();
            connection.close();
        }
    }

    /** Stops accepting, closes every connection and waits a bounded time for the threads to end. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        for (Connection connection : open) {
            connection.close();
        }
        threads.shutdown();
        try {
            if (!threads.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                log.warn("Proxy {}: some threads did not end within {} ms", address(), CLOSE_WAIT_MILLIS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        }
        catch (Exception ex) {
            // Closing is all that is asked; a socket already broken is closed enough.
        }
    }

    /** One forwarded connection: closing either side closes both, so a break is seen at both ends. */
    private final class Connection {

        private final Socket client;

        private final Socket upstream;

        private Connection(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        private void copy(Socket from, Socket to) {
            byte[] buffer = new byte[BUFFER];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
            catch (SocketException ex) {
                // Closed by a cut, by close(), or by the other side.
            }
            catch (IOException ex) {
                log.debug("Proxy {}: a connection broke: {}", address(), ex.toString());
            }
            finally {
                close();
            }
        }

        private void close() {
            open.remove(this);
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }
}
