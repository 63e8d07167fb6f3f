package dev.materializer.core.routing;

import java.util.List;
import java.util.Set;

import dev.materializer.core.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Routes the events of a target that another view reads: the engine's own writes of row versions
 * (documents with {@value ViewFilter#TO_FIELD}, which no source document has). What readers of a
 * view's next generation see changes only by a version added or closed in the view's partition,
 * so such an event reaches only that partition — never every partition, as an event that does
 * not name its partition otherwise would. The engine deletes only versions no reader of the current
 * or a later generation sees (superseded ones past their grace, an undone attempt's), and reopens
 * only versions the current generation sees: those events reach no partition.
 *
 * <p>The owner of a partition also runs its downstream views right after a pass that changed an
 * upstream view; routing the versions' events keeps a downstream view right when a pass of another
 * instance wrote the upstream one (during a handover).
 *
 * <p>Stateless and thread-safe; runs for every event, so it allocates little.
 */
final class RowVersionEvents {

    private static final Set<String> DEFAULT_STORED_ID = Set.of("partition", "generation", "id");

    private final String partitionField;

    RowVersionEvents(String partitionField) {
        this.partitionField = partitionField;
    }

    /**
     * The partitions an event of the engine's row versions affects, or null when the event is not
     * one (it is routed as a change of a source).
     */
    @Nullable AffectedPartitions route(SourceChange change) {
        switch (change.operation()) {
            case INSERT, REPLACE -> {
                BsonDocument version = change.fullDocument();
                return ViewFilter.isRowVersion(version) ? partitionOf(version) : null;
            }
            case UPDATE -> {
                BsonDocument version = change.fullDocument();
                SourceChange.UpdatedFields update = change.update();
                if (update != null && onlyTo(update)) {
                    // A close routes to its partition: the row leaves the next generation; a reopen changes nothing
                    return ViewFilter.isRowVersion(version) && isOpen(version) ? AffectedPartitions.NONE
                            : version != null ? partitionOf(version) : fromStoredId(change.documentId());
                }
                return ViewFilter.isRowVersion(version) ? partitionOf(version) : null;
            }
            case DELETE -> {
                BsonDocument before = change.fullDocumentBeforeChange();
                if (ViewFilter.isRowVersion(before) || before == null && isDefaultStoredId(change.documentId())) {
                    return AffectedPartitions.NONE;
                }
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    private static boolean isOpen(BsonDocument version) {
        BsonValue to = version.get(ViewFilter.TO_FIELD);
        return to.isInt64() && to.asInt64().getValue() == ViewFilter.OPEN;
    }

    private static boolean onlyTo(SourceChange.UpdatedFields update) {
        return only(update.updated()) && update.removed().isEmpty() && update.truncatedArrays().isEmpty()
                && !update.updated().isEmpty();
    }

    private static boolean only(List<String> keys) {
        for (int i = 0, n = keys.size(); i < n; i++) {
            if (!keys.get(i).equals(ViewFilter.TO_FIELD)) {
                return false;
            }
        }
        return true;
    }

    private AffectedPartitions partitionOf(BsonDocument version) {
        BsonValue partition = version.get(partitionField);
        return partition instanceof BsonString text && !text.getValue().isEmpty()
                ? AffectedPartitions.of(Set.of(text.getValue())) : AffectedPartitions.NONE;
    }

    /** The partition in the default stored id {@code {partition, generation, id}}; every one when unknown. */
    private static AffectedPartitions fromStoredId(@Nullable BsonValue storedId) {
        if (isDefaultStoredId(storedId)) {
            BsonValue partition = storedId.asDocument().get("partition");
            if (partition instanceof BsonString text && !text.getValue().isEmpty()) {
                return AffectedPartitions.of(Set.of(text.getValue()));
            }
        }
        return AffectedPartitions.ALL;
    }

    private static boolean isDefaultStoredId(@Nullable BsonValue storedId) {
        return storedId != null && storedId.isDocument() && storedId.asDocument().keySet().equals(DEFAULT_STORED_ID)
                && storedId.asDocument().get("generation").isObjectId();
    }
}
