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

    /** Every stored version of a partition in a target, current or not, for a check of what must be gone. */
    static List<Document> versionsOf(FaultRun run, String target, String partition) {
        return run.db.getCollection(target).find(Filters.eq(Shop.PARTITION, partition)).into(new ArrayList<>());
    }
}
