package dev.materializer.spring.event;

import dev.materializer.core.ViewKey;

/**
 * The reconciler found drift in a view (its stored rows differed from a fresh run of its pipeline
 * with no work pending) and rewrote it.
 */
public final class ViewDriftEvent extends ViewEvent {

    private static final long serialVersionUID = 1L;

    private final long differences;

    /**
     * @param source the publisher
     * @param view the view
     * @param differences the rows that differed
     */
    public ViewDriftEvent(Object source, ViewKey view, long differences) {
        super(source, view);
        this.differences = differences;
    }

    /** The rows that differed (missing, changed or extra). */
    public long getDifferences() {
        return this.differences;
    }
}
