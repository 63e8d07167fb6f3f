package dev.materializer.spring.event;

/** The engine runs: it watches its sources (after a start, or after retrying one). */
public final class MaterializerStartedEvent extends MaterializerEvent {

    private static final long serialVersionUID = 1L;

    /** @param source the publisher */
    public MaterializerStartedEvent(Object source) {
        super(source);
    }
}
