package dev.materializer.spring.data;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataRetrievalFailureException;

/** A read named a view the tenant does not have: no view document with that id and partition. */
public final class MaterializedViewNotFoundException extends DataRetrievalFailureException {

    private static final long serialVersionUID = 1L;

    private final String tenant;

    private final String view;

    /**
     * @param tenant the tenant asked for
     * @param view the view id asked for
     * @param viewsCollection the collection searched
     */
    MaterializedViewNotFoundException(String tenant, String view, String viewsCollection) {
        this(tenant, view, "Tenant '" + tenant + "' has no view '" + view + "' (no document with that _id and partition in '"
                + viewsCollection + "')", null);
    }

    private MaterializedViewNotFoundException(String tenant, String view, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.tenant = tenant;
        this.view = view;
    }

    /**
     * A wait named a view the engine does not know (yet): the document may exist, but the engine
     * has not read it, or it is invalid.
     * @param tenant the tenant asked for
     * @param view the view id asked for
     * @param cause the engine's answer
     * @return the exception
     */
    static MaterializedViewNotFoundException unknownToTheEngine(String tenant, String view, RuntimeException cause) {
        return new MaterializedViewNotFoundException(tenant, view,
                "Tenant '" + tenant + "' has no view '" + view + "' that the engine knows: " + cause.getMessage(), cause);
    }

    /** The tenant asked for. */
    public String getTenant() {
        return this.tenant;
    }

    /** The view id asked for. */
    public String getView() {
        return this.view;
    }
}
