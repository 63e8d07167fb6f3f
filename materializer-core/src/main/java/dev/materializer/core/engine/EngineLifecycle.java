package dev.materializer.core.engine;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import org.jspecify.annotations.Nullable;

/**
 * The engine's state and why it is in it: the one place the state lives, read by the parts that
 * act only while running or judge failures differently while stopping, and told to the listener at
 * every change.
 *
 * <p>What it guarantees: the listener hears every change in the order the changes were made, and a
 * thread waiting on this object's monitor wakes at each.
 *
 * <p>Threads: read from any thread (volatile fields); changed under this object's monitor (by the
 * facade's start thread and the callers of its control methods), which the waits of the facade wait on.
 */
final class EngineLifecycle {

    private final MaterializerListener listener;

    private volatile EngineState state = EngineState.NEW;

    private volatile @Nullable String reason;

    EngineLifecycle(MaterializerListener listener) {
        this.listener = listener;
    }

    EngineState state() {
        return state;
    }

    /** Why the engine is in its state, or null when there is nothing to say. */
    @Nullable String reason() {
        return reason;
    }

    boolean running() {
        return state == EngineState.RUNNING;
    }

    /** Whether the engine is stopping or stopped: a failure then may be the close itself. */
    boolean stopping() {
        return state == EngineState.STOPPING || state == EngineState.STOPPED;
    }

    /**
     * Moves to a state. Callers hold this object's monitor already, to decide and move in one step;
     * the method takes it too, so a waiter is woken whoever calls.
     */
    synchronized void set(EngineState next, @Nullable String why) {
        state = next;
        reason = why;
        listener.onStateChanged(next, why);
        notifyAll();
    }
}
