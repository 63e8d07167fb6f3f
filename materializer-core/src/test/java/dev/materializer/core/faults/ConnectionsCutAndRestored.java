package dev.materializer.core.faults;

import java.time.Duration;

import com.mongodb.client.MongoClient;
import dev.materializer.testing.TcpProxy;

/**
 * An engine reaches MongoDB through a proxy whose connections are cut while the test writes on
 * through its own client: its streams, passes and heartbeats fail until the proxy is restored.
 *
 * <p>Without a stop, one instance is cut once or twice and runs on. With a stop, a second instance
 * on a direct client runs beside it: the first is cut while its passes run, so they fail and wait
 * for their retry; the second saves its streams' checkpoints meanwhile; the proxy is restored
 * and the first stops gracefully before any retry ran, then starts again with its id.
 */
final class ConnectionsCutAndRestored implements FaultScenario {

    /** Long enough that the cut instance counts as live throughout, even on a slow machine. */
    private static final Duration LEASE = Duration.ofSeconds(6);

    private final boolean stopBeforeTheRetry;

    ConnectionsCutAndRestored(boolean stopBeforeTheRetry) {
        this.stopBeforeTheRetry = stopBeforeTheRetry;
    }

    @Override
    public void play(FaultRun run) throws Exception {
        run.partitionLease(LEASE);
        run.shop.seedData();
        run.shop.defineViews();
        TcpProxy proxy = run.proxy();
        MongoClient client = run.clientThrough(proxy);
        // With a stop, node-a keeps its own clock, so its retries can be held back while node-b works.
        Node node = (stopBeforeTheRetry ? run.nodeWithItsOwnClock("node-a", client) : run.node("node-a", client)).start();
        Node other = null;
        if (stopBeforeTheRetry) {
            other = run.node("node-b").start();
            run.awaitLive(node, other);
        }
        primeStreams(run, node);
        run.converge("the first start through the proxy");

        if (stopBeforeTheRetry) {
            cutThenStop(run, proxy, node, other);
            run.nodeWithItsOwnClock("node-a", client).start();
            run.note("node-a started again");
            run.converge("connections cut, restored, and a stop before the retry");
            return;
        }
        int cuts = 1 + run.random.nextInt(2);
        for (int cut = 1; cut <= cuts; cut++) {
            int heard = node.heard();
            int events = run.shop.writes(5 + run.random.nextInt(20));
            Moment moment = cut == 1 ? Moment.of(run.seed) : Moment.pick(run.random);
            moment.reach(run, node, heard + events);
            proxy.cut();
            int whileCut = run.shop.writes(run.random.nextInt(15));
            // Time moves while cut: passes, stream reopenings and heartbeats fail and back off.
            int steps = run.random.nextInt(8);
            run.advance(steps);
            run.note("cut " + cut + ": " + events + " change(s), cut " + moment + ", " + whileCut
                    + " change(s) while cut, " + steps + " step(s) of time while cut");
            proxy.restore();
        }
        run.converge("connections cut and restored");
    }

    /**
     * The in-process server sends no postBatchResumeToken, so the driver, resuming a stream on its
     * own after a broken connection, resumes from the last event it returned, or silently from now
     * when there was none; a real server sends the token with every batch. So each stream returns an
     * event before any cut, or the suite would find the test server's gap, not the engine's. (The
     * revenue stream hears the first passes write the revenue views.)
     */
    private static void primeStreams(FaultRun run, Node node) {
        run.shop.insertOrder(run.shop.tenant());
        run.shop.insertCustomer(run.shop.tenant());
        for (String source : new String[] {Shop.ORDERS, Shop.CUSTOMERS, "revenue"}) {
            node.awaitHeardFrom(source);
        }
    }

    private static void cutThenStop(FaultRun run, TcpProxy proxy, Node node, Node other) throws InterruptedException {
        int heard = node.heard();
        int heardByOther = other.heard();
        int events = run.shop.writes(5 + run.random.nextInt(20));
        node.awaitHeard(heard + events);
        other.awaitHeard(heardByOther + events);
        // Both past the debounce: the passes start; node-a's fail on the cut, each on a server timeout.
        run.advance(1);
        proxy.cut();
        node.drain();
        int failed = node.events.gaveWay.get();
        // node-b passes its partitions and saves its checkpoints past these changes, on the
        // shared clock alone: node-a's retries wait on its own.
        run.awaitCheckpointsSince(other, run.clock.now(), other);
        proxy.restore();
        run.note(events + " change(s), node-a cut while its passes ran (" + failed + " failed), node-b saved the"
                + " checkpoints since, restored");
        // No time moves from here to the restart: no retry runs, and node-b's next heartbeat does
        // not come between node-a leaving and node-a being back.
        node.stop();
        run.note("node-a stopped before any retry");
    }
}
