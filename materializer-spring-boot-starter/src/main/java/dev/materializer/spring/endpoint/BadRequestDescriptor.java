package dev.materializer.spring.endpoint;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The body of a {@code 400 Bad Request} of the endpoint over the web, shaped as a problem detail
 * (RFC 9457): {@code title} {@code "Bad Request"}, {@code status} 400, and the reason as {@code detail}.
 */
public final class BadRequestDescriptor implements OperationResponseBody {

    private final String detail;

    /** @param detail why the request was refused, naming what is allowed */
    public BadRequestDescriptor(String detail) {
        this.detail = detail;
    }

    /** The title of every such answer. */
    public String getTitle() {
        return "Bad Request";
    }

    /** The status, 400. */
    public int getStatus() {
        return 400;
    }

    /** Why the request was refused. */
    public String getDetail() {
        return this.detail;
    }
}
