package dev.materializer.benchmarks.cost;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import dev.materializer.benchmarks.scale.Meter;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * What the engine's client sends to and gets from each collection, counted from the commands and
 * their replies (a {@link CommandListener} on the engine's client):
 *
 * <ul>
 *   <li>rows written: the {@code n} of an {@code insert}'s reply; the {@code nModified} and the
 *       {@code upserted} entries of an {@code update}'s reply (a statement that matched a document
 *       and left it as it was is not a write); the {@code n} of a {@code delete}'s reply; a
 *       {@code findAndModify} that removed, upserted or updated a document;</li>
 *   <li>write statements: the documents of {@code insert}, the statements of {@code update} and
 *       {@code delete} — what was sent, whatever it changed;</li>
 *   <li>documents returned: the documents of the first batch of a {@code find} or {@code aggregate}
 *       and of the batches of the {@code getMore}s of its cursor, by the command that opened it;</li>
 *   <li>change events: the same for an {@code aggregate} that opens a change stream, and the
 *       {@code getMore}s of its cursor (each a poll of the stream, whether it brought events or not).</li>
 * </ul>
 *
 * The listener's own allocations on the engine's threads, and on the thread that measures (timers of
 * the manual clock run there), are counted too, so the report can take them off the engine's.
 */
final class CollectionTraffic implements CommandListener {

    private static final String ENGINE_THREADS = "materializer-";

    private static final String CHANGE_STREAM = "changeStream";

    /** What the name of a command of a change-stream cursor ends with, in {@link Traffic#commands()}. */
    static final String CHANGE_STREAM_SUFFIX = " (change stream)";

    private final Map<Integer, Sent> pending = new ConcurrentHashMap<>();

    private final Map<Long, Cursor> cursors = new ConcurrentHashMap<>();

    private final Map<String, Counts> counts = new ConcurrentHashMap<>();

    private final LongAdder ownBytes = new LongAdder();

    private volatile @Nullable Thread measuring;

    /**
     * A command on its way: its name, collection, what opened the cursor it reads ({@code find},
     * {@code aggregate} or {@code changeStream}; for a getMore, the cursor's opener), the cursor a
     * getMore reads (0 for other commands), its write statements, whether a findAndModify removes.
     */
    private record Sent(String name, String collection, String cursorKind, long cursorId, int statements,
            boolean remove) {
    }

    /** An open cursor: the collection, and the command that opened it. */
    private record Cursor(String collection, String openedBy) {
    }

    /**
     * The traffic of one collection.
     * @param inserted documents inserted ({@code insert} replies)
     * @param upserted documents upserted ({@code update} and {@code findAndModify} replies)
     * @param modified documents modified ({@code update} and {@code findAndModify} replies)
     * @param deleted documents deleted ({@code delete} and {@code findAndModify} replies)
     * @param statements write statements sent (documents of {@code insert}, statements of {@code update}
     *     and {@code delete}, one per {@code findAndModify})
     * @param returnedByFind documents returned by {@code find} cursors (first batch and getMores)
     * @param returnedByAggregate documents returned by {@code aggregate} cursors that are no change stream
     * @param changeEvents events returned by change-stream cursors
     * @param changeStreamPolls {@code getMore}s of change-stream cursors
     * @param commands commands sent naming the collection, by name
     */
    record Traffic(long inserted, long upserted, long modified, long deleted, long statements, long returnedByFind,
            long returnedByAggregate, long changeEvents, long changeStreamPolls, Map<String, Long> commands) {

        static final Traffic NONE = new Traffic(0, 0, 0, 0, 0, 0, 0, 0, 0, Map.of());

        /** Rows written: inserted + upserted + modified + deleted. */
        long rowsWritten() {
            return inserted + upserted + modified + deleted;
        }

        Traffic minus(Traffic before) {
            Map<String, Long> sent = new TreeMap<>();
            commands.forEach((name, count) -> {
                long difference = count - before.commands.getOrDefault(name, 0L);
                if (difference != 0) {
                    sent.put(name, difference);
                }
            });
            return new Traffic(inserted - before.inserted, upserted - before.upserted, modified - before.modified,
                    deleted - before.deleted, statements - before.statements, returnedByFind - before.returnedByFind,
                    returnedByAggregate - before.returnedByAggregate, changeEvents - before.changeEvents,
                    changeStreamPolls - before.changeStreamPolls, sent);
        }

        Traffic plus(Traffic other) {
            Map<String, Long> sent = new TreeMap<>(commands);
            other.commands.forEach((name, count) -> sent.merge(name, count, Long::sum));
            return new Traffic(inserted + other.inserted, upserted + other.upserted, modified + other.modified,
                    deleted + other.deleted, statements + other.statements, returnedByFind + other.returnedByFind,
                    returnedByAggregate + other.returnedByAggregate, changeEvents + other.changeEvents,
                    changeStreamPolls + other.changeStreamPolls, sent);
        }
    }

    /**
     * The traffic by collection (the name within the database), at one moment.
     * @param byCollection collection → traffic
     * @param ownBytes what this listener allocated so far on the engine's threads and the measuring thread
     */
    record Snapshot(Map<String, Traffic> byCollection, long ownBytes) {

        Traffic of(String collection) {
            return byCollection.getOrDefault(collection, Traffic.NONE);
        }

        Snapshot since(Snapshot before) {
            Map<String, Traffic> delta = new TreeMap<>();
            byCollection.forEach((collection, traffic) -> {
                Traffic moved = traffic.minus(before.of(collection));
                if (!moved.equals(Traffic.NONE)) {
                    delta.put(collection, moved);
                }
            });
            return new Snapshot(delta, ownBytes - before.ownBytes);
        }
    }

    private static final class Counts {
        final LongAdder inserted = new LongAdder();
        final LongAdder upserted = new LongAdder();
        final LongAdder modified = new LongAdder();
        final LongAdder deleted = new LongAdder();
        final LongAdder statements = new LongAdder();
        final LongAdder returnedByFind = new LongAdder();
        final LongAdder returnedByAggregate = new LongAdder();
        final LongAdder changeEvents = new LongAdder();
        final LongAdder changeStreamPolls = new LongAdder();
        final Map<String, LongAdder> commands = new ConcurrentHashMap<>();

        Traffic read() {
            Map<String, Long> sent = new TreeMap<>();
            commands.forEach((name, count) -> sent.put(name, count.sum()));
            return new Traffic(inserted.sum(), upserted.sum(), modified.sum(), deleted.sum(), statements.sum(),
                    returnedByFind.sum(), returnedByAggregate.sum(), changeEvents.sum(), changeStreamPolls.sum(), sent);
        }
    }

    Snapshot snapshot() {
        Map<String, Traffic> copy = new TreeMap<>();
        counts.forEach((collection, count) -> copy.put(collection, count.read()));
        return new Snapshot(copy, ownBytes.sum());
    }

    /** The thread that moves the manual clock: what this listener allocates there is counted as its own too. */
    void measuringThread(Thread thread) {
        this.measuring = thread;
    }

    @Override
    public void commandStarted(CommandStartedEvent event) {
        long before = Meter.threadAllocatedBytes();
        try {
            Sent sent = sentOf(event.getCommandName(), event.getCommand());
            if (sent != null) {
                pending.put(event.getRequestId(), sent);
                Counts count = countsOf(sent.collection());
                count.commands.computeIfAbsent(sent.cursorKind().equals(CHANGE_STREAM)
                        ? sent.name() + CHANGE_STREAM_SUFFIX : sent.name(), name -> new LongAdder()).increment();
                count.statements.add(sent.statements());
            }
        }
        finally {
            countOwn(before);
        }
    }

    @Override
    public void commandSucceeded(CommandSucceededEvent event) {
        long before = Meter.threadAllocatedBytes();
        try {
            Sent sent = pending.remove(event.getRequestId());
            if (sent != null) {
                replied(sent, event.getResponse());
            }
        }
        finally {
            countOwn(before);
        }
    }

    @Override
    public void commandFailed(CommandFailedEvent event) {
        pending.remove(event.getRequestId());
    }

    private void countOwn(long before) {
        Thread current = Thread.currentThread();
        if (before >= 0 && (current == measuring || current.getName().startsWith(ENGINE_THREADS))) {
            ownBytes.add(Meter.threadAllocatedBytes() - before);
        }
    }

    private @Nullable Sent sentOf(String name, BsonDocument command) {
        switch (name) {
            case "insert", "update", "delete", "find", "aggregate", "findAndModify", "count", "distinct" -> {
                BsonValue collection = command.get(name);
                if (collection == null || !collection.isString()) {
                    return null;
                }
                String cursorKind = name;
                if (name.equals("aggregate") && command.get("pipeline") instanceof BsonArray pipeline && !pipeline.isEmpty()
                        && pipeline.get(0) instanceof BsonDocument first && first.containsKey("$changeStream")) {
                    cursorKind = CHANGE_STREAM;
                }
                int statements = switch (name) {
                    case "insert" -> sizeOf(command.get("documents"));
                    case "update" -> sizeOf(command.get("updates"));
                    case "delete" -> sizeOf(command.get("deletes"));
                    case "findAndModify" -> 1;
                    default -> 0;
                };
                boolean remove = name.equals("findAndModify") && command.getBoolean("remove", BsonBoolean.FALSE).getValue();
                return new Sent(name, collection.asString().getValue(), cursorKind, 0, statements, remove);
            }
            case "getMore" -> {
                long id = number(command, "getMore");
                Cursor cursor = cursors.get(id);
                if (cursor != null) {
                    return new Sent(name, cursor.collection(), cursor.openedBy(), id, 0, false);
                }
                BsonValue collection = command.get("collection");
                return collection != null && collection.isString()
                        ? new Sent(name, collection.asString().getValue(), "find", id, 0, false) : null;
            }
            default -> {
                return null;
            }
        }
    }

    private static int sizeOf(@Nullable BsonValue value) {
        return value instanceof BsonArray array ? array.size() : 0;
    }

    private void replied(Sent sent, BsonDocument reply) {
        Counts count = countsOf(sent.collection());
        switch (sent.name()) {
            case "insert" -> count.inserted.add(number(reply, "n"));
            case "update" -> {
                long upserted = sizeOf(reply.get("upserted"));
                count.upserted.add(upserted);
                count.modified.add(number(reply, "nModified"));
            }
            case "delete" -> count.deleted.add(number(reply, "n"));
            case "findAndModify" -> {
                BsonDocument last = reply.get("lastErrorObject") instanceof BsonDocument document ? document : new BsonDocument();
                long n = number(last, "n");
                if (sent.remove()) {
                    count.deleted.add(n);
                }
                else if (last.containsKey("upserted")) {
                    count.upserted.add(1);
                }
                else {
                    count.modified.add(n);
                }
            }
            case "find", "aggregate" -> {
                BsonDocument cursor = reply.get("cursor") instanceof BsonDocument document ? document : null;
                if (cursor == null) {
                    return;
                }
                addReturned(count, sent.cursorKind(), sizeOf(cursor.get("firstBatch")));
                long id = number(cursor, "id");
                if (id != 0) {
                    cursors.put(id, new Cursor(sent.collection(), sent.cursorKind()));
                }
            }
            case "getMore" -> {
                BsonDocument cursor = reply.get("cursor") instanceof BsonDocument document ? document : null;
                if (cursor == null) {
                    return;
                }
                if (sent.cursorKind().equals(CHANGE_STREAM)) {
                    count.changeStreamPolls.increment();
                }
                addReturned(count, sent.cursorKind(), sizeOf(cursor.get("nextBatch")));
                if (number(cursor, "id") == 0) {
                    cursors.remove(sent.cursorId());
                }
            }
            default -> {
                // count and distinct return no rows of a collection
            }
        }
    }

    private static void addReturned(Counts count, String openedBy, long returned) {
        switch (openedBy) {
            case CHANGE_STREAM -> count.changeEvents.add(returned);
            case "aggregate" -> count.returnedByAggregate.add(returned);
            default -> count.returnedByFind.add(returned);
        }
    }

    private static long number(BsonDocument document, String key) {
        BsonValue value = document.get(key);
        return value != null && value.isNumber() ? value.asNumber().longValue() : 0;
    }

    private Counts countsOf(String collection) {
        return counts.computeIfAbsent(collection, name -> new Counts());
    }
}
