package dev.materializer.core.stream;

import dev.materializer.core.routing.SourceChange;
import org.bson.BsonDocument;

/**
 * A {@link StreamListener} that hands every call to another one: a wrapper overrides only what it
 * adds to. Threads: those of the stream, as for the listener it wraps.
 */
public abstract class ForwardingStreamListener implements StreamListener {

    private final StreamListener delegate;

    /**
     * Creates the listener that hands every call on.
     * @param delegate the listener every call goes to
     */
    protected ForwardingStreamListener(StreamListener delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onChange(String collection, SourceChange change) {
        delegate.onChange(collection, change);
    }

    @Override
    public void onOpened(String collection, boolean resumed, boolean reopened, Checkpoint from) {
        delegate.onOpened(collection, resumed, reopened, from);
    }

    @Override
    public void onEnded(String collection, String reason, boolean historyLost) {
        delegate.onEnded(collection, reason, historyLost);
    }

    @Override
    public Checkpoint checkpointAt(String collection, BsonDocument token) {
        return delegate.checkpointAt(collection, token);
    }

    @Override
    public boolean checkpointWanted(String collection) {
        return delegate.checkpointWanted(collection);
    }
}
