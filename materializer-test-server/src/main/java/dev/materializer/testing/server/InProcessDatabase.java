package dev.materializer.testing.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.Oplog;
import org.jspecify.annotations.Nullable;

/**
 * A database of the {@link InProcessBackend}: its collections are {@link InProcessCollection}s, and
 * it answers the commands the plain backend lacks or answers differently from MongoDB:
 * {@code changeStreamPreAndPostImages} in {@code create}, {@code collMod} and
 * {@code listCollections}; {@code findAndModify} that writes change events; aggregation forms
 * rewritten by {@link PipelineRewrite}; an aggregate's input, and its {@code $lookup}s' reads,
 * narrowed by their leading {@code $match} ({@link AggregateInput}). A non-unique index that
 * {@link SecondaryIndex#honours} is kept and used (the plain database lists it and ignores it).
 *
 * <p>Threads: as the plain database; the settings are safe for concurrent use. An index is created
 * under the database's lock (as in the plain one), which guards {@link #describing}.
 */
final class InProcessDatabase extends MemoryDatabase {

    private static final String PRE_AND_POST_IMAGES = "changeStreamPreAndPostImages";

    /** Opens a collection of a database: the backend's {@link InProcessBackend#openCollection}. */
    interface CollectionOpener {

        InProcessCollection open(MongoDatabase database, String collectionName, CollectionOptions options,
                CursorRegistry cursorRegistry);
    }

    /** Set after the super constructor, which already opens the system collections: null while it runs. */
    private final CollectionSettings settings;

    /** Null while the super constructor runs, as {@link #settings}. */
    private final CollectionOpener opener;

    /** The description of the index {@link #addIndex} is creating (the innermost); null otherwise. Guarded by this. */
    private @Nullable Document describing;

    InProcessDatabase(String databaseName, CursorRegistry cursorRegistry, CollectionSettings settings,
            CollectionOpener opener) {
        super(databaseName, cursorRegistry);
        this.settings = settings;
        this.opener = opener;
    }

    @Override
    protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        if (opener == null) {
            // The super constructor opening system.namespaces, before the fields are set.
            return new InProcessCollection(this, collectionName, options, cursorRegistry);
        }
        return opener.open(this, collectionName, options, cursorRegistry);
    }

    @Override
    protected synchronized void addIndex(Document indexDescription) {
        // Nested: the first index of a collection that does not exist yet creates it, and its _id index
        Document outer = describing;
        describing = indexDescription;
        try {
            super.addIndex(indexDescription);
        }
        finally {
            describing = outer;
        }
    }

    /** A {@link SecondaryIndex} when the index being created is one it honours; else the plain backend's (ignored). */
    @Override
    protected Index<Integer> openOrCreateSecondaryIndex(String collectionName, String indexName, List<IndexKey> keys,
            boolean sparse) {
        Document description = describing;
        if (description != null && SecondaryIndex.honours(description)) {
            return new SecondaryIndex(indexName, keys);
        }
        return super.openOrCreateSecondaryIndex(collectionName, indexName, keys, sparse);
    }

    /** The commands this database answers otherwise than the plain one. */
    static final Set<String> COMMANDS = Set.of("create", "collmod", "listcollections", "findandmodify", "aggregate");

    /**
     * Answers one of {@link #COMMANDS}.
     *
     * @param command the command's name
     * @param query the command document, which may be changed before the plain database answers it
     * @param oplog the backend's oplog
     * @param plain the plain database's answer to the (changed) command
     */
    Document handle(String command, Document query, Oplog oplog, Supplier<Document> plain) {
        switch (command.toLowerCase(Locale.ROOT)) {
            case "create" -> {
                if (!query.containsKey(PRE_AND_POST_IMAGES)) {
                    return plain.get();
                }
                if (settings.preImagesRefused()) {
                    throw new MongoServerError(40415, "Location40415",
                            "BSON field 'create." + PRE_AND_POST_IMAGES + "' is an unknown field.");
                }
                boolean enabled = enabled(query.remove(PRE_AND_POST_IMAGES));
                Document response = plain.get();
                settings.preAndPostImages(namespace(query.get(command)), enabled);
                return response;
            }
            case "collmod" -> {
                return collMod(query);
            }
            case "listcollections" -> {
                return withOptions(plain.get(), query.get("filter") instanceof Document filter ? filter : new Document());
            }
            case "findandmodify" -> {
                InProcessCollection collection = (InProcessCollection) resolveOrCreateCollection(
                        String.valueOf(query.get(command)));
                return collection.findAndModify(query, oplog);
            }
            case "aggregate" -> {
                if (query.get("pipeline") instanceof List<?> pipeline) {
                    List<Object> rewritten = PipelineRewrite.rewrite(pipeline);
                    query.put("pipeline", rewritten);
                    if (query.get(command) instanceof String collection) {
                        return AggregateInput.answering(getDatabaseName(), collection, rewritten, plain);
                    }
                }
                return plain.get();
            }
            default -> {
                return plain.get();
            }
        }
    }

    private Document collMod(Document query) {
        String name = String.valueOf(query.get("collMod"));
        MongoCollection<?> collection = resolveCollection(name, false);
        if (collection == null) {
            throw new MongoServerError(26, "NamespaceNotFound", "ns does not exist: " + namespace(name));
        }
        for (String option : query.keySet()) {
            if (!option.equals("collMod") && !option.equals(PRE_AND_POST_IMAGES) && !option.startsWith("$")
                    && !option.equals("lsid") && !option.equals("writeConcern")) {
                throw new MongoServerError(72, "InvalidOptions",
                        "the in-process test server's collMod changes changeStreamPreAndPostImages only, not " + option);
            }
        }
        if (query.containsKey(PRE_AND_POST_IMAGES) && settings.preImagesRefused()) {
            throw new MongoServerError(72, "InvalidOptions", "unknown option to collMod: " + PRE_AND_POST_IMAGES);
        }
        if (query.containsKey(PRE_AND_POST_IMAGES)) {
            settings.preAndPostImages(namespace(name), enabled(query.get(PRE_AND_POST_IMAGES)));
        }
        Document response = new Document();
        Utils.markOkay(response);
        return response;
    }

    private static boolean enabled(Object option) {
        if (option instanceof Document document && document.get("enabled") instanceof Boolean enabled
                && document.size() == 1) {
            return enabled;
        }
        throw new MongoServerError(9, "FailedToParse",
                PRE_AND_POST_IMAGES + " must be {enabled: <boolean>}, not " + option);
    }

    /** The listCollections answer with each collection's pre- and post-image option, as MongoDB lists it, filtered. */
    private Document withOptions(Document response, Document filter) {
        if (response.get("cursor") instanceof Document cursor && cursor.get("firstBatch") instanceof List<?> batch) {
            List<Object> kept = new ArrayList<>();
            for (Object entry : batch) {
                if (entry instanceof Document collection && collection.get("options") instanceof Document options
                        && settings.preAndPostImages(namespace(collection.get("name")))) {
                    options.put(PRE_AND_POST_IMAGES, new Document("enabled", true));
                }
                // The plain backend ignores the filter.
                if (entry instanceof Document collection && new DefaultQueryMatcher().matches(collection, filter)) {
                    kept.add(entry);
                }
            }
            cursor.put("firstBatch", kept);
        }
        return response;
    }

    private String namespace(Object collectionName) {
        return getDatabaseName() + "." + collectionName;
    }
}
