package dev.materializer.spring.data;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.mongodb.client.ClientSession;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoCollection;
import com.mongodb.MongoClientSettings;
import dev.materializer.core.Materializer;
import dev.materializer.core.ViewDelta;
import dev.materializer.core.ViewRow;
import dev.materializer.core.ViewRowsSnapshot;
import dev.materializer.core.ViewSubscriber;
import dev.materializer.core.ViewSubscription;
import dev.materializer.core.ViewFilter;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonTimestamp;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import org.springframework.data.mapping.context.MappingContext;
import org.springframework.data.mongodb.core.MongoOperations;
import org.springframework.data.mongodb.core.convert.MongoConverter;
import org.springframework.data.mongodb.core.convert.QueryMapper;
import org.springframework.data.mongodb.core.mapping.MongoPersistentEntity;
import org.springframework.data.mongodb.core.mapping.MongoPersistentProperty;
import org.springframework.data.mongodb.core.query.Query;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;

/**
 * Reads materialized views into typed objects, the way every reader of a view should: first the
 * view document, then its target through {@link ViewFilter} (the tenant and the current generation,
 * so a read sees one whole generation), narrowed by the caller's {@link Query} (criteria, sort, skip,
 * limit).
 *
 * <p><b>The row's key is the {@code _id}.</b> Each row is handed to {@code MongoTemplate}'s converter
 * as the pipeline produced it: its own key (the stored {@code _viewRow}) under {@code _id} and its
 * other fields, without the engine's fields ({@code _id}, partition, {@code _viewRow},
 * {@code _viewFrom}, {@code _viewTo}, {@code _viewHash}). So the key lands in the type's id property
 * — a property named {@code id}, or the one annotated {@code @Id} — just as Spring Data maps
 * {@code _id} for any collection; a record {@code Revenue(String id, double revenue)} reads
 * {@code id} as the row's key. In the query, criteria and sort on the id property (or {@code "_id"},
 * or {@code "_id.x"}) are on the row's key.
 *
 * <p>A view names the tenant's view document: its id ({@code "acme:revenue"}) or an id pattern
 * ({@code "{tenant}:revenue"}). Field projections of the query are not supported. Thread-safe.
 */
public final class MaterializedViews {

    private static final Codec<Document> DOCUMENTS = MongoClientSettings.getDefaultCodecRegistry().get(Document.class);

    private final MongoOperations mongo;

    private final ViewNaming naming;

    private final QueryMapper queryMapper;

    private final Set<String> engineFields;

    private final Supplier<@Nullable Materializer> engine;

    /**
     * A reader without an engine: {@link #awaitFresh} is refused.
     * @param mongo where the views and their targets are
     * @param naming the views collection and the fields shared with the engine
     */
    public MaterializedViews(MongoOperations mongo, ViewNaming naming) {
        this(mongo, naming, () -> null);
    }

    /**
     * @param mongo where the views and their targets are
     * @param naming the views collection and the fields shared with the engine
     * @param engine the application's engine, asked at each {@link #awaitFresh}; it may give null
     *     where no engine runs
     */
    public MaterializedViews(MongoOperations mongo, ViewNaming naming, Supplier<@Nullable Materializer> engine) {
        this.engine = engine;
        this.mongo = mongo;
        this.naming = naming;
        this.queryMapper = new QueryMapper(mongo.getConverter());
        this.engineFields = Set.of("_id", naming.partitionField(), ViewFilter.ROW_FIELD, ViewFilter.FROM_FIELD,
                ViewFilter.TO_FIELD, ViewFilter.HASH_FIELD, ViewFilter.GENERATION_FIELD);
    }

    /**
     * The rows of a view in its current generation.
     * @param <T> the type of a row
     * @param tenant the tenant
     * @param view the view's id, or an id pattern with {@value ViewTemplate#TENANT}
     * @param query criteria, sort, skip and limit, on the rows as {@code type} maps them
     * @param type the type of a row ({@code Document} or {@code Map} for the documents as they are)
     * @return the rows; none before the view's first run
     * @throws MaterializedViewNotFoundException when the tenant has no such view
     */
    public <T> List<T> find(String tenant, String view, Query query, Class<T> type) {
        return read(tenant, view, query, type).rows();
    }

    /**
     * The rows of a template's view for a tenant in its current generation.
     * @param <T> the type of a row
     * @param tenant the tenant
     * @param template the template
     * @param query criteria, sort, skip and limit
     * @param type the type of a row
     * @return the rows
     * @throws MaterializedViewNotFoundException when the tenant does not have the template's view
     */
    public <T> List<T> find(String tenant, ViewTemplate template, Query query, Class<T> type) {
        return find(tenant, template.idFor(tenant), query, type);
    }

    /**
     * One row by its key.
     * @param <T> the type of a row
     * @param tenant the tenant
     * @param view the view's id or id pattern
     * @param key the row's key (the {@code _id} the pipeline gave it)
     * @param type the type of a row
     * @return the row in the current generation, if there is one
     * @throws MaterializedViewNotFoundException when the tenant has no such view
     */
    public <T> Optional<T> findByKey(String tenant, String view, Object key, Class<T> type) {
        Document document = viewDocument(tenant, view);
        Bson filter = and(ViewFilter.of(document, this.naming.partitionField(), this.naming.statusField()),
                eq(ViewFilter.ROW_FIELD, key));
        Document row = target(document).find(filter).first();
        return Optional.ofNullable(row == null ? null : map(row, type));
    }

    /**
     * How many rows of the current generation match.
     * @param tenant the tenant
     * @param view the view's id or id pattern
     * @param query criteria on the rows (as {@code type} maps them); sort, skip and limit ignored
     * @param type the type whose mapping the criteria use
     * @return the count
     * @throws MaterializedViewNotFoundException when the tenant has no such view
     */
    public long count(String tenant, String view, Query query, Class<?> type) {
        Document document = viewDocument(tenant, view);
        return target(document).countDocuments(filter(document, query, entity(type)));
    }

    /**
     * The rows of a view with the view document they were read through (its status: state, generation).
     * @param <T> the type of a row
     * @param tenant the tenant
     * @param view the view's id or id pattern
     * @param query criteria, sort, skip and limit
     * @param type the type of a row
     * @return the view document and the rows
     * @throws MaterializedViewNotFoundException when the tenant has no such view
     */
    public <T> MaterializedViewRows<T> read(String tenant, String view, Query query, Class<T> type) {
        if (!query.getFieldsObject().isEmpty()) {
            throw new IllegalArgumentException("a read of a materialized view takes no field projection, was "
                    + query.getFieldsObject().toJson());
        }
        Document document = viewDocument(tenant, view);
        MongoPersistentEntity<?> entity = entity(type);
        Document sort = rowKeyed(this.queryMapper.getMappedSort(query.getSortObject(), entity));
        sort.putIfAbsent(ViewFilter.ROW_FIELD, 1);
        FindIterable<Document> found = target(document).find(filter(document, query, entity)).sort(sort);
        if (query.getSkip() > 0) {
            found = found.skip(Math.toIntExact(query.getSkip()));
        }
        if (query.isLimited()) {
            found = found.limit(query.getLimit());
        }
        List<T> rows = new ArrayList<>();
        for (Document row : found) {
            rows.add(map(row, type));
        }
        Document status = document.get(this.naming.statusField()) instanceof Document given ? given : new Document();
        return new MaterializedViewRows<>(document, status, List.copyOf(rows));
    }

    /**
     * Waits until a view reflects every write to the collections it depends on that was
     * acknowledged before this call: read-your-writes, for a read right after the caller's own
     * write. Answered by the instance that owns the tenant; see
     * {@link Materializer#awaitFresh(String, String, Duration)}.
     * @param tenant the tenant
     * @param view the view's id, or an id pattern with {@value ViewTemplate#TENANT}
     * @param timeout the longest wait
     * @return true when the view is fresh; false at the timeout (or while the view is errored)
     * @throws InterruptedException when interrupted while waiting
     * @throws MaterializedViewNotFoundException at the timeout, when the engine still knows no such view
     * @throws IllegalStateException when no engine runs in this application
     */
    public boolean awaitFresh(String tenant, String view, Duration timeout) throws InterruptedException {
        String id = view.replace(ViewTemplate.TENANT, tenant);
        try {
            return engine().awaitFresh(tenant, id, timeout);
        }
        catch (NoSuchElementException ex) {
            throw MaterializedViewNotFoundException.unknownToTheEngine(tenant, id, ex);
        }
    }

    /**
     * Waits until a view reflects a write the caller made in a session to one of the collections
     * it depends on: on any instance, also one that does not own the tenant, which reads the
     * times the owner's passes record in the view's status. See
     * {@link Materializer#awaitFresh(String, String, String, BsonTimestamp, Duration)}.
     * @param tenant the tenant
     * @param view the view's id, or an id pattern with {@value ViewTemplate#TENANT}
     * @param collection the collection written
     * @param session the session of the write (with {@code MongoTemplate.withSession(session)}), whose
     *     operation time is the write's; a session without one waits for everything acknowledged
     *     before this call. (The in-process test server has no sessions: there, use
     *     {@link #awaitFresh(String, String, Duration)}.)
     * @param timeout the longest wait
     * @return true when the view reflects the write; false at the timeout
     * @throws InterruptedException when interrupted while waiting
     * @throws MaterializedViewNotFoundException at the timeout, when the engine still knows no such view
     * @throws IllegalStateException when no engine runs in this application
     */
    public boolean awaitFresh(String tenant, String view, String collection, ClientSession session, Duration timeout)
            throws InterruptedException {
        String id = view.replace(ViewTemplate.TENANT, tenant);
        try {
            return engine().awaitFresh(tenant, id, collection, session.getOperationTime(), timeout);
        }
        catch (NoSuchElementException ex) {
            throw MaterializedViewNotFoundException.unknownToTheEngine(tenant, id, ex);
        }
    }

    /**
     * Follows a view's changes from now, typed: first a {@link ViewChange.Kind#RESET} and the rows
     * as they are, then the rows each flip added, changed or removed, in generation order, on a
     * thread of the subscription (see {@link Materializer#subscribe(String, String, ViewSubscriber)}).
     * Works on every instance. The subscription ends when the engine closes.
     * @param <T> the type of a row
     * @param tenant the tenant
     * @param view the view's id, or an id pattern with {@value ViewTemplate#TENANT}
     * @param type the type of a row ({@code Document} for the rows as they are)
     * @param listener what receives each change; an exception it throws is logged, and the changes go on
     * @return the subscription: close it to stop
     * @throws IllegalStateException when no engine runs in this application
     */
    public <T> ViewSubscription changes(String tenant, String view, Class<T> type, Consumer<ViewChange<T>> listener) {
        return engine().subscribe(tenant, view.replace(ViewTemplate.TENANT, tenant), typed(type, listener));
    }

    /**
     * Follows a view's changes after a generation the caller holds (a {@link ViewChange#generation()}
     * it was handed): the changes since, while they are kept ({@code generation-grace}); otherwise a
     * {@link ViewChange.Kind#RESET} with the rows, reason
     * {@link dev.materializer.core.SnapshotReason#NOT_RESUMABLE}.
     * @param <T> the type of a row
     * @param tenant the tenant
     * @param view the view's id, or an id pattern with {@value ViewTemplate#TENANT}
     * @param type the type of a row
     * @param fromGeneration the generation the caller holds
     * @param listener what receives each change
     * @return the subscription: close it to stop
     * @throws IllegalStateException when no engine runs in this application
     */
    public <T> ViewSubscription changes(String tenant, String view, Class<T> type, long fromGeneration,
            Consumer<ViewChange<T>> listener) {
        return engine().subscribe(tenant, view.replace(ViewTemplate.TENANT, tenant), fromGeneration,
                typed(type, listener));
    }

    /** A core subscriber that hands each row of a snapshot or delta to the listener, mapped to the type. */
    private <T> ViewSubscriber typed(Class<T> type, Consumer<ViewChange<T>> listener) {
        return new ViewSubscriber() {
            @Override
            public void onSnapshot(ViewRowsSnapshot snapshot) {
                listener.accept(new ViewChange<>(ViewChange.Kind.RESET, snapshot.generation(), null, null, null,
                        snapshot.reason()));
                snapshot.rows().forEach(row -> listener.accept(new ViewChange<>(ViewChange.Kind.ADDED,
                        snapshot.generation(), key(row), null, map(decoded(row), type), null)));
            }

            @Override
            public void onDelta(ViewDelta delta) {
                long generation = delta.toGeneration();
                delta.removed().forEach(row -> listener.accept(new ViewChange<>(ViewChange.Kind.REMOVED, generation,
                        key(row), map(decoded(row), type), null, null)));
                delta.changed().forEach(change -> listener.accept(new ViewChange<>(ViewChange.Kind.CHANGED,
                        generation, key(change.after()), map(decoded(change.before()), type),
                        map(decoded(change.after()), type), null)));
                delta.added().forEach(row -> listener.accept(new ViewChange<>(ViewChange.Kind.ADDED, generation,
                        key(row), null, map(decoded(row), type), null)));
            }
        };
    }

    private static Document decoded(ViewRow row) {
        return DOCUMENTS.decode(new BsonDocumentReader(row.document()), DecoderContext.builder().build());
    }

    private static @Nullable Object key(ViewRow row) {
        return DOCUMENTS.decode(new BsonDocumentReader(new BsonDocument("k", row.id())),
                DecoderContext.builder().build()).get("k");
    }

    private Materializer engine() {
        Materializer materializer = this.engine.get();
        if (materializer == null) {
            throw new IllegalStateException("no materializer runs in this application: waiting for a fresh view "
                    + "or following its changes needs the engine (materializer.enabled=true and a MongoClient bean)");
        }
        return materializer;
    }

    /**
     * The tenant's view document, with its status.
     * @param tenant the tenant
     * @param view the view's id or id pattern
     * @return the document
     * @throws MaterializedViewNotFoundException when the tenant has no such view
     */
    public Document viewDocument(String tenant, String view) {
        String id = view.replace(ViewTemplate.TENANT, tenant);
        Document document = this.mongo.getCollection(this.naming.viewsCollection())
            .find(and(eq("_id", id), eq(this.naming.partitionField(), tenant)))
            .first();
        if (document == null) {
            throw new MaterializedViewNotFoundException(tenant, id, this.naming.viewsCollection());
        }
        return document;
    }

    private Bson filter(Document view, Query query, @Nullable MongoPersistentEntity<?> entity) {
        Bson current = ViewFilter.of(view, this.naming.partitionField(), this.naming.statusField());
        Document criteria = rowKeyed(this.queryMapper.getMappedObject(query.getQueryObject(), entity));
        return criteria.isEmpty() ? current : and(current, criteria);
    }

    private MongoCollection<Document> target(Document view) {
        if (!(view.get("targetCollection") instanceof String target) || target.isEmpty()) {
            throw new IllegalStateException("the view document " + view.get("_id") + " has no targetCollection");
        }
        return this.mongo.getCollection(target);
    }

    private @Nullable MongoPersistentEntity<?> entity(Class<?> type) {
        if (isDocument(type)) {
            return null;
        }
        MappingContext<? extends MongoPersistentEntity<?>, MongoPersistentProperty> context = this.mongo.getConverter()
            .getMappingContext();
        return context.getPersistentEntity(type);
    }

    private <T> T map(Document stored, Class<T> type) {
        // The row as the pipeline produced it: its own key in _id, then its content.
        Object key = stored.containsKey(ViewFilter.ROW_FIELD) ? stored.get(ViewFilter.ROW_FIELD) : stored.get("_id");
        Document row = new Document("_id", key);
        stored.forEach((field, value) -> {
            if (!this.engineFields.contains(field)) {
                row.append(field, value);
            }
        });
        if (isDocument(type)) {
            return type.cast(row);
        }
        MongoConverter converter = this.mongo.getConverter();
        return converter.read(type, row);
    }

    private static boolean isDocument(Class<?> type) {
        return type.isAssignableFrom(Document.class);
    }

    /** The mapped criteria or sort with the row's {@code _id} moved to where the target keeps it. */
    private static Document rowKeyed(Document mapped) {
        Document keyed = new Document();
        mapped.forEach((field, value) -> keyed.append(rowKeyed(field), logical(field) ? rowKeyedAll(value) : value));
        return keyed;
    }

    private static String rowKeyed(String field) {
        if (field.equals("_id")) {
            return ViewFilter.ROW_FIELD;
        }
        return field.startsWith("_id.") ? ViewFilter.ROW_FIELD + field.substring(3) : field;
    }

    private static boolean logical(String field) {
        return field.equals("$and") || field.equals("$or") || field.equals("$nor");
    }

    private static Object rowKeyedAll(Object clauses) {
        if (!(clauses instanceof List<?> list)) {
            return clauses;
        }
        List<Object> keyed = new ArrayList<>(list.size());
        for (Object clause : list) {
            keyed.add(clause instanceof Document document ? rowKeyed(document)
                    : clause instanceof Map<?, ?> map ? rowKeyed(new Document(castMap(map))) : clause);
        }
        return keyed;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMap(Map<?, ?> map) {
        return (Map<String, Object>) map;
    }
}
