package dev.materializer.core.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.materializer.core.engine.EngineProbe;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.ViewFilter;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The reconciler runs (a short interval on the run's clock) while the streams hand changes over
 * late: the hand-over of orders, and on some rolls of customers, is held on every instance, writes
 * come, a round begins, and the hold is released as a reconcile run heals, or once a run that
 * found a difference waited for the held streams and ended. A reconcile
 * run then finds a view differing from its pipeline by changes nothing has marked yet; that is lag,
 * never drift: no drift in any listener's reports, in any status ({@code reconcile.drift}) or in
 * any registry ({@code driftRows}), and the views converge. Then a real drift: with every change
 * heard and nothing pending, a row of a target that no view reads is deleted, edited or added by
 * hand; the next round must count exactly that view's drift, and heal it.
 */
final class DriftJudgedUnderStreamLag implements FaultScenario {

    static final Duration INTERVAL = Duration.ofSeconds(4);

    /** The views whose targets no view reads, so a write by hand there wakes nothing but the reconciler. */
    private static final List<String> UNREAD = List.of("status-", "cust-", "top-");

    @Override
    public void play(FaultRun run) throws InterruptedException {
        run.reconcileEvery(INTERVAL);
        run.shop.seedData();
        run.shop.defineViews();
        List<Node> nodes = Lifecycle.start(run, run.random.nextBoolean() ? 2 : 1);
        run.converge("the first start");

        // A second round, on some rolls, releases at a heal: a round that waits out the held streams costs seconds.
        boolean atTheHeal = run.random.nextBoolean();
        int rounds = 1 + run.random.nextInt(2);
        for (int round = 0; round < rounds; round++) {
            lag(run, nodes, atTheHeal || round > 0);
            run.converge("changes handed over late during a reconcile round");
            requireNoDrift(run, nodes, null);
        }

        // Nothing pending: the streams heard the engines' own writes too (a late event of the revenue
        // target runs the top views, whose pass would heal a row written by hand before any round).
        run.awaitQuiescent();
        String tenant = run.shop.tenant();
        String view = run.shop.pick(UNREAD) + tenant;
        String by = driftByHand(run, tenant, view);
        run.note("drift: " + by + " in the target of " + tenant + "/" + view + " with nothing pending");
        Node.waitFor("the reconciler to find the drift of " + view).until(() -> {
            run.step();
            return nodes.stream().anyMatch(node -> !node.events.drifts.isEmpty());
        });
        run.converge("a drift by hand");
        requireNoDrift(run, nodes, tenant + "/" + view);
    }

    /**
     * Holds the hand-over, writes, lets a round begin, and releases the hold: when a reconcile run's
     * heal starts (both sources held, so no other pass can start), or once a run that found a
     * difference ended (it waited for the held streams, up to their wait, and judged it lag).
     */
    private static void lag(FaultRun run, List<Node> nodes, boolean atTheHeal) throws InterruptedException {
        boolean customersToo = atTheHeal || run.random.nextBoolean();
        List<EngineProbe.HeldStream> holds = new ArrayList<>();
        for (Node node : nodes) {
            holds.add(EngineProbe.holdHandOver(node.engine, Shop.ORDERS));
            if (customersToo) {
                holds.add(EngineProbe.holdHandOver(node.engine, Shop.CUSTOMERS));
            }
        }
        int reconciled = sum(nodes, node -> node.events.reconciled.get());
        int different = sum(nodes, node -> node.events.reconciledDifferent.get());
        try {
            // One insert of each held collection at least, so each hold holds an event.
            run.shop.insertOrder(run.shop.tenant());
            if (customersToo) {
                run.shop.insertCustomer(run.shop.tenant());
            }
            int events = run.shop.writes(3 + run.random.nextInt(10));
            for (EngineProbe.HeldStream hold : holds) {
                hold.awaitHeld();
            }
            run.note(events + " change(s) more, held in the hand-over of orders" + (customersToo ? " and customers" : "")
                    + " until " + (atTheHeal ? "a reconcile run heals" : "a reconcile run that found a difference ended"));
            if (atTheHeal) {
                nodes.forEach(node -> node.events.onPassStarted = () -> holds.forEach(EngineProbe.HeldStream::release));
            }
            // Each step drains, so a run waiting for the held streams has ended when the step returns.
            Node.waitFor("a reconcile round to " + (atTheHeal ? "begin" : "find a difference")).until(() -> {
                run.step();
                return atTheHeal ? sum(nodes, node -> node.events.reconciled.get()) > reconciled
                        : sum(nodes, node -> node.events.reconciledDifferent.get()) > different;
            });
        }
        finally {
            nodes.forEach(node -> node.events.onPassStarted = () -> { });
            holds.forEach(EngineProbe.HeldStream::release);
        }
        run.note("released the hand-over");
    }

    private static int sum(List<Node> nodes, ToIntFunction<Node> count) {
        return nodes.stream().mapToInt(count).sum();
    }

    /** Deletes, edits or adds a current row of the view's target by hand; says which. */
    private static String driftByHand(FaultRun run, String tenant, String id) {
        Document view = run.shop.views().find(Filters.eq("_id", id)).first();
        String target = view.getString("targetCollection");
        Bson current = ViewFilter.of(view, Shop.PARTITION, MaterializerOptions.DEFAULT_STATUS_FIELD);
        Document row = run.db.getCollection(target).find(current).first();
        int roll = row == null ? 2 : run.random.nextInt(3);
        if (roll == 0) {
            run.db.getCollection(target).deleteOne(Filters.eq("_id", row.get("_id")));
            return "a row deleted";
        }
        if (roll == 1) {
            run.db.getCollection(target).updateOne(Filters.eq("_id", row.get("_id")), Updates.set("byHand", true));
            return "a row edited";
        }
        long generation = view.get(MaterializerOptions.DEFAULT_STATUS_FIELD, Document.class).get("generation", Number.class)
            .longValue();
        run.db.getCollection(target).insertOne(new Document("_id", new Document("partition", tenant)
            .append("generation", generation).append("id", "by-hand"))
            .append("byHand", true).append(Shop.PARTITION, tenant).append(ViewFilter.ROW_FIELD, "by-hand")
            .append(ViewFilter.FROM_FIELD, generation).append(ViewFilter.TO_FIELD, Long.MAX_VALUE)
            .append(ViewFilter.HASH_FIELD, "by hand"));
        return "a row added";
    }

    /**
     * No drift anywhere but of the view given (null: none): in the listeners' reports, the
     * statuses and the registries of every instance.
     */
    private static void requireNoDrift(FaultRun run, List<Node> nodes, String drifted) {
        List<String> found = new ArrayList<>();
        int drifts = 0;
        for (Node node : nodes) {
            for (String report : node.events.drifts) {
                drifts++;
                if (drifted == null || !report.startsWith(drifted + ":")) {
                    found.add(node.id + " reported drift of " + report);
                }
            }
            for (ViewSnapshot snapshot : node.engine.views(ViewQuery.first(1000)).views()) {
                String name = snapshot.partition() + "/" + snapshot.id();
                if (snapshot.driftRows() > 0 && !name.equals(drifted)) {
                    found.add(node.id + " counts " + snapshot.driftRows() + " drift row(s) of " + name);
                }
            }
        }
        for (Document view : run.shop.views().find()) {
            String name = view.get(Shop.PARTITION) + "/" + view.get("_id");
            Document status = view.get(MaterializerOptions.DEFAULT_STATUS_FIELD, Document.class);
            Document reconcile = status == null ? null : status.get("reconcile", Document.class);
            boolean recorded = reconcile != null && reconcile.get("drift") != null;
            if (recorded != name.equals(drifted)) {
                found.add("the status of " + name + (recorded ? " records drift " + reconcile.toJson() : " records no drift"));
            }
        }
        if (drifted != null && drifts != 1) {
            found.add(drifts + " drift report(s), not exactly the one of " + drifted);
        }
        if (!found.isEmpty()) {
            throw new FaultFound(run, drifted == null ? "changes handed over late" : "a drift by hand",
                    String.join("; ", found));
        }
        run.note(drifted == null ? "no drift counted" : "exactly the drift of " + drifted + " counted");
    }
}
