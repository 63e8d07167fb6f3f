package dev.materializer.sample.load;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Profile;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * The load generator of the profile {@code load}: once the application is ready, runs one bounded
 * {@link LoadRun} against this application's own REST API on the loopback address, on a thread of
 * its own, and stops it when the application stops. For demos and benchmarks:
 *
 * <pre>
 * ./mvnw -pl materializer-sample-app spring-boot:run -Dspring-boot.run.profiles=load \
 *     -Dspring-boot.run.arguments="--shop.load.tenants=10 --shop.load.orders-per-tenant=500 --shop.load.rate=100"
 * </pre>
 *
 * Thread-safe.
 */
@Component
@Profile("load")
@EnableConfigurationProperties(LoadProperties.class)
public class LoadGenerator implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(LoadGenerator.class);

    private final LoadProperties properties;

    private final Environment environment;

    private final CompletableFuture<LoadReport> done = new CompletableFuture<>();

    private volatile @Nullable Thread thread;

    LoadGenerator(LoadProperties properties, Environment environment) {
        properties.check();
        this.properties = properties;
        this.environment = environment;
    }

    /** The report of the run, when it ends; completes exceptionally when it fails or is stopped. */
    public CompletableFuture<LoadReport> done() {
        return this.done;
    }

    @EventListener(ApplicationReadyEvent.class)
    void start() {
        Integer port = this.environment.getProperty("local.server.port", Integer.class);
        if (port == null) {
            this.done.completeExceptionally(new IllegalStateException("the load generator needs the web server"));
            log.warn("Load: no web server port is known, so there is nothing to load");
            return;
        }
        Thread runner = new Thread(() -> run(new LoopbackShopClient(port)), "shop-load");
        runner.setDaemon(true);
        this.thread = runner;
        runner.start();
    }

    private void run(ShopClient shop) {
        try {
            this.done.complete(new LoadRun(shop, this.properties).run());
        }
        catch (InterruptedException ex) {
            log.info("Load: stopped before the end");
            this.done.completeExceptionally(ex);
            Thread.currentThread().interrupt();
        }
        catch (RuntimeException ex) {
            log.warn("Load: failed", ex);
            this.done.completeExceptionally(ex);
        }
    }

    @Override
    public void destroy() throws InterruptedException {
        Thread runner = this.thread;
        if (runner != null) {
            runner.interrupt();
            runner.join(5_000);
        }
    }
}
