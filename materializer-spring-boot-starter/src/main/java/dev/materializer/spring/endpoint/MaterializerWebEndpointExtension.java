package dev.materializer.spring.endpoint;

import java.util.function.Supplier;

import dev.materializer.spring.endpoint.MaterializerEndpoint.RefreshDescriptor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The web side of the {@link MaterializerEndpoint}'s write operations: the same refresh and verify,
 * but a view this instance does not know answers {@code 404 Not Found}, as a read of it does,
 * rather than {@code 400}. Over the web only (as Boot's own extensions, such as the environment
 * endpoint's, answer 404 for what is not there); the reads are the endpoint's own, whose null answer
 * is already 404. Thread-safe: holds no state of its own.
 */
@EndpointWebExtension(endpoint = MaterializerEndpoint.class)
public final class MaterializerWebEndpointExtension {

    private final MaterializerEndpoint delegate;

    /** @param delegate the endpoint whose operations run */
    public MaterializerWebEndpointExtension(MaterializerEndpoint delegate) {
        this.delegate = delegate;
    }

    /**
     * {@code POST /actuator/materializer/{partition}/{id}}: see {@link MaterializerEndpoint#refresh}.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return the refresh, or 404 when this instance does not know the view
     */
    @WriteOperation
    public WebEndpointResponse<RefreshDescriptor> refresh(@Selector String partition, @Selector String id) {
        return orNotFound(() -> this.delegate.refresh(partition, id));
    }

    /**
     * {@code POST /actuator/materializer/{partition}/{id}/{action}}: see {@link MaterializerEndpoint#act}.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @param action one of {@link MaterializerEndpoint#ACTIONS}
     * @return the refresh or the verify, or 404 when this instance does not know the view
     */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> act(@Selector String partition, @Selector String id,
            @Selector String action) {
        return orNotFound(() -> this.delegate.act(partition, id, action));
    }

    /**
     * {@code POST /actuator/materializer/{partition}} with {@code {"id": ..., "action": ...}}: see
     * {@link MaterializerEndpoint#actById}.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @param action one of {@link MaterializerEndpoint#ACTIONS}; {@code refresh} when not given
     * @return the refresh or the verify, or 404 when this instance does not know the view
     */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> actById(@Selector String partition, String id,
            @Nullable String action) {
        return orNotFound(() -> this.delegate.actById(partition, id, action));
    }

    /** The answer of the operation, or 404 without a body (as a read of an unknown view) when the view is unknown. */
    private static <T> WebEndpointResponse<T> orNotFound(Supplier<T> operation) {
        try {
            return new WebEndpointResponse<>(operation.get(), WebEndpointResponse.STATUS_OK);
        }
        catch (UnknownViewException ex) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
    }
}
