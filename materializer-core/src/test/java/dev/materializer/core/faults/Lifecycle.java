package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.model.Filters;
import org.bson.Document;

/** What the scenarios of a view's lifecycle share: starting the instances, reading a target as a pass left it. */
final class Lifecycle {

    private Lifecycle() {
    }

    /** Starts node-a, node-b, ... and waits until they see each other. */
    static List<Node> start(FaultRun run, int instances) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            nodes.add(run.node("node-" + (char) ('a' + i)).start());
        }
        if (instances > 1) {
            run.awaitLive(nodes.toArray(Node[]::new));
        }
        run.note(instances + " instance(s)");
        return nodes;
    }

    /**
     * Does the edit while no instance runs: each one crashes or stops gracefully (the seed says
     * which), the edit and some writes come, and they all start again with their ids.
     * @return the nodes started again
     */
    static List<Node> whileDown(FaultRun run, List<Node> nodes, Runnable edit) throws InterruptedException {
        boolean crash = run.random.nextBoolean();
        for (Node node : nodes) {
            if (crash) {
                node.crash();
            }
            else {
                node.stop();
            }
        }
        edit.run();
        int events = run.shop.writes(run.random.nextInt(6));
        List<Node> started = new ArrayList<>();
        for (Node node : nodes) {
            started.add(run.node(node.id).start());
        }
        if (started.size() > 1) {
            run.awaitLive(started.toArray(Node[]::new));
        }
        run.note("while every instance was " + (crash ? "crashed" : "stopped") + ", the edit and " + events
                + " change(s); started again");
        return started;
    }

    /** Every stored version of a partition in a target, current or not, for a check of what must be gone. */
    static List<Document> versionsOf(FaultRun run, String target, String partition) {
        return run.db.getCollection(target).find(Filters.eq(Shop.PARTITION, partition)).into(new ArrayList<>());
    }
}
