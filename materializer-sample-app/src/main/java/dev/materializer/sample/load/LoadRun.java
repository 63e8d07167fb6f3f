package dev.materializer.sample.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bounded load run: installs N tenants, creates M orders in each, then sends updates of random
 * orders at a steady rate until the count or the duration is reached, logging progress. Runs on
 * the calling thread; an interrupt ends it early. Not thread-safe: one run, one thread.
 */
class LoadRun {

    private static final Logger log = LoggerFactory.getLogger(LoadRun.class);

    private static final List<String> PRODUCTS = List.of("widget", "sprocket", "gadget", "gizmo", "doohickey");

    private static final int CUSTOMERS = 50;

    /** The first failures are logged in full; the rest are only counted. */
    private static final int LOGGED_ERRORS = 5;

    private final ShopClient shop;

    private final LoadProperties properties;

    private final Random random;

    private final List<String> tenants = new ArrayList<>();

    private final List<List<String>> orderIds = new ArrayList<>();

    private long errors;

    LoadRun(ShopClient shop, LoadProperties properties) {
        this.shop = shop;
        this.properties = properties;
        this.random = new Random(properties.getSeed());
    }

    LoadReport run() throws InterruptedException {
        log.info("Load: {} tenants x {} orders, then up to {} updates at {}/s for at most {}",
                this.properties.getTenants(), this.properties.getOrdersPerTenant(), this.properties.getUpdates(),
                this.properties.getRate(), this.properties.getDuration());
        long started = System.nanoTime();
        long created = createOrders();
        Duration creating = Duration.ofNanos(System.nanoTime() - started);
        log.info("Load: created {} orders in {} ms ({} orders/s)", created, creating.toMillis(),
                Math.round(created * 1e9 / Math.max(1, creating.toNanos())));
        long updating = System.nanoTime();
        long sent = sendUpdates();
        Duration updatingTook = Duration.ofNanos(System.nanoTime() - updating);
        LoadReport report = new LoadReport(this.tenants.size(), created, creating, sent, updatingTook, this.errors,
                viewStates());
        log.info("Load: done. {} orders created ({} /s), {} updates sent ({} /s of {} /s asked), {} errors; "
                + "views of the load tenants by state: {}. The app keeps running.", report.ordersCreated(),
                Math.round(report.creationRate()), report.updatesSent(), Math.round(report.updateRate()),
                this.properties.getRate(), report.errors(), report.viewStates());
        return report;
    }

    private long createOrders() throws InterruptedException {
        Progress progress = new Progress(this.properties.getProgressEvery());
        long total = (long) this.properties.getTenants() * this.properties.getOrdersPerTenant();
        long created = 0;
        for (int number = 1; number <= this.properties.getTenants(); number++) {
            String tenant = this.properties.getTenantPrefix() + "-" + number;
            this.shop.installTenant(tenant);
            this.tenants.add(tenant);
            List<String> ids = new ArrayList<>();
            this.orderIds.add(ids);
            for (int order = 0; order < this.properties.getOrdersPerTenant(); order++) {
                stopIfInterrupted();
                try {
                    ids.add(this.shop.createOrder(tenant, randomOrder()));
                    created++;
                }
                catch (RuntimeException ex) {
                    failed("create an order in " + tenant, ex);
                }
                if (progress.due()) {
                    log.info("Load: created {}/{} orders, {} errors", created, total, this.errors);
                }
            }
        }
        return created;
    }

    private long sendUpdates() throws InterruptedException {
        Progress progress = new Progress(this.properties.getProgressEvery());
        long intervalNanos = Math.max(1, Math.round(1e9 / this.properties.getRate()));
        long start = System.nanoTime();
        long deadline = start + this.properties.getDuration().toNanos();
        long sent = 0;
        while (sent < this.properties.getUpdates()) {
            long due = start + sent * intervalNanos;
            if (due - deadline >= 0) {
                break;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            stopIfInterrupted();
            int tenant = this.random.nextInt(this.tenants.size());
            List<String> ids = this.orderIds.get(tenant);
            if (ids.isEmpty()) {
                break;
            }
            String id = ids.get(this.random.nextInt(ids.size()));
            try {
                this.shop.replaceOrder(this.tenants.get(tenant), id, randomOrder());
            }
            catch (RuntimeException ex) {
                failed("update order " + id + " of " + this.tenants.get(tenant), ex);
            }
            sent++;
            if (progress.due()) {
                double seconds = (System.nanoTime() - start) / 1e9;
                log.info("Load: sent {}/{} updates ({} /s), {} errors", sent, this.properties.getUpdates(),
                        Math.round(sent / Math.max(seconds, 1e-9)), this.errors);
            }
        }
        return sent;
    }

    private Map<String, Object> randomOrder() {
        String product = PRODUCTS.get(this.random.nextInt(PRODUCTS.size()));
        // Whole-cent prices keep the sums readable.
        double price = (100 + this.random.nextInt(9_900)) / 100.0;
        return Map.of("customer", "customer-" + (1 + this.random.nextInt(CUSTOMERS)), "product", product,
                "quantity", 1 + this.random.nextInt(5), "price", price);
    }

    private Map<String, Long> viewStates() {
        Map<String, Long> states = new TreeMap<>();
        for (String tenant : this.tenants) {
            try {
                for (Map<String, Object> view : this.shop.views(tenant)) {
                    Object state = view.get("state");
                    states.merge(state == null ? "pending" : state.toString(), 1L, Long::sum);
                }
            }
            catch (RuntimeException ex) {
                failed("read the views of " + tenant, ex);
            }
        }
        return states;
    }

    private void failed(String what, RuntimeException ex) {
        this.errors++;
        if (this.errors <= LOGGED_ERRORS) {
            log.warn("Load: could not {}: {}", what, ex.toString());
        }
    }

    private static void stopIfInterrupted() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("load run stopped");
        }
    }

    /** Says when the next progress line is due. */
    private static final class Progress {

        private final long everyNanos;

        private long next;

        Progress(Duration every) {
            this.everyNanos = every.toNanos();
            this.next = System.nanoTime() + this.everyNanos;
        }

        boolean due() {
            long now = System.nanoTime();
            if (now - this.next < 0) {
                return false;
            }
            this.next = now + this.everyNanos;
            return true;
        }
    }
}
