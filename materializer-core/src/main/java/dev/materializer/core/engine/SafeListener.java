package dev.materializer.core.engine;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import java.time.Duration;

import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls the user's listener and logs, never propagates, what it throws: a listener cannot stop the engine. */
final class SafeListener implements MaterializerListener {

    private static final Logger log = LoggerFactory.getLogger(SafeListener.class);

    private final MaterializerListener delegate;

    SafeListener(MaterializerListener delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onChange(String source, @Nullable Duration lag) {
        guard("onChange", () -> delegate.onChange(source, lag));
    }

    @Override
    public void onBroadcastEvent(String source) {
        guard("onBroadcastEvent", () -> delegate.onBroadcastEvent(source));
    }

    @Override
    public void onPassStarted(ViewKey view) {
        guard("onPassStarted", () -> delegate.onPassStarted(view));
    }

    @Override
    public void onPassFinished(PassReport report) {
        guard("onPassFinished", () -> delegate.onPassFinished(report));
    }

    @Override
    public void onViewErrored(ViewKey view, String error) {
        guard("onViewErrored", () -> delegate.onViewErrored(view, error));
    }

    @Override
    public void onStreamReopened(String collection, String reason) {
        guard("onStreamReopened", () -> delegate.onStreamReopened(collection, reason));
    }

    @Override
    public void onStateChanged(EngineState state, @Nullable String reason) {
        guard("onStateChanged", () -> delegate.onStateChanged(state, reason));
    }

    @Override
    public void onReconciled(ViewKey view, VerifyReport report, boolean drift) {
        guard("onReconciled", () -> delegate.onReconciled(view, report, drift));
    }

    private static void guard(String method, Runnable call) {
        try {
            call.run();
        }
        catch (RuntimeException ex) {
            log.warn("The materializer listener failed in {}; the engine goes on", method, ex);
        }
    }
}
