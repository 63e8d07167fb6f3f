package dev.materializer.spring.event;

import dev.materializer.core.ViewKey;

/** An event of one view: its partition and its id. */
public abstract class ViewEvent extends MaterializerEvent {

    private static final long serialVersionUID = 1L;

    private final String partition;

    private final String viewId;

    /**
     * @param source the publisher
     * @param view the view
     */
    protected ViewEvent(Object source, ViewKey view) {
        super(source);
        this.partition = view.partition();
        this.viewId = view.id();
    }

    /** The partition of the view (the tenant). */
    public String getPartition() {
        return this.partition;
    }

    /** The text of the view's {@code _id}. */
    public String getViewId() {
        return this.viewId;
    }
}
