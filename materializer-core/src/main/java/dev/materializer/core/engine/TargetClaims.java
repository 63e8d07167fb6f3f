package dev.materializer.core.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.mongodb.MongoException;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import dev.materializer.core.write.StatusStore;
import dev.materializer.core.write.TargetHolder;
import org.bson.BsonValue;

/**
 * Which views of a partition may not run because of their target: a target holds the rows of one
 * view per partition. Where more than one view document of a partition names a target, the one that
 * holds it ({@link TargetHolder}: its status names a generation written there) runs on, and every
 * other view naming it is refused, its error naming the holder. Where none holds it (two new views,
 * say), every valid view naming it is refused, each error naming them all, until one goes.
 *
 * <p>The holder is decided from the view documents, not from what this instance registered first,
 * so every instance decides alike, and a restart too. Documents of views that cannot run (invalid)
 * count: one may hold a target, and its rows are not another view's to take.
 *
 * <p>Threads: called in the partition's lane; reads the registry and the views collection.
 */
final class TargetClaims {

    private final ViewRegistry registry;

    private final StatusStore status;

    TargetClaims(ViewRegistry registry, StatusStore status) {
        this.registry = registry;
        this.status = status;
    }

    /**
     * The views of the partition naming a target that more than one view document of it names: only
     * for those is there anything to decide. Reads the registry only; callable from any thread.
     */
    Set<ViewKey> contested(String partition, List<ViewDefinition> views) {
        Set<ViewKey> contested = new HashSet<>();
        contestedTargets(partition, views).values()
            .forEach(writers -> writers.forEach(view -> contested.add(view.key())));
        return contested;
    }

    /**
     * Per view of the partition that may not run because of its target, why.
     * @param views the partition's registered views
     * @throws MongoException when the view documents of a contested target cannot be read
     */
    Map<ViewKey, String> refusals(String partition, List<ViewDefinition> views) {
        Map<ViewKey, String> refused = new HashMap<>();
        contestedTargets(partition, views).forEach((target, writers) -> {
            BsonValue holder = status.holderOf(partition, target);
            if (holder != null) {
                String holderId = ViewKey.idText(holder);
                writers.stream().filter(view -> !view.key().id().equals(holderId))
                    .forEach(view -> refused.put(view.key(), TargetHolder.refusal(view, holderId)));
            }
            else if (writers.size() > 1) {
                List<String> ids = writers.stream().map(view -> "'" + view.key().id() + "'").sorted().toList();
                String error = "views " + String.join(" and ", ids) + " of partition '" + partition
                        + "' both write target '" + target + "' and none of them holds it yet; a target holds the rows"
                        + " of one view per partition: give each view its own targetCollection";
                writers.forEach(view -> refused.put(view.key(), error));
            }
        });
        return refused;
    }

    /** Per target named by more than one view document of the partition, its registered (valid) writers. */
    private Map<String, List<ViewDefinition>> contestedTargets(String partition, List<ViewDefinition> views) {
        Map<String, List<ViewDefinition>> byTarget = new HashMap<>();
        views.forEach(view -> byTarget.computeIfAbsent(view.targetCollection(), key -> new ArrayList<>()).add(view));
        Set<String> namedByInvalid = registry.targetsOfInvalid(partition);
        byTarget.entrySet().removeIf(entry -> entry.getValue().size() < 2 && !namedByInvalid.contains(entry.getKey()));
        return byTarget;
    }
}
