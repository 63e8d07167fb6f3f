package dev.materializer.core.write;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * A database whose aggregations run MongoDB 5.0's {@code $lookup} with both
 * {@code localField}/{@code foreignField} and a {@code pipeline} — the form the scope guard gives every
 * such join, its pipeline the scope's {@code $match} — on a server without it (mongo-java-server): as the
 * plain {@code localField}/{@code foreignField} join, then a {@code $filter} of the joined documents by
 * the same scope. So a view with a join runs through the engine's runner on the in-process server.
 *
 * <p>Only the scope's {@code $match} is emulated: equalities, and {@code $exists: false} of the fields
 * of row versions, which (as a null would) no source document has. Anything else in the pipeline of
 * such a join fails loudly rather than run otherwise than MongoDB would.
 */
final class LookupEmulation {

    private static final String ABSENT = "\u0000absent";

    private LookupEmulation() {
    }

    /**
     * The database, its collections' {@code aggregate(List)} rewritten.
     * @param database the database of a server without the form
     * @return a database for a {@link ViewRunner}
     */
    static MongoDatabase of(MongoDatabase database) {
        return proxy(MongoDatabase.class, database, (method, args, result) -> {
            if (method.getName().equals("getCollection") && result instanceof MongoCollection<?> collection) {
                return collection(collection);
            }
            return result;
        });
    }

    private static MongoCollection<?> collection(MongoCollection<?> collection) {
        return proxy(MongoCollection.class, collection, null, (method, args) -> {
            if (method.getName().equals("aggregate") && args.length == 1 && args[0] instanceof List<?> pipeline) {
                return new Object[] { rewrite(pipeline, collection.getCodecRegistry()) };
            }
            return args;
        });
    }

    /** The stages, each {@code $lookup} of the form in two stages the server has. */
    static List<BsonDocument> rewrite(List<?> pipeline, CodecRegistry codecs) {
        List<BsonDocument> rewritten = new ArrayList<>();
        for (Object stage : pipeline) {
            BsonDocument document = ((Bson) stage).toBsonDocument(BsonDocument.class, codecs);
            BsonDocument lookup = document.containsKey("$lookup") ? document.getDocument("$lookup") : null;
            if (lookup == null || !lookup.containsKey("localField") || !lookup.containsKey("pipeline")) {
                rewritten.add(document);
                continue;
            }
            BsonArray stages = lookup.getArray("pipeline");
            if (stages.size() != 1 || !stages.get(0).asDocument().containsKey("$match")) {
                throw new IllegalStateException("no emulation of a $lookup whose pipeline is not one $match: " + lookup);
            }
            String as = lookup.getString("as").getValue();
            BsonDocument plain = lookup.clone();
            plain.remove("pipeline");
            rewritten.add(new BsonDocument("$lookup", plain));
            rewritten.add(new BsonDocument("$addFields", new BsonDocument(as, new BsonDocument("$filter",
                    new BsonDocument("input", new BsonString("$" + as)).append("as", new BsonString("joined"))
                        .append("cond", condition(stages.get(0).asDocument().getDocument("$match")))))));
        }
        return rewritten;
    }

    /** A scope {@code $match} as an expression on {@code $$joined}. */
    private static BsonDocument condition(BsonDocument match) {
        BsonArray all = new BsonArray();
        for (Map.Entry<String, BsonValue> field : match.entrySet()) {
            String path = "$$joined." + field.getKey();
            BsonValue value = field.getValue();
            if (field.getKey().startsWith("$")) {
                throw new IllegalStateException("no emulation of the operator " + field.getKey() + " in " + match);
            }
            if (value.isDocument() && value.asDocument().equals(BsonDocument.parse("{$exists: false}"))) {
                all.add(new BsonDocument("$eq", new BsonArray(List.of(
                        new BsonDocument("$ifNull", new BsonArray(List.of(new BsonString(path), new BsonString(ABSENT)))),
                        new BsonString(ABSENT)))));
            } else if (value.isDocument() && value.asDocument().keySet().stream().anyMatch(key -> key.startsWith("$"))) {
                throw new IllegalStateException("no emulation of " + value + " in " + match);
            } else {
                all.add(new BsonDocument("$eq", new BsonArray(List.of(new BsonString(path), value))));
            }
        }
        return new BsonDocument("$and", all);
    }

    // ---- proxies

    @FunctionalInterface
    private interface ResultMapper {
        Object map(Method method, Object[] args, Object result);
    }

    @FunctionalInterface
    private interface ArgsMapper {
        Object[] map(Method method, Object[] args);
    }

    private static <T> T proxy(Class<T> type, Object target, ResultMapper results) {
        return proxy(type, target, results, (method, args) -> args);
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Object target, ResultMapper results, ArgsMapper arguments) {
        InvocationHandler handler = (self, method, args) -> {
            Object[] given = args == null ? new Object[0] : args;
            try {
                Object result = method.invoke(target, arguments.map(method, given));
                return results == null ? result : results.map(method, given, result);
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        };
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, handler);
    }
}
