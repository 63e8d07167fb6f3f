package dev.materializer.core.convergence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.guard.ScopeViolationException;
import dev.materializer.core.PartitionTargetId;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.core.Generation;
import dev.materializer.core.GenerationPlace;
import dev.materializer.core.view.InvalidViewException;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewDefinitionParser;
import dev.materializer.core.ViewFilter;
import dev.materializer.core.ViewKey;
import dev.materializer.core.ViewState;
import dev.materializer.core.view.ViewStatus;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Tells whether the views of a database have converged: for every view whose status says
 * {@code ok}, the rows a reader sees (its current generation, through {@link ViewFilter}) must
 * equal, as a multiset, a fresh run of its pipeline scoped to its partition as the engine scopes it
 * ({@link ScopeGuard}, with, per target, the current generation of the view that holds it, from the
 * statuses: the one whose generation was written there). Rows are equal as {@link RowHasher}
 * compares content: field by field in order, with types.
 *
 * <p>It reads only what the engine stored and what any reader can read; it holds no state between
 * checks, so a test may call it as often as it likes, while engines run or after they stopped.
 * Views that are errored, in a cycle, never run, or whose pipeline cannot run are listed as not
 * checked, with why: a test decides which of those it expects.
 *
 * <p>Rows are compared without the engine's fields: the stored {@code _id} of the default target id
 * strategy ({@code {partition, generation, id}}) gives the row's own id {@code _id.id}; the
 * partition field, {@code _viewGen} and {@code _viewHash} are dropped, from the stored rows and from
 * the fresh run alike, as the engine drops them from a result.
 */
public final class ConvergenceChecker {

    private final MongoDatabase database;

    private final MaterializerOptions options;

    private final ViewDefinitionParser parser;

    private final ScopeGuard guard;

    private final RowHasher hasher = new RowHasher();

    private final Set<String> engineFields;

    /**
     * Creates a checker of one database.
     * @param database the database of the views, sources and targets
     * @param options the engine's options (collections, fields, target id strategy)
     * @throws IllegalArgumentException when the engine uses another target id strategy than the
     *     default, whose stored ids the checker cannot read back
     */
    public ConvergenceChecker(MongoDatabase database, MaterializerOptions options) {
        if (options.targetId() != PartitionTargetId.INSTANCE) {
            throw new IllegalArgumentException("the checker reads row ids of the default target id strategy only, not "
                    + options.targetId());
        }
        this.database = database;
        this.options = options;
        this.parser = new ViewDefinitionParser(options.partitionField(), options.viewsCollection());
        this.guard = new ScopeGuard(options.partitionField());
        this.engineFields = Set.of(options.partitionField(), ViewFilter.GENERATION_FIELD, ViewFilter.HASH_FIELD,
                ViewFilter.FROM_FIELD, ViewFilter.TO_FIELD, ViewFilter.ROW_FIELD);
    }

    /**
     * Compares every view of the views collection with a fresh run of its pipeline.
     * @return what differs, what is equal, and what was not compared
     * @throws MongoException when the database cannot be read
     */
    public ConvergenceReport check() {
        List<BsonDocument> documents = views().find().into(new ArrayList<>());
        List<ConvergenceReport.Divergence> divergences = new ArrayList<>();
        List<String> converged = new ArrayList<>();
        List<ConvergenceReport.Unchecked> unchecked = new ArrayList<>();
        for (BsonDocument document : documents) {
            String name = nameOf(document);
            ViewStatus status = statusOf(document);
            if (status.state() != ViewState.OK) {
                unchecked.add(new ConvergenceReport.Unchecked(name, whyNotOk(status)));
                continue;
            }
            ViewDefinition view;
            try {
                view = parser.parse(document);
            }
            catch (InvalidViewException ex) {
                unchecked.add(new ConvergenceReport.Unchecked(name, "ok, but the definition is invalid: " + ex.getMessage()));
                continue;
            }
            RowMultiset fresh;
            try {
                fresh = freshRun(view, currentGenerations(documents, view.partition()));
            }
            catch (ScopeViolationException ex) {
                unchecked.add(new ConvergenceReport.Unchecked(name, "ok, but the scope guard refuses it: " + ex.getMessage()));
                continue;
            }
            catch (MongoException ex) {
                unchecked.add(new ConvergenceReport.Unchecked(name, "ok, but its pipeline fails: " + ex.getMessage()));
                continue;
            }
            // As a reader reads it: a generation written in another target or partition names nothing here
            RowMultiset stored = storedRows(view, GenerationPlace.fits(GenerationPlace.of(statusDocument(document)),
                    view.targetCollection(), view.partition()) ? status.generation() : null);
            List<BsonDocument> missing = fresh.minus(stored);
            List<BsonDocument> extra = stored.minus(fresh);
            if (missing.isEmpty() && extra.isEmpty()) {
                converged.add(name);
            }
            else {
                divergences.add(new ConvergenceReport.Divergence(name, missing, extra));
            }
        }
        return new ConvergenceReport(divergences, converged, unchecked);
    }

    /**
     * The name of a view in reports: {@code partition/id}, with the BSON type after an id that is
     * not a string, so that ids reading alike as text ({@code "1"} and {@code 1}) stay apart.
     * @param document a view document
     * @return the name
     */
    public String nameOf(BsonDocument document) {
        BsonValue partition = document.get(options.partitionField());
        String partitionText = partition != null && partition.isString() ? partition.asString().getValue()
                : "(no partition)";
        BsonValue id = document.get("_id");
        if (id == null) {
            return partitionText + "/(no _id)";
        }
        String idText = ViewKey.idText(id);
        return partitionText + "/" + (id.isString() ? idText : idText + " (" + id.getBsonType().name().toLowerCase() + ")");
    }

    private MongoCollection<BsonDocument> views() {
        return database.getCollection(options.viewsCollection(), BsonDocument.class);
    }

    private ViewStatus statusOf(BsonDocument document) {
        BsonValue status = document.get(options.statusField());
        return ViewStatus.fromBson(status != null && status.isDocument() ? status.asDocument() : null);
    }

    private static String whyNotOk(ViewStatus status) {
        if (status.state() == null) {
            return "no state in its status (never run)";
        }
        return status.state().value() + (status.lastError() == null ? "" : ": " + status.lastError());
    }

    /**
     * As the architecture says the guard finds them: per target a view document of the partition
     * names, the generation of the document that holds it — the one whose status's generation was
     * written in that target and partition, else the only one with a generation and no recorded
     * place — or none when no document or several qualify.
     */
    private Map<String, @Nullable Generation> currentGenerations(List<BsonDocument> documents, String partition) {
        Map<String, List<BsonDocument>> placed = new HashMap<>();
        Map<String, List<BsonDocument>> unplaced = new HashMap<>();
        for (BsonDocument document : documents) {
            BsonValue owner = document.get(options.partitionField());
            BsonValue target = document.get("targetCollection");
            if (owner != null && owner.equals(new BsonString(partition)) && target != null && target.isString()) {
                String name = target.asString().getValue();
                placed.computeIfAbsent(name, key -> new ArrayList<>());
                unplaced.computeIfAbsent(name, key -> new ArrayList<>());
                if (statusOf(document).generation() == null) {
                    continue;
                }
                GenerationPlace place = GenerationPlace.of(statusDocument(document));
                if (place == null) {
                    unplaced.get(name).add(document);
                }
                else if (place.equals(new GenerationPlace(name, partition))) {
                    placed.get(name).add(document);
                }
            }
        }
        Map<String, @Nullable Generation> generations = new HashMap<>();
        placed.forEach((target, holders) -> {
            List<BsonDocument> candidates = holders.isEmpty() ? unplaced.get(target) : holders;
            generations.put(target, candidates.size() == 1 ? statusOf(candidates.get(0)).generation() : null);
        });
        return generations;
    }

    private @Nullable BsonDocument statusDocument(BsonDocument document) {
        BsonValue status = document.get(options.statusField());
        return status != null && status.isDocument() ? status.asDocument() : null;
    }

    private RowMultiset freshRun(ViewDefinition view, Map<String, @Nullable Generation> generations)
            throws ScopeViolationException {
        List<BsonDocument> pipeline = guard.scope(view.pipeline(), view.partition(), view.collections(),
                view.primarySource(), generations);
        RowMultiset rows = new RowMultiset(hasher);
        for (BsonDocument row : database.getCollection(view.primarySource(), BsonDocument.class).aggregate(pipeline)) {
            BsonValue id = row.get("_id");
            // A row without _id errors the view; an ok view with one is a divergence the id shows.
            rows.add(id == null ? new BsonString("(no _id)") : id, contentOf(row));
        }
        return rows;
    }

    private RowMultiset storedRows(ViewDefinition view, @Nullable Generation generation) {
        RowMultiset rows = new RowMultiset(hasher);
        // Without a generation the filter matches nothing, as it does for a reader.
        BsonDocument filter = ViewFilter.of(options.partitionField(), view.partition(), generation);
        for (BsonDocument stored : database.getCollection(view.targetCollection(), BsonDocument.class).find(filter)) {
            BsonValue storedId = stored.get("_id");
            BsonValue rowId = stored.containsKey(ViewFilter.ROW_FIELD) ? stored.get(ViewFilter.ROW_FIELD)
                    : storedId != null && storedId.isDocument() && storedId.asDocument().containsKey("id")
                    ? storedId.asDocument().get("id")
                    : new BsonString("(stored _id without id: " + storedId + ")");
            rows.add(rowId, contentOf(stored));
        }
        return rows;
    }

    /** Everything but {@code _id} and the fields the engine writes, as the engine takes a row's content. */
    private BsonDocument contentOf(BsonDocument row) {
        BsonDocument content = new BsonDocument();
        row.forEach((name, value) -> {
            if (!name.equals("_id") && !engineFields.contains(name)) {
                content.append(name, value);
            }
        });
        return content;
    }
}
