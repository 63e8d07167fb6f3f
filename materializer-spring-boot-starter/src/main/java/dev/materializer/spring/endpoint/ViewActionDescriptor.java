package dev.materializer.spring.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What an action on one view did: the view, how the action ended, and why there is no result. The part
 * a {@link RefreshDescriptor} and a {@link VerifyDescriptor} share.
 */
public abstract class ViewActionDescriptor implements OperationResponseBody {

    private final String partition;

    private final String id;

    private final String status;

    private final @Nullable String message;

    ViewActionDescriptor(String partition, String id, String status, @Nullable String message) {
        this.partition = partition;
        this.id = id;
        this.status = status;
        this.message = message;
    }

    /** @return the partition of the view */
    public String getPartition() {
        return this.partition;
    }

    /** @return the text of the view's {@code _id} */
    public String getId() {
        return this.id;
    }

    /** @return {@code finished} (see the result), {@code running} (still, after the wait) or {@code failed} */
    public String getStatus() {
        return this.status;
    }

    /** @return why there is no result */
    public @Nullable String getMessage() {
        return this.message;
    }
}
