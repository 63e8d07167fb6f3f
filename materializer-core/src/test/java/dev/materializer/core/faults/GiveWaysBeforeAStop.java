package dev.materializer.core.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.MaterializerOptions;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Passes give way to a pass of another instance (a live lease on their views), then the host stops
 * gracefully before their retry ran; the other pass ends without writing; the host starts again.
 * The changes the given-way passes were for must still reach the views.
 *
 * <p>The other instance's pass is a lease written on the view documents as a pass in groups writes
 * it; it ends by removing it, as a pass that fails does. Its end is in server time, which for the
 * in-process server is the host's clock.
 */
final class GiveWaysBeforeAStop implements FaultScenario {

    private static final String OWNER = "elsewhere/";

    @Override
    public void play(FaultRun run) throws InterruptedException {
        run.shop.seedData();
        run.shop.defineViews();
        Node node = run.node("node-a").start();
        run.converge("the first start");

        // Two tenants at least, so the writes while down (into one tenant) leave one in sight.
        List<String> held = new ArrayList<>();
        for (String tenant : run.shop.tenants()) {
            if (held.size() < 2 || run.random.nextBoolean()) {
                held.add(tenant);
                holdViewsOf(run, tenant);
            }
        }
        int heard = node.heard();
        int events = run.shop.writes(10 + run.random.nextInt(20));
        node.awaitHeard(heard + events);
        int gaveWay = node.events.gaveWay.get();
        // Past the max delay: every partition passes; the held ones give way and arm their retry.
        run.clock.advance(Duration.ofSeconds(1).plus(FaultRun.DEBOUNCE));
        node.drain();
        run.note(events + " change(s) under the leases of another instance on the views of " + held + ", "
                + (node.events.gaveWay.get() - gaveWay) + " pass(es) gave way");

        node.stop();
        release(run);
        Shop.OneTenant whileDown = run.shop.insertsIntoOneTenant(run.random.nextInt(6));
        run.node("node-a").start();
        run.note("stopped before the retry, the other pass ended, " + whileDown + " while down, restarted");

        run.converge("passes gave way before a stop");
    }

    private static void holdViewsOf(FaultRun run, String tenant) {
        Document lease = new Document("owner", OWNER + new ObjectId().toHexString()).append("generation", new ObjectId())
            .append("until", new Date(System.currentTimeMillis() + 600_000));
        run.shop.views().updateMany(Filters.eq(Shop.PARTITION, tenant),
                Updates.set(MaterializerOptions.DEFAULT_STATUS_FIELD + ".lease", lease));
    }

    private static void release(FaultRun run) {
        String path = MaterializerOptions.DEFAULT_STATUS_FIELD + ".lease";
        run.shop.views().updateMany(Filters.regex(path + ".owner", "^" + OWNER), Updates.unset(path));
    }
}
