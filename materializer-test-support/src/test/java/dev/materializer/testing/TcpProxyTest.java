package dev.materializer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The proxy between a client and an echo server on the loopback interface. */
class TcpProxyTest {

    private static final int READ_TIMEOUT_MILLIS = 5_000;

    private EchoServer echo;

    @BeforeEach
    void startEcho() throws IOException {
        echo = new EchoServer();
    }

    @AfterEach
    void stopEcho() {
        echo.close();
    }

    @Test
    void bytesPassBothWays() throws IOException {
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1:" + echo.port()); Socket socket = connect(proxy)) {
            assertThat(roundTrip(socket, "hello")).isEqualTo("hello");
            assertThat(roundTrip(socket, "again")).isEqualTo("again");
            assertThat(proxy.acceptedConnections()).isEqualTo(1);
            assertThat(proxy.address()).startsWith("127.0.0.1:");
        }
    }

    @Test
    void aCutBreaksOpenConnectionsAndRefusesNewOnesUntilRestored() throws IOException {
        try (TcpProxy proxy = TcpProxy.start("localhost:" + echo.port()); Socket before = connect(proxy)) {
            assertThat(roundTrip(before, "up")).isEqualTo("up");

            proxy.cut();

            assertThat(endOfStream(before)).as("the open connection is dropped").isTrue();
            try (Socket during = connect(proxy)) {
                assertThat(endOfStream(during)).as("a new connection is closed at once").isTrue();
            }
            assertThat(proxy.isCut()).isTrue();
            assertThat(proxy.refusedConnections()).isEqualTo(1);

            proxy.restore();

            try (Socket after = connect(proxy)) {
                assertThat(roundTrip(after, "back")).isEqualTo("back");
            }
            assertThat(proxy.acceptedConnections()).isEqualTo(2);
        }
    }

    @Test
    void connectionsOverTheLimitAreClosedAtOnce() throws IOException {
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port(), 1); Socket first = connect(proxy)) {
            assertThat(roundTrip(first, "one")).isEqualTo("one");
            try (Socket second = connect(proxy)) {
                assertThat(endOfStream(second)).isTrue();
            }
            assertThat(roundTrip(first, "still")).isEqualTo("still");
        }
    }

    @Test
    void closeEndsEveryThreadOfTheProxy() throws IOException {
        TcpProxy proxy = TcpProxy.start("127.0.0.1:" + echo.port());
        String prefix = "tcp-proxy-" + proxy.port() + "-";
        Socket socket = connect(proxy);
        assertThat(roundTrip(socket, "x")).isEqualTo("x");
        assertThat(threadsNamed(prefix)).as("the acceptor and two copiers").isEqualTo(3);

        proxy.close();

        awaitEnd(prefix);
        assertThat(threadsNamed(prefix)).isZero();
        assertThat(endOfStream(socket)).isTrue();
        socket.close();
    }

    @Test
    void onlyTheLoopbackInterfaceIsATarget() {
        assertThatThrownBy(() -> TcpProxy.start("192.0.2.1", 27017, 4))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("loopback");
        assertThatThrownBy(() -> TcpProxy.start("no-port")).isInstanceOf(IllegalArgumentException.class);
    }

    private static Socket connect(TcpProxy proxy) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), proxy.port()), READ_TIMEOUT_MILLIS);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        return socket;
    }

    private static String roundTrip(Socket socket, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
        byte[] back = socket.getInputStream().readNBytes(bytes.length);
        return new String(back, StandardCharsets.UTF_8);
    }

    /** Whether the other end closed: a read ends the stream or fails with a reset, within the read timeout. */
    private static boolean endOfStream(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() < 0;
        }
        catch (SocketTimeoutException ex) {
            return false;
        }
        catch (IOException ex) {
            // A reset is a break too.
            return true;
        }
    }

    /** Joins the proxy's threads, a bounded time each: a pool's worker is still alive for a moment after it ends. */
    private static void awaitEnd(String prefix) {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith(prefix)) {
                try {
                    thread.join(READ_TIMEOUT_MILLIS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.isAlive() && thread.getName().startsWith(prefix))
            .count();
    }

    /** Echoes every byte back, on one thread per connection. */
    private static final class EchoServer implements AutoCloseable {

        private final ServerSocket server;

        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        private final Thread acceptor;

        EchoServer() throws IOException {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            acceptor = new Thread(this::accept, "echo-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    sockets.add(socket);
                    Thread echo = new Thread(() -> echo(socket), "echo-connection");
                    echo.setDaemon(true);
                    echo.start();
                }
                catch (IOException ex) {
                    return;
                }
            }
        }

        private static void echo(Socket socket) {
            byte[] buffer = new byte[1024];
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
            catch (IOException ex) {
                // The client or the proxy closed.
            }
        }

        @Override
        public void close() {
            try {
                server.close();
                for (Socket socket : sockets) {
                    socket.close();
                }
                acceptor.join(5_000);
            }
            catch (IOException ex) {
                // Closing is all that is asked.
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
