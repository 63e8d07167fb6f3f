package dev.materializer.spring.testing;

import com.mongodb.client.MongoClient;
import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.spring.autoconfigure.MaterializerFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link MaterializerFactory} that keeps what the auto-configuration hands it and creates a
 * {@link RecordingMaterializer}, so tests read the options, database and client of the engine.
 */
public final class RecordingMaterializerFactory implements MaterializerFactory {

    private @Nullable MongoClient client;

    private @Nullable String database;

    private @Nullable MaterializerOptions options;

    private final RecordingMaterializer materializer = new RecordingMaterializer();

    private int creations;

    /** How many times the starter asked for an engine (the same recording engine each time). */
    public synchronized int creations() {
        return this.creations;
    }

    @Override
    public synchronized Materializer create(MongoClient client, String database, MaterializerOptions options) {
        this.client = client;
        this.database = database;
        this.options = options;
        this.creations++;
        return this.materializer;
    }

    /** @return the client of the last engine */
    public synchronized @Nullable MongoClient client() {
        return this.client;
    }

    /** @return the database of the last engine */
    public synchronized @Nullable String database() {
        return this.database;
    }

    /** @return the options of the last engine */
    public synchronized MaterializerOptions options() {
        if (this.options == null) {
            throw new IllegalStateException("no engine was created");
        }
        return this.options;
    }

    /** @return the engine it creates */
    public RecordingMaterializer materializer() {
        return this.materializer;
    }
}
