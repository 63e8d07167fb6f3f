package dev.materializer.spring.event;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Turns what the engine tells its listeners into Spring events: {@link ViewErroredEvent} when a
 * view becomes errored, {@link ViewRecoveredEvent} at the first pass of an errored view that does
 * not fail, {@link ViewDriftEvent} when the reconciler found drift, {@link MaterializerStartedEvent}
 * and {@link MaterializerStoppedEvent} when the engine enters {@code running} and {@code stopped}.
 * The auto-configuration adds it to the engine's listeners. Events are published on the engine's
 * thread; the engine guards the call, so a listener that throws is logged and ignored.
 *
 * <p>Threads: stream, pass and timer threads call it at once; the errored views are a concurrent
 * set, the last state an atomic reference.
 */
public final class MaterializerEventPublisher implements MaterializerListener {

    private final ApplicationEventPublisher publisher;

    private final Set<ViewKey> errored = ConcurrentHashMap.newKeySet();

    private final AtomicReference<@Nullable EngineState> state = new AtomicReference<>();

    /** @param publisher where the events go: the application context */
    public MaterializerEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void onViewErrored(ViewKey view, String error) {
        this.errored.add(view);
        this.publisher.publishEvent(new ViewErroredEvent(this, view, error));
    }

    @Override
    public void onPassFinished(PassReport report) {
        if (report.outcome() != PassOutcome.ERRORED && report.outcome() != PassOutcome.SUPERSEDED
                && this.errored.remove(report.view())) {
            this.publisher.publishEvent(new ViewRecoveredEvent(this, report.view()));
        }
    }

    @Override
    public void onReconciled(ViewKey view, VerifyReport report, boolean drift) {
        if (drift && report.error() == null && report.differences() > 0) {
            this.publisher.publishEvent(new ViewDriftEvent(this, view, report.differences()));
        }
    }

    @Override
    public void onStateChanged(EngineState next, @Nullable String reason) {
        // Once per entry: the engine may say its state again with another reason.
        EngineState previous = this.state.getAndSet(next);
        if (previous == next) {
            return;
        }
        if (next == EngineState.RUNNING) {
            this.publisher.publishEvent(new MaterializerStartedEvent(this));
        }
        else if (next == EngineState.STOPPED) {
            this.errored.clear();
            this.publisher.publishEvent(new MaterializerStoppedEvent(this, reason));
        }
    }
}
