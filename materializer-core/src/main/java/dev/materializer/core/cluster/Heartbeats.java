package dev.materializer.core.cluster;

import java.util.Set;

/**
 * Where the instances say they are alive and learn who else is.
 *
 * <p>Implementations are called from one thread at a time.
 */
public interface Heartbeats {

    /**
     * Says this instance is alive now and reads who else is.
     * @param ready whether this instance hears every change of its sources now (its streams are
     *     open): the others hand it partitions only then, so no change falls between them
     * @return the live instances that are ready, this one included
     * @throws com.mongodb.MongoException when the store cannot be reached
     */
    Set<String> beat(boolean ready);

    /** Says this instance stops, so the others take its partitions at once. */
    void leave();
}
