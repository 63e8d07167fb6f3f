package dev.materializer.core.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import com.mongodb.MongoException;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.ViewShape;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.Generation;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.ViewState;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A delete whose partition the event does not name (no pre-image, no storage id) reaches every
 * partition reading its source. For the partitions this instance owns whose marked views are all
 * rows-per-document of that source alone (row id = document id, no {@code $lookup}), one query per
 * target finds where a row of the deleted id is: the other partitions hold none, so the delete
 * changes nothing there and they are not marked — one command instead of a pass per partition.
 *
 * <p>What it guarantees: a partition is left out only when none of its marked views holds a version
 * of a row with the deleted id (any version: current, superseded or of an attempt in flight), and no
 * mark of the source is pending or taken there — read before the query, so a pass that was writing
 * such a row then is either still marked or had written it by the query. Anything else keeps the
 * mark: a view of another shape, one not {@code ok}, a partition another instance owns (its owner
 * narrows on its own stream; this one keeps what it heard for a later handover), a failed query.
 *
 * <p>Threads: called on the stream threads; reads the registry (synchronized) and the scheduler's
 * pending marks (synchronized), and MongoDB.
 */
final class BroadcastDeletes {

    private static final Logger log = LoggerFactory.getLogger(BroadcastDeletes.class);

    private final MongoDatabase database;

    private final ViewRegistry registry;

    private final String partitionField;

    /** Per source, the partitions with marks of it pending or taken. */
    private final Function<String, Set<String>> pending;

    BroadcastDeletes(MongoDatabase database, ViewRegistry registry, String partitionField,
            Function<String, Set<String>> pending) {
        this.database = database;
        this.registry = registry;
        this.partitionField = partitionField;
        this.pending = pending;
    }

    /**
     * The marks of an event, without the owned partitions a delete provably leaves as they are.
     * @param collection the source
     * @param change the event
     * @param marks per partition, the views it may affect
     * @param owns which partitions this instance owns
     * @return the marks to make
     */
    Map<String, Map<String, AffectedKeys>> narrow(String collection, SourceChange change,
            Map<String, Map<String, AffectedKeys>> marks, Predicate<String> owns) {
        BsonValue id = change.documentId();
        if (change.operation() != SourceChange.Operation.DELETE || id == null || marks.size() < 2) {
            return marks;
        }
        // Before the query: a pass that held marks then is kept; one that ended wrote its rows before the query
        Set<String> busy = pending.apply(collection);
        Map<String, Set<String>> candidatesByTarget = new HashMap<>();
        Map<String, Set<String>> targetsOf = new HashMap<>();
        marks.forEach((partition, views) -> {
            if (!owns.test(partition) || busy.contains(partition)) {
                return;
            }
            Set<String> targets = new HashSet<>();
            for (String viewId : views.keySet()) {
                ViewDefinition view = registry.find(partition, viewId);
                if (view == null || !rowsPerDocumentOf(view, collection)) {
                    return;
                }
                targets.add(view.targetCollection());
            }
            targetsOf.put(partition, targets);
            targets.forEach(target -> candidatesByTarget.computeIfAbsent(target, key -> new HashSet<>()).add(partition));
        });
        if (targetsOf.isEmpty()) {
            return marks;
        }
        Set<String> holding = new HashSet<>();
        try {
            candidatesByTarget.forEach((target, partitions) -> holding.addAll(holdersOf(target, partitions, id)));
        }
        catch (MongoException ex) {
            log.debug("The partitions holding a deleted id of {} could not be read ({}): every one runs", collection,
                    ex.getMessage());
            return marks;
        }
        Map<String, Map<String, AffectedKeys>> narrowed = new HashMap<>(marks);
        targetsOf.keySet().stream().filter(partition -> !holding.contains(partition)).forEach(narrowed::remove);
        log.debug("A delete in {} without its partition reaches {} partition(s); {} of them hold its row", collection,
                marks.size(), narrowed.size());
        return narrowed;
    }

    /** Whether each row of the view is one document of the source, keyed by its id, read from nothing else. */
    private boolean rowsPerDocumentOf(ViewDefinition view, String collection) {
        ViewShape shape = registry.shape(view.key());
        Generation generation = registry.generation(view.key());
        return shape.kind() == ViewShape.Kind.PER_DOCUMENT && shape.keyPaths().equals(List.of("_id"))
                && shape.lookups().isEmpty() && view.collections().equals(List.of(collection))
                && registry.state(view.key()) == ViewState.OK && generation != null && !generation.isLegacy();
    }

    /** The partitions among those given whose rows in the target include a version of the id's row. */
    private Set<String> holdersOf(String target, Set<String> partitions, BsonValue id) {
        List<BsonValue> among = new ArrayList<>();
        partitions.forEach(partition -> among.add(new BsonString(partition)));
        BsonDocument filter = new BsonDocument(partitionField, new BsonDocument("$in", new BsonArray(among)))
            .append(ViewFilter.ROW_FIELD, id);
        Set<String> holders = new HashSet<>();
        database.getCollection(target, BsonDocument.class).find(filter)
            .projection(Projections.include(partitionField))
            .forEach(row -> {
                BsonValue partition = row.get(partitionField);
                if (partition != null && partition.isString()) {
                    holders.add(partition.asString().getValue());
                }
            });
        return holders;
    }
}
