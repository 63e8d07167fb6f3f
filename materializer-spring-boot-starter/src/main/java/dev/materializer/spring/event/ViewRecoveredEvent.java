package dev.materializer.spring.event;

import dev.materializer.core.ViewKey;

/** A view that was errored on this instance ran a pass that did not fail. */
public final class ViewRecoveredEvent extends ViewEvent {

    private static final long serialVersionUID = 1L;

    /**
     * @param source the publisher
     * @param view the view
     */
    public ViewRecoveredEvent(Object source, ViewKey view) {
        super(source, view);
    }
}
