package dev.materializer.spring.endpoint;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The web side of the {@link MaterializerEndpoint}: the same operations, but a view this instance
 * does not know answers {@code 404 Not Found} on write, as a read of it does, rather than
 * {@code 400}; and a bad request (an unknown state or action, a page or size out of range or not a
 * number, a body without an id) answers {@code 400} with a body that says why
 * ({@link BadRequestDescriptor}), where Boot's own answer carries only its generic error. Over the
 * web only (as Boot's own extensions, such as the environment endpoint's, answer 404 for what is
 * not there); the reads of one view are the endpoint's own, whose null answer is already 404.
 * Thread-safe: holds no state of its own.
 */
@EndpointWebExtension(endpoint = MaterializerEndpoint.class)
public final class MaterializerWebEndpointExtension {

    private final MaterializerEndpoint delegate;

    /** @param delegate the endpoint whose operations run */
    public MaterializerWebEndpointExtension(MaterializerEndpoint delegate) {
        this.delegate = delegate;
    }

    /**
     * {@code GET /actuator/materializer}: see {@link MaterializerEndpoint#materializer}. The page and
     * the size are read as text here, so that one that is not a number is refused with the reason.
     * @param partition only the views of this partition, when given
     * @param state only the views in this state, when given
     * @param page the page, from 0
     * @param size the views on a page
     * @return the summary and the page, or 400 with the reason
     */
    @ReadOperation
    public WebEndpointResponse<OperationResponseBody> materializer(@Nullable String partition, @Nullable String state,
            @Nullable String page, @Nullable String size) {
        return answer(() -> this.delegate.materializer(partition, state, number("page", page), number("size", size)));
    }

    /**
     * {@code POST /actuator/materializer/{partition}/{id}}: see {@link MaterializerEndpoint#refresh}.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return the refresh, or 404 when this instance does not know the view
     */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> refresh(@Selector String partition, @Selector String id) {
        return answer(() -> this.delegate.refresh(partition, id));
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
        return answer(() -> this.delegate.act(partition, id, action));
    }

    /**
     * {@code POST /actuator/materializer/{partition}} with {@code {"id": ..., "action": ...}}: see
     * {@link MaterializerEndpoint#actById}.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}; a body without it answers 400
     * @param action one of {@link MaterializerEndpoint#ACTIONS}; {@code refresh} when not given
     * @return the refresh or the verify, or 404 when this instance does not know the view
     */
    @WriteOperation
    public WebEndpointResponse<OperationResponseBody> actById(@Selector String partition, @Nullable String id,
            @Nullable String action) {
        return answer(() -> {
            if (id == null) {
                throw new InvalidEndpointRequestException(NO_ID, NO_ID);
            }
            return this.delegate.actById(partition, id, action);
        });
    }

    /** Why a body without an id is refused. */
    static final String NO_ID = "The body names the view: {\"id\": \"...\"}";

    /**
     * The answer of the operation; 404 without a body (as a read of an unknown view) when the view is
     * unknown; 400 with the reason when the request is invalid.
     */
    private static WebEndpointResponse<OperationResponseBody> answer(Supplier<? extends OperationResponseBody> operation) {
        try {
            return new WebEndpointResponse<>(operation.get(), WebEndpointResponse.STATUS_OK);
        }
        catch (UnknownViewException ex) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        catch (InvalidEndpointRequestException ex) {
            return new WebEndpointResponse<>(new BadRequestDescriptor(ex.getReason()),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
    }

    private static @Nullable Integer number(String name, @Nullable String text) {
        if (text == null) {
            return null;
        }
        try {
            return Integer.valueOf(text.strip());
        }
        catch (NumberFormatException ex) {
            String reason = "The " + name + " is a whole number, was '" + text + "'";
            throw new InvalidEndpointRequestException(reason, reason);
        }
    }
}
