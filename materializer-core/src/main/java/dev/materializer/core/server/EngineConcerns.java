package dev.materializer.core.server;

import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.TransactionOptions;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;

/**
 * How the engine reads and writes, whatever the application client's defaults are: on the
 * primary, with majority read and write concerns.
 *
 * <ul>
 * <li><b>Primary.</b> A pass must see the change that woke it; a lagging secondary may not have it
 *     yet, and a transaction must read the primary anyway (the driver refuses any other read
 *     preference inside one).</li>
 * <li><b>Write concern majority.</b> Target rows, statuses, leases, flips, heartbeats and
 *     checkpoints are acknowledged once a majority has them, so a failover cannot roll back a flip
 *     that readers already follow, a lease another instance already respects, or a checkpoint
 *     past changes whose passes were lost.</li>
 * <li><b>Read concern majority.</b> Change-stream events are majority-committed; a pass reading
 *     with {@code local} could fold into a view a source write that a failover then rolls back,
 *     and no event would ever correct it. Majority reads on the primary see everything an event
 *     described (the event was returned only once committed), and the engine's own majority
 *     writes once they are acknowledged.</li>
 * </ul>
 *
 * <p>The cost: with no majority of data-bearing members, the engine's writes wait (see the
 * operations guide) instead of writing what a failover could undo.
 */
public final class EngineConcerns {

    /** The read preference of every engine read. */
    public static final ReadPreference READ_PREFERENCE = ReadPreference.primary();

    /** The read concern of every engine read outside transactions. */
    public static final ReadConcern READ_CONCERN = ReadConcern.MAJORITY;

    /** The write concern of every engine write. */
    public static final WriteConcern WRITE_CONCERN = WriteConcern.MAJORITY;

    /**
     * Options for the engine's transactions: the primary (the only read preference a transaction
     * accepts; without it a session inherits the client's), a snapshot, majority commit.
     */
    public static final TransactionOptions TRANSACTION = TransactionOptions.builder()
        .readPreference(READ_PREFERENCE)
        .readConcern(ReadConcern.SNAPSHOT)
        .writeConcern(WRITE_CONCERN)
        .build();

    private EngineConcerns() {
    }

    /**
     * The engine's handle on its database.
     * @param client the application's client, whatever its defaults
     * @param database the database's name
     * @return the database on the primary, with majority read and write concerns
     */
    public static MongoDatabase database(MongoClient client, String database) {
        return client.getDatabase(database)
            .withReadPreference(READ_PREFERENCE)
            .withReadConcern(READ_CONCERN)
            .withWriteConcern(WRITE_CONCERN);
    }
}
