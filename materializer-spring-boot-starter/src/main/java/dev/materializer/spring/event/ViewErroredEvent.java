package dev.materializer.spring.event;

import dev.materializer.core.ViewKey;

/** A view became errored on this instance: its pass failed, or its definition is invalid. */
public final class ViewErroredEvent extends ViewEvent {

    private static final long serialVersionUID = 1L;

    private final String cause;

    /**
     * @param source the publisher
     * @param view the view
     * @param cause why, as the view's {@code lastError} says
     */
    public ViewErroredEvent(Object source, ViewKey view, String cause) {
        super(source, view);
        this.cause = cause;
    }

    /** Why the view is errored. */
    public String getCause() {
        return this.cause;
    }
}
