package dev.materializer.spring.event;

import org.jspecify.annotations.Nullable;

/** The engine stopped: it watches nothing and runs no pass. */
public final class MaterializerStoppedEvent extends MaterializerEvent {

    private static final long serialVersionUID = 1L;

    private final @Nullable String cause;

    /**
     * @param source the publisher
     * @param cause why, when the engine said
     */
    public MaterializerStoppedEvent(Object source, @Nullable String cause) {
        super(source);
        this.cause = cause;
    }

    /** Why the engine stopped, when it said. */
    public @Nullable String getCause() {
        return this.cause;
    }
}
