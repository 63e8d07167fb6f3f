package dev.materializer.spring.endpoint;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * An operation of the {@link MaterializerEndpoint} named a view this instance does not know. Over
 * the web, {@link MaterializerWebEndpointExtension} answers it 404, as a read of an unknown view; any
 * other technology sees an invalid request.
 */
public final class UnknownViewException extends InvalidEndpointRequestException {

    private static final long serialVersionUID = 1L;

    /**
     * @param partition the partition asked for
     * @param id the id asked for
     */
    public UnknownViewException(String partition, String id) {
        super(reason(partition, id), reason(partition, id));
    }

    private static String reason(String partition, String id) {
        return "No view '" + id + "' in partition '" + partition + "' is known to this instance";
    }
}
