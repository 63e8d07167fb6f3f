package dev.materializer.spring.data;

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
        super("Tenant '" + tenant + "' has no view '" + view + "' (no document with that _id and partition in '"
                + viewsCollection + "')");
        this.tenant = tenant;
        this.view = view;
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
