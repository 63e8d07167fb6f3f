package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands every event to several listeners, because the engine's options carry one. A listener that
 * throws is logged and skipped, so the next still hears the event. Thread-safe: the list is
 * immutable and the listeners are called on the engine's threads.
 */
final class CompositeMaterializerListener implements MaterializerListener {

    private static final Logger log = LoggerFactory.getLogger(CompositeMaterializerListener.class);

    private final List<MaterializerListener> listeners;

    private CompositeMaterializerListener(List<MaterializerListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /** One listener for all: none, the only one, or a composite that calls each in order. */
    static MaterializerListener of(List<MaterializerListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> MaterializerListener.NONE;
            case 1 -> listeners.get(0);
            default -> new CompositeMaterializerListener(listeners);
        };
    }

    List<MaterializerListener> listeners() {
        return this.listeners;
    }

    @Override
    public void onChange(String source, @Nullable Duration lag) {
        each("onChange", listener -> listener.onChange(source, lag));
    }

    @Override
    public void onBroadcastEvent(String source) {
        each("onBroadcastEvent", listener -> listener.onBroadcastEvent(source));
    }

    @Override
    public void onPassStarted(ViewKey view) {
        each("onPassStarted", listener -> listener.onPassStarted(view));
    }

    @Override
    public void onPassFinished(PassReport report) {
        each("onPassFinished", listener -> listener.onPassFinished(report));
    }

    @Override
    public void onViewErrored(ViewKey view, String error) {
        each("onViewErrored", listener -> listener.onViewErrored(view, error));
    }

    @Override
    public void onStreamReopened(String collection, String reason) {
        each("onStreamReopened", listener -> listener.onStreamReopened(collection, reason));
    }

    @Override
    public void onStateChanged(EngineState state, @Nullable String reason) {
        each("onStateChanged", listener -> listener.onStateChanged(state, reason));
    }

    @Override
    public void onReconciled(ViewKey view, VerifyReport report, boolean drift) {
        each("onReconciled", listener -> listener.onReconciled(view, report, drift));
    }

    private void each(String event, Consumer<MaterializerListener> call) {
        for (MaterializerListener listener : this.listeners) {
            try {
                call.accept(listener);
            }
            catch (RuntimeException ex) {
                log.warn("Materializer listener {} failed on {}; the other listeners still hear it", listener, event, ex);
            }
        }
    }
}
