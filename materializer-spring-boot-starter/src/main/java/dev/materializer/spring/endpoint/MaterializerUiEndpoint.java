package dev.materializer.spring.endpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * The operator page, {@code GET /actuator/materializerui}: one HTML page (no build, no external
 * script) that reads the {@code materializer} endpoint's JSON beside it and draws, per partition,
 * the views as a graph of their dependencies — sources, views, views over views — with each view's
 * state, last pass, scope and drift; the instance's state, streams, lag and passes in flight; and
 * the errored views first, with their last error. It shows only what the endpoint answers, and
 * writes nothing. An actuator endpoint, so it is exposed, and secured, as the endpoints are
 * ({@code management.endpoints.web.exposure.include=materializer,materializerui}); served only with
 * {@code materializer.ui.enabled=true}. Read-only access by default. Thread-safe.
 */
@WebEndpoint(id = "materializerui", defaultAccess = Access.READ_ONLY)
public final class MaterializerUiEndpoint {

    private static final String PAGE = "operator.html";

    private final String page;

    /** Reads the page once. */
    public MaterializerUiEndpoint() {
        try (InputStream in = MaterializerUiEndpoint.class.getResourceAsStream(PAGE)) {
            if (in == null) {
                throw new IllegalStateException("the operator page " + PAGE + " is missing from the starter's jar");
            }
            this.page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The page.
     * @return the HTML of the operator page
     */
    @ReadOperation(produces = "text/html;charset=UTF-8")
    public String page() {
        return this.page;
    }
}
